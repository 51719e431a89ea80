//===- TopKKernelTest.cpp - topk_per_row on the emulator ------------------===//
//
// Compiles the one-workgroup variants of kernels_dsl/topk_per_row.mlir for
// gfx942 and gfx950 (and, for a few rows, sm_90 and sm_90a) in-process,
// runs them on the emulator and checks every row against the contract
// with the independent reference of TopKReference.h, as sets (the sorted
// variants: in exactly the reference's order). The indices buffer holds
// exactly rows * k entries, so a stray store fails the emulator's bounds
// check.
//
//===----------------------------------------------------------------------===//
#include "TopKReference.h"

#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;
using namespace tessel::emu::test::topk;

namespace {

/// Runs the variant (k, numWaves, sorted) on `p`; the rows of indices
/// (none if it did not compile).
std::vector<int32_t> launch(const std::string &target, int k, const Problem &p,
                            int64_t numWaves, bool sorted, int64_t candidates) {
  Compiled *c = compiled(target, k, numWaves, sorted, candidates);
  if (!c) {
    ADD_FAILURE() << "the variant did not compile";
    return {};
  }
  std::vector<int32_t> out((size_t)p.rows() * k, 0x7eadbeef);
  std::vector<float> logits = p.logits;
  std::vector<int32_t> lens = p.lens;
  // The one-workgroup variant reads neither the workspace nor parts.
  int32_t workspace = 0;
  EXPECT_OK(c->module->launchArgs(
      c->name, {(uint32_t)p.rows(), 1, 1}, c->block,
      {KernelArg::buffer(logits.data(), (int64_t)logits.size()),
       KernelArg::buffer(lens.data(), (int64_t)lens.size()),
       KernelArg::buffer(out.data(), (int64_t)out.size()),
       KernelArg::i32(p.rows()), KernelArg::i32(p.cols),
       KernelArg::i64(p.stride), KernelArg::i32(p.nextN),
       KernelArg::i32(p.lens2d ? 1 : 0), KernelArg::buffer(&workspace, 1),
       KernelArg::i32(1)}));
  return out;
}

void runCase(const std::string &what, const std::string &target, int k,
             const Problem &p, int64_t numWaves = 16, int64_t candidates = -1) {
  SCOPED_TRACE(what + " on " + target + " k=" + std::to_string(k) +
               " cols=" + std::to_string(p.cols) +
               " candidates=" + std::to_string(candidates));
  std::vector<int32_t> out = launch(target, k, p, numWaves, false, candidates);
  if (out.empty())
    return;
  for (int r = 0; r < p.rows(); ++r)
    checkRow(p, r, k, out.data() + (size_t)r * k);
}

void runSortedCase(const std::string &what, const std::string &target, int k,
                   const Problem &p, int64_t numWaves = 16,
                   int64_t candidates = -1) {
  SCOPED_TRACE("sorted " + what + " on " + target + " k=" + std::to_string(k) +
               " cols=" + std::to_string(p.cols) +
               " candidates=" + std::to_string(candidates));
  std::vector<int32_t> out = launch(target, k, p, numWaves, true, candidates);
  if (out.empty())
    return;
  for (int r = 0; r < p.rows(); ++r)
    checkSortedRow(p, r, k, out.data() + (size_t)r * k);
}

std::vector<std::string> targets() { return {"gfx942", "gfx950"}; }

TEST(TopKPerRow, RandomRows) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (const std::string &t : targets()) {
    Problem p =
        rowsOf({5000, 3000, 700}, 5000, [&](int, int) { return d(rng); });
    runCase("random", t, 512, p);
  }
}

TEST(TopKPerRow, K2048) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  for (const std::string &t : targets()) {
    Problem p = rowsOf({6000}, 6000, [&](int, int) { return d(rng); });
    runCase("random", t, 2048, p);
  }
}

// A long row: 10 chunks per digit pass.
TEST(TopKPerRow, LongRow) {
  std::mt19937 rng(19);
  std::normal_distribution<float> d(0.0f, 1.0f);
  Problem p = rowsOf({40000}, 40000, [&](int, int) { return d(rng); });
  runCase("long", "gfx950", 2048, p);
}

TEST(TopKPerRow, K1024) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  Problem p = rowsOf({3000}, 3000, [&](int, int) { return d(rng); });
  runCase("random", "gfx942", 1024, p);
}

// Few distinct values: the threshold falls inside a run of equal keys, so
// the last digit picks the smaller columns.
TEST(TopKPerRow, ManyTies) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(0, 6);
  for (const std::string &t : targets()) {
    Problem p = rowsOf({4000, 4000}, 4000,
                       [&](int, int) { return (float)d(rng) * 0.5f; });
    runCase("ties", t, 512, p);
  }
}

