//===- TunedTable.cpp - Tuned dispatch tables (CSV) -----------------------===//

#include "TunedTable.h"
#include "ops/OpRegistry.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <sys/stat.h>

namespace tessel {

namespace {
// Tuned tables are a few kilobytes; a bigger file is a mistake.
constexpr size_t kMaxTableBytes = size_t(16) << 20;
} // namespace

int64_t roundUpPow2(int64_t v) {
  int64_t p = 1;
  while (p < v && p < (int64_t(1) << 62))
    p <<= 1;
  return p;
}

namespace {

struct Field {
  std::string text;
  size_t col; // 1-based column of the first character
};

void splitLine(const std::string &line, std::vector<Field> &out) {
  out.clear();
  size_t start = 0;
  while (true) {
    size_t end = line.find(',', start);
    size_t stop = end == std::string::npos ? line.size() : end;
    size_t a = start, b = stop;
    while (a < b && (line[a] == ' ' || line[a] == '\t'))
      ++a;
    while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
      --b;
    out.push_back({line.substr(a, b - a), a + 1});
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
}

bool isIdent(const std::string &s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

} // namespace

Status parseTunedTable(const std::string &text, const std::string &name,
                       const TableSchema &schema, TunedTable &out) {
  out.file = name;
  out.rows.clear();
  auto err = [&](int line, size_t col, const std::string &msg) {
    return Status::error(
        TESSEL_ERROR_TABLE,
        format("%s:%d:%zu: %s", name.c_str(), line, col, msg.c_str()));
  };
  std::vector<int> order; // header position -> schema column
  std::vector<Field> fields;
  std::map<std::string, int> keyLines; // key columns as text -> first line
  size_t pos = 0;
  int lineNo = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line =
        text.substr(pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    for (size_t i = 0; i < line.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(line[i]);
      if (c < 0x20 && c != '\t')
        return err(lineNo, i + 1, "control character");
    }
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#')
      continue;
    splitLine(line, fields);
    if (order.empty()) {
      std::vector<bool> seen(schema.columns.size(), false);
      for (const auto &f : fields) {
        int idx = -1;
        for (size_t c = 0; c < schema.columns.size(); ++c)
          if (f.text == schema.columns[c].name)
            idx = static_cast<int>(c);
        if (idx < 0)
          return err(lineNo, f.col,
                     format("unknown column '%s' for table %s", f.text.c_str(),
                            schema.op));
        if (seen[idx])
          return err(lineNo, f.col,
                     format("duplicate column '%s'", f.text.c_str()));
        seen[idx] = true;
        order.push_back(idx);
      }
      for (size_t c = 0; c < seen.size(); ++c)
        if (!seen[c])
          return err(
              lineNo, 1,
              format("header lacks column '%s'", schema.columns[c].name));
      continue;
    }
    if (fields.size() != order.size())
      return err(lineNo,
                 fields.size() > order.size() ? fields[order.size()].col
                                              : line.size() + 1,
                 format("expected %zu fields, found %zu", order.size(),
                        fields.size()));
    TableRow row;
    row.line = lineNo;
    row.cells.resize(schema.columns.size());
    for (size_t i = 0; i < fields.size(); ++i) {
      const ColumnSpec &spec = schema.columns[order[i]];
      TableCell &cell = row.cells[order[i]];
      const Field &f = fields[i];
      switch (spec.type) {
      case ColumnType::Int:
        if (!parseInt64(f.text, cell.i))
          return err(lineNo, f.col,
                     format("column '%s': expected an integer, found '%s'",
                            spec.name, f.text.c_str()));
        if (cell.i < spec.minValue)
          return err(lineNo, f.col,
                     format("column '%s': %lld is below the minimum %lld",
                            spec.name, (long long)cell.i,
                            (long long)spec.minValue));
        break;
      case ColumnType::Real: {
        char *end = nullptr;
        errno = 0;
        cell.d = f.text.empty() ? 0 : strtod(f.text.c_str(), &end);
        if (f.text.empty() || *end != '\0' || errno != 0 ||
            !std::isfinite(cell.d) || cell.d < 0)
          return err(lineNo, f.col,
                     format("column '%s': expected a non-negative number, "
                            "found '%s'",
                            spec.name, f.text.c_str()));
        break;
      }
      case ColumnType::String:
        if (!isIdent(f.text))
          return err(lineNo, f.col,
                     format("column '%s': expected a name, found '%s'",
                            spec.name, f.text.c_str()));
        cell.s = f.text;
        break;
      }
    }
    std::string key, keyText;
    for (size_t c = 0; c < schema.columns.size(); ++c) {
      const ColumnSpec &spec = schema.columns[c];
      if (!spec.key)
        continue;
      std::string v = spec.type == ColumnType::String
                          ? row.cells[c].s
                          : std::to_string(row.cells[c].i);
      key += v + '\0';
      keyText +=
          format("%s%s=%s", keyText.empty() ? "" : " ", spec.name, v.c_str());
    }
    auto [it, fresh] = keyLines.emplace(key, lineNo);
    if (!fresh)
      return err(lineNo, 1,
                 format("row has the same key as line %d (%s); each key may "
                        "appear once",
                        it->second, keyText.c_str()));
    out.rows.push_back(std::move(row));
  }
  if (order.empty())
    return err(lineNo ? lineNo : 1, 1, "table has no header line");
  return Status::ok();
}

const std::vector<const TableSchema *> &tunedTableSchemas() {
  static const std::vector<const TableSchema *> all = [] {
    std::vector<const TableSchema *> v;
    for (const OpSpec *op : opRegistry())
      if (!op->schema.columns.empty())
        v.push_back(&op->schema);
    return v;
  }();
  return all;
}

namespace {
Status checkTunedDir(const std::string &dir) {
  struct stat st;
  return statDirectory(dir, "TESSEL_TUNED_DIR", st);
}
} // namespace

Status loadTunedTable(const std::string &tunedDir, const TableSchema &schema,
                      TunedTable &out, std::string *note) {
  if (!tunedDir.empty()) {
    if (Status s = checkTunedDir(tunedDir))
      return s;
    std::string path = tunedDir + "/" + schema.op + ".csv";
    struct stat st;
    if (lstat(path.c_str(), &st) == 0) {
      if (S_ISLNK(st.st_mode) && stat(path.c_str(), &st) != 0)
        return Status::error(TESSEL_ERROR_IO,
                             format("tuned table '%s' is a broken symbolic "
                                    "link: %s",
                                    path.c_str(), strerror(errno)));
      std::string text;
      if (Status s = readFile(path, text, kMaxTableBytes))
        return s;
      return parseTunedTable(text, path, schema, out);
    }
    if (errno != ENOENT)
      return Status::error(
          TESSEL_ERROR_IO,
          format("tuned table '%s': %s", path.c_str(), strerror(errno)));
    if (note)
      *note = format("TESSEL_TUNED_DIR '%s' has no %s.csv; using the built-in "
                     "table",
                     tunedDir.c_str(), schema.op);
  }
  return parseTunedTable(builtinTunedTable(schema.op),
                         std::string("<built-in>/") + schema.op + ".csv",
                         schema, out);
}

Status loadTunedTables(const std::string &tunedDir,
                       std::vector<TunedTable> &out,
                       std::vector<std::string> &notes) {
  const auto &schemas = tunedTableSchemas();
  out.assign(schemas.size(), TunedTable());
  for (size_t i = 0; i < schemas.size(); ++i) {
    std::string note;
    if (Status s = loadTunedTable(tunedDir, *schemas[i], out[i], &note))
      return s;
    if (!note.empty())
      notes.push_back(note);
  }
  if (tunedDir.empty())
    return Status::ok();
  // A table for no known op (a misspelt name) would never be read.
  DIR *d = opendir(tunedDir.c_str());
  if (!d)
    return Status::error(
        TESSEL_ERROR_IO,
        format("TESSEL_TUNED_DIR '%s': %s", tunedDir.c_str(), strerror(errno)));
  std::string unknown;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".csv") != 0)
      continue;
    std::string op = name.substr(0, name.size() - 4);
    bool known = std::any_of(schemas.begin(), schemas.end(),
                             [&](const TableSchema *s) { return op == s->op; });
    if (!known && (unknown.empty() || name < unknown))
      unknown = name;
  }
  closedir(d);
  if (!unknown.empty()) {
    std::string ops;
    for (const TableSchema *s : schemas)
      ops += std::string(ops.empty() ? "" : ", ") + s->op;
    return Status::error(TESSEL_ERROR_TABLE,
                         format("tuned table '%s/%s' names no op (tables: "
                                "<op>.csv for %s)",
                                tunedDir.c_str(), unknown.c_str(),
                                ops.c_str()));
  }
  return Status::ok();
}

} // namespace tessel
