//===- MfmaLayoutCsv.cpp - AMD's MFMA register-layout tables --------------===//

#include "MfmaLayoutCsv.h"

#include <cctype>
#include <fstream>
#include <sstream>

using namespace tessel::test;

namespace {

/// Reads the decimal number at `s[pos]`, moving `pos` past it.
bool readNumber(const std::string &s, size_t &pos, int &out) {
  size_t start = pos;
  long v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) &&
         pos - start < 9)
    v = v * 10 + (s[pos++] - '0');
  out = int(v);
  return pos > start;
}

bool expect(const std::string &s, size_t &pos, const char *lit) {
  std::string l(lit);
  if (s.compare(pos, l.size(), l) != 0)
    return false;
  pos += l.size();
  return true;
}

/// Parses "v<reg>{<lane>}" with an optional ".[<hi>:<lo>]".
bool parseCell(const std::string &cell, MfmaLayoutCell &out) {
  size_t pos = 0;
  int hi = 0;
  if (!expect(cell, pos, "v") || !readNumber(cell, pos, out.reg) ||
      !expect(cell, pos, "{") || !readNumber(cell, pos, out.lane) ||
      !expect(cell, pos, "}"))
    return false;
  out.lo = 0;
  if (pos == cell.size())
    return true;
  return expect(cell, pos, ".[") && readNumber(cell, pos, hi) &&
         expect(cell, pos, ":") && readNumber(cell, pos, out.lo) &&
         expect(cell, pos, "]") && pos == cell.size() && hi >= out.lo;
}

} // namespace

MfmaLayoutTable tessel::test::readMfmaLayoutCsv(const std::string &path,
                                                std::string &error) {
  std::ifstream f(path);
  if (!f) {
    error = "cannot open " + path;
    return {};
  }
  MfmaLayoutTable table;
  std::string line;
  bool inTable = false;
  int lineNo = 0;
  while (std::getline(f, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!inTable) {
      // The column header: "A[M][K],0,1,...".
      inTable = line.size() > 1 && line[1] == '[' &&
                line.find(',') != std::string::npos;
      continue;
    }
    if (line.empty())
      break;
    std::stringstream ss(line);
    std::string cell;
    std::getline(ss, cell, ','); // the row index
    std::vector<MfmaLayoutCell> row;
    while (std::getline(ss, cell, ',')) {
      MfmaLayoutCell c;
      if (!parseCell(cell, c)) {
        error = path + ":" + std::to_string(lineNo) + ": cell '" + cell +
                "' is not v<reg>{<lane>}[.[hi:lo]]";
        return {};
      }
      row.push_back(c);
    }
    if (!table.empty() && row.size() != table.front().size()) {
      error = path + ":" + std::to_string(lineNo) + ": row has " +
              std::to_string(row.size()) + " cells, the first has " +
              std::to_string(table.front().size());
      return {};
    }
    table.push_back(std::move(row));
  }
  if (table.empty() || table.front().empty()) {
    error = path + ": no table (a \"<X>[R][C],0,1,...\" line and rows)";
    return {};
  }
  return table;
}