// The Hopper lowering (wave32, histograms combined by match.any) on rows
// where a warp's lanes tie most, and on random rows.
TEST(TopKPerRow, HopperTiesAndRandom) {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> few(0, 6);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (const char *t : {"sm_90", "sm_90a"}) {
    Problem ties = rowsOf({4000, 2500}, 4000,
                          [&](int, int) { return (float)few(rng) * 0.5f; });
    runCase("ties", t, 512, ties);
    Problem flat = rowsOf({2000}, 2000, [](int, int) { return 1.25f; });
    runCase("all equal", t, 512, flat);
    Problem random = rowsOf({3000}, 3000, [&](int, int) { return d(rng); });
    runCase("random", t, 1024, random);
  }
}

TEST(TopKPerRow, AllEqual) {
  for (const std::string &t : targets()) {
    Problem p = rowsOf({2000}, 2000, [](int, int) { return 1.25f; });
    runCase("all equal", t, 512, p);
  }
}

// +-inf, -0.0 against +0.0, denormals of both signs, NaN.
TEST(TopKPerRow, SpecialValues) {
  std::vector<float> pool = specialValues();
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(0, (int)pool.size() - 1);
  for (const std::string &t : targets()) {
    Problem p = rowsOf({3000}, 3000, [&](int, int) { return pool[d(rng)]; });
    runCase("special", t, 512, p);
  }
}

// Lengths 0, 1, k-1, k, k+1 and one past the row (clamped to cols).
TEST(TopKPerRow, Lengths) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-5.0f, 5.0f);
  for (const std::string &t : targets()) {
    Problem p = rowsOf({0, 1, 511, 512, 513, -3, 900}, 800,
                       [&](int, int) { return d(rng); });
    runCase("lengths", t, 512, p);
  }
}

// next_n = 3: 1-D lengths are causal inside the group, 2-D lengths are
// read per row; rows padded to a larger stride.
TEST(TopKPerRow, NextNAndStride) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> d(-5.0f, 5.0f);
  for (bool twoD : {false, true})
    runCase(twoD ? "2-D lengths" : "1-D lengths", "gfx950", 512,
            nextNRows(twoD, [&] { return d(rng); }));
}

TEST(TopKPerRow, FewerWaves) {
  std::mt19937 rng(17);
  std::normal_distribution<float> d(0.0f, 1.0f);
  Problem p = rowsOf({2500}, 2500, [&](int, int) { return d(rng); });
  runCase("4 waves", "gfx942", 512, p, 4);
}

// ---- the LDS candidate buffer ---------------------------------------------
//
// Keys compare by their top 11 bits first (sign, exponent, 2 mantissa
// bits): the values of [1.0, 1.25) share the first digit's bin, so a row
// built around such a band decides how large the first threshold bin is.

/// A row of `n` columns: `above` columns at 10.0, `band` columns in
/// [1.0, 1.25) taking `distinct` values (many ties when distinct < band),
/// the rest in [-2, -1); shuffled by `rng`.
std::vector<float> bandRow(int n, int above, int band, int distinct,
                           std::mt19937 &rng) {
  std::vector<float> row;
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  std::uniform_real_distribution<float> low(-2.0f, -1.0f);
  for (int i = 0; i < n; ++i)
    row.push_back(i < above          ? 10.0f
                  : i < above + band ? 1.0f + 0.25f * pick(rng) / distinct
                                     : low(rng));
  std::shuffle(row.begin(), row.end(), rng);
  return row;
}

template <typename RowGen> Problem rowsFrom(int rows, int cols, RowGen gen) {
  std::vector<std::vector<float>> data;
  for (int r = 0; r < rows; ++r)
    data.push_back(gen(r));
  return rowsOf(std::vector<int32_t>(rows, cols), cols,
                [&](int r, int i) { return data[r][i]; });
}

// The first threshold bin holds 2500 tie-heavy candidates: it fits the
// buffer (4096 on both chips), and the second and third digits, with the
// stable choice among equal keys, run on the buffer.
TEST(TopKPerRowCandidates, TiedBinFitsBuffer) {
  std::mt19937 rng(31);
  for (const std::string &t : targets()) {
    Problem p = rowsFrom(
        2, 5000, [&](int) { return bandRow(5000, 300, 2500, 40, rng); });
    runCase("tied bin in the buffer", t, 512, p);
  }
}

// All equal and longer than the buffer: every digit's bin overflows and
// reads the row again; the last digit takes the first columns.
TEST(TopKPerRowCandidates, AllEqualOverflows) {
  for (const std::string &t : targets()) {
    Problem p = rowsOf({4500}, 4500, [](int, int) { return 0.75f; });
    runCase("all equal past the buffer", t, 512, p);
  }
}

// A buffer of 256 pairs (4 waves, so one pair per lane): the first bin
// (1200 columns) overflows, the second digit reads the row again, and its
// bin (one of the band's 40 values, about 30 columns) fits and is buffered
// for the third digit, which breaks the ties by column.
TEST(TopKPerRowCandidates, OverflowThenBuffer) {
  std::mt19937 rng(32);
  for (const std::string &t : targets()) {
    Problem p = rowsFrom(
        2, 3000, [&](int) { return bandRow(3000, 100, 1200, 40, rng); });
    runCase("overflow, then buffered", t, 512, p, 4, 256);
  }
}

