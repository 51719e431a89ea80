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
// Every error names the file, line and column (1-based).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_TUNEDTABLE_H
#define TESSEL_RUNTIME_TUNEDTABLE_H

#include "Support.h"

#include <string>
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

/// The schema of the indexer_k_cache_write table.
const TableSchema &indexerKCacheWriteSchema();
/// The schema of the paged_mqa_logits table (DESIGN.md section 4).
const TableSchema &pagedMqaLogitsSchema();

/// The built-in CSV text of an op's table ("" if none).
const char *builtinTunedTable(const std::string &op);

/// Loads an op's table: TESSEL_TUNED_DIR/<op>.csv when tunedDir is set (a
/// missing file there falls back to the built-in table), else built-in.
Status loadTunedTable(const std::string &tunedDir, const TableSchema &schema,
                      TunedTable &out);

/// Rounds up to a power of two (1 for v <= 1).
int64_t roundUpPow2(int64_t v);

} // namespace tessel

#endif
