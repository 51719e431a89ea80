//===- TunedTable.h - Tuned dispatch tables (CSV) ---------------*- C++ -*-===//
//
// One CSV table per op, in runtime/tuned/<op>.csv (built into the library) or
// in the folder TESSEL_TUNED_DIR names. Format:
//
//   # comment lines and blank lines are ignored
//   arch,cu_num,head_dim,...        header: exactly the op's columns, any order
//   gfx942,304,128,...              one row per tuned configuration
//
// Fields are separated by ',' and trimmed of spaces and tabs; there is no
// quoting (no field may contain a comma). Integer columns take decimal
// integers, real columns decimal numbers, string columns identifiers.
// Every error names the file, line and column (1-based). Two rows with the
// same key columns are an error naming both lines.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_TUNEDTABLE_H
#define TESSEL_RUNTIME_TUNEDTABLE_H

#include "Support.h"

#include <string>
#include <utility>
#include <vector>

namespace tessel {

enum class ColumnType { Int, Real, String };

struct ColumnSpec {
  const char *name;
  ColumnType type;
  bool key;
  int64_t minValue; // for Int columns
};

struct TableSchema {
  // A constructor, not aggregate initialization: GCC 12 takes the columns of
  // an op spec's static initializer for maybe uninitialized otherwise.
  TableSchema(const char *op, std::vector<ColumnSpec> columns)
      : op(op), columns(std::move(columns)) {}
  const char *op;
  std::vector<ColumnSpec> columns;
};

struct TableCell {
  int64_t i = 0;
  double d = 0;
  std::string s;
};

struct TableRow {
  int line = 0;
  std::vector<TableCell> cells; // in schema order
};

struct TunedTable {
  std::string file;
  std::vector<TableRow> rows;
};

/// Parses CSV text against a schema. name is used in messages.
Status parseTunedTable(const std::string &text, const std::string &name,
                       const TableSchema &schema, TunedTable &out);

/// The built-in CSV text of an op's table ("" if none).
const char *builtinTunedTable(const std::string &op);

/// Every op's table schema, in opRegistry() order (the ops declare them,
/// runtime/lib/ops/).
const std::vector<const TableSchema *> &tunedTableSchemas();

/// Loads an op's table: TESSEL_TUNED_DIR/<op>.csv when tunedDir is set, else
/// the built-in table. With tunedDir set:
///  - a missing or non-directory tunedDir is an error (it was set on
///    purpose, so a typo must not silently select the built-in tables);
///  - <op>.csv that is a broken symbolic link, or not a regular file, is an
///    error;
///  - a missing <op>.csv falls back to the built-in table, and `note` (when
///    given) says so.
Status loadTunedTable(const std::string &tunedDir, const TableSchema &schema,
                      TunedTable &out, std::string *note = nullptr);

/// Loads and validates the tables of every op (tunedTableSchemas() order),
/// so that a malformed table is reported whichever op is called. In tunedDir
/// a .csv file that names no op is an error too. Fallback notes are
/// appended to notes.
Status loadTunedTables(const std::string &tunedDir,
                       std::vector<TunedTable> &out,
                       std::vector<std::string> &notes);

/// Rounds up to a power of two (1 for v <= 1).
int64_t roundUpPow2(int64_t v);

} // namespace tessel

#endif