// A buffer of two pieces (2048 pairs, chunks of 1024): a bin of 1800
// spans both, scattered and read back in column order.
TEST(TopKPerRowCandidates, BufferOfTwoPieces) {
  std::mt19937 rng(33);
  Problem p =
      rowsFrom(1, 4000, [&](int) { return bandRow(4000, 200, 1800, 25, rng); });
  runCase("two pieces", "gfx942", 512, p, 4, 2048);
}

// The second digit ends the selection exactly from the buffer: the bin
// holds 212 columns at 1.2 and 900 at 1.0, and 300 columns are above, so
// with k = 512 the 212 at 1.2 are exactly what is still needed.
TEST(TopKPerRowCandidates, ExactExitFromBuffer) {
  std::mt19937 rng(34);
  std::vector<float> row;
  for (int i = 0; i < 3000; ++i)
    row.push_back(i < 300 ? 10.0f : i < 512 ? 1.2f : i < 1412 ? 1.0f : -1.5f);
  std::shuffle(row.begin(), row.end(), rng);
  for (const std::string &t : targets()) {
    Problem p = rowsFrom(1, 3000, [&](int) { return row; });
    runCase("exact from the buffer", t, 512, p);
  }
}

// Sorted output from buffered candidates, and from overflowed ones.
TEST(TopKPerRowCandidates, Sorted) {
  std::mt19937 rng(35);
  for (const std::string &t : targets()) {
    Problem p = rowsFrom(
        1, 3000, [&](int) { return bandRow(3000, 150, 2000, 60, rng); });
    runSortedCase("tied bin in the buffer", t, 512, p);
  }
  Problem p =
      rowsFrom(1, 3000, [&](int) { return bandRow(3000, 150, 2000, 60, rng); });
  runSortedCase("bin past a small buffer", "gfx942", 512, p, 4, 256);
}

// ---- sorted variants: exactly the reference order ----------------------

TEST(TopKPerRowSorted, RandomRows) {
  std::mt19937 rng(21);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (const std::string &t : targets()) {
    Problem p =
        rowsOf({2500, 1800, 300}, 2500, [&](int, int) { return d(rng); });
    runSortedCase("random", t, 512, p);
  }
}

// k = 1024 and 2048 (1 and 2 pairs per lane of 1024), with rows of
// k - 1, k + 1 and more columns.
TEST(TopKPerRowSorted, LargerK) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  for (const std::string &t : targets())
    for (int k : {1024, 2048}) {
      Problem p =
          rowsOf({3000, k - 1, k + 1}, 3000, [&](int, int) { return d(rng); });
      runSortedCase("random", t, k, p);
    }
}

// next_n = 3 with 1-D (causal) and 2-D lengths, rows padded to a larger
// stride.
TEST(TopKPerRowSorted, NextN) {
  std::mt19937 rng(26);
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (bool twoD : {false, true})
    runSortedCase(twoD ? "2-D lengths" : "1-D lengths", "gfx942", 512,
                  nextNRows(twoD, [&] { return d(rng); }));
}

// Few distinct values, +0.0 and -0.0 among them: runs of equal keys, each
// in column order.
TEST(TopKPerRowSorted, ManyTies) {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> d(0, 6);
  for (const std::string &t : targets()) {
    Problem p = rowsOf({2000, 400}, 2000, [&](int, int i) {
      int v = d(rng);
      return v == 0 ? (i % 2 ? -0.0f : 0.0f) : (float)v * 0.5f;
    });
    runSortedCase("ties", t, 512, p);
  }
}

TEST(TopKPerRowSorted, AllEqual) {
  for (const std::string &t : targets()) {
    Problem p = rowsOf({1500, 200}, 1500, [](int, int) { return -2.5f; });
    runSortedCase("all equal", t, 512, p);
  }
}

// +-inf, -0.0 against +0.0, denormals of both signs, NaN (above +inf).
TEST(TopKPerRowSorted, SpecialValues) {
  std::vector<float> pool = specialValues();
  std::mt19937 rng(24);
  std::uniform_int_distribution<int> d(0, (int)pool.size() - 1);
  for (const std::string &t : targets()) {
    Problem p =
        rowsOf({1500, 100}, 1500, [&](int, int) { return pool[d(rng)]; });
    runSortedCase("special", t, 512, p);
  }
}

// Lengths 0, 1, k-1, k, k+1, negative and past the row, in rows padded to
// a larger stride (the padding holds NaN, which must not be read).
TEST(TopKPerRowSorted, LengthsAndPaddedStride) {
  std::mt19937 rng(25);
  std::uniform_real_distribution<float> d(-5.0f, 5.0f);
  for (const std::string &t : targets()) {
    Problem p = rowsOf(
        {0, 1, 511, 512, 513, -3, 900}, 800, [&](int, int) { return d(rng); },
        /*pad=*/37);
    runSortedCase("lengths", t, 512, p);
  }
}

} // namespace
