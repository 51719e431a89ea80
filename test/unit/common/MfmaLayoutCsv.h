//===- MfmaLayoutCsv.h - AMD's MFMA register-layout tables ------*- C++ -*-===//
//
// Reads the register-layout tables of one MFMA matrix (A, B or D) in the
// CSV format of AMD's Matrix Instruction Calculator: some header lines, then
// a line "<X>[R][C],0,1,..." naming the columns, then one line per row
// "r,<cell>,<cell>,..." up to an empty line or the end of the file. A cell
// "v<reg>{<lane>}" names a whole 32-bit register of a lane; with the suffix
// ".[<hi>:<lo>]" it names bits [lo, hi] of it. Shared by the compiler's
// layout tests and the emulator's MFMA tests.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_UNIT_COMMON_MFMALAYOUTCSV_H
#define TESSEL_TEST_UNIT_COMMON_MFMALAYOUTCSV_H

#include <string>
#include <vector>

namespace tessel::test {

/// Where one matrix element lives: register `reg` of lane `lane`, starting
/// at bit `lo` (0 for a whole register).
struct MfmaLayoutCell {
  int reg = -1, lane = -1, lo = 0;
};

/// Rows of cells, table[r][c] for matrix element (r, c).
using MfmaLayoutTable = std::vector<std::vector<MfmaLayoutCell>>;

/// Reads the table at `path`. Returns an empty table, with the reason in
/// `error`, when the file cannot be read, has no table, a cell is not of
/// the form above, or rows differ in length.
MfmaLayoutTable readMfmaLayoutCsv(const std::string &path, std::string &error);

} // namespace tessel::test

#endif // TESSEL_TEST_UNIT_COMMON_MFMALAYOUTCSV_H
