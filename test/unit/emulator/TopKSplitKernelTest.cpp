//===- TopKSplitKernelTest.cpp - topk_per_row's persistent variant --------===//
//
// Compiles the persistent variant of kernels_dsl/topk_per_row.mlir (several
// programs per row, joined by grid barriers) for gfx942 and gfx950
// in-process and runs it on the emulator on the grid (parts, rows), every
// program resident (rows * parts <= TESSEL_EMU_MAX_RESIDENT_WORKGROUPS).
// Every row is checked against the independent reference of
// TopKReference.h, as sets (sorted: in exactly the reference's order).
// Each test launches on one workspace, zero before the first launch, and
// requires after every launch what the next one relies on
// (tessel/topk_workspace.h): the barrier word's low bits at 0 (each
// barrier flips only its top bit) and every row's histogram zero, so that
// launches and graph replays need no reset (counts and candidates are
// written before they are read).
//
// The variants use 4 waves (chunks of 1024 columns), so that rows of a few
// thousand columns give every part whole chunks at emulator speed.
//
//===----------------------------------------------------------------------===//
#include "TopKReference.h"
#include "tessel/topk_workspace.h"

#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;
using namespace tessel::emu::test::topk;

namespace {

constexpr int64_t kWaves = 4;

std::vector<std::string> targets() { return {"gfx942", "gfx950"}; }

/// The workspace of one test, zero before its first launch.
class Workspace {
public:
  Workspace() : words_(tessel::topk::kSplitWorkspaceBytes / 4, 0) {}
  KernelArg arg() {
    return KernelArg::buffer(words_.data(), (int64_t)words_.size());
  }
  /// The first word that must be zero between launches (the barrier word's
  /// low bits, the rows' histograms) and is not, or -1.
  int64_t firstDirty() const {
    using namespace tessel::topk;
    if (words_[0] & 0x7fffffff)
      return 0;
    for (int64_t r = 0; r < kSplitMaxRows; ++r) {
      int64_t hist = kSplitHeaderWords + r * kSplitRowWords + kSplitHistWord;
      for (int64_t i = hist; i < hist + kSplitBins; ++i)
        if (words_[i])
          return i;
    }
    return -1;
  }

private:
  std::vector<int32_t> words_;
};

/// Runs the persistent variant (k, sorted) on `p` with `parts` programs per
/// row; the rows of indices (none if it did not compile).
std::vector<int32_t> launchSplit(const std::string &target, int k,
                                 const Problem &p, int parts, bool sorted,
                                 Workspace &ws) {
  EXPECT_LE(p.rows() * parts, TESSEL_EMU_MAX_RESIDENT_WORKGROUPS)
      << "the grid must be resident at once";
  Compiled *c = compiled(target, k, kWaves, sorted, -1, /*persistent=*/1);
  if (!c) {
    ADD_FAILURE() << "the persistent variant did not compile";
    return {};
  }
  std::vector<int32_t> out((size_t)p.rows() * k, 0x7eadbeef);
  std::vector<float> logits = p.logits;
  std::vector<int32_t> lens = p.lens;
  EXPECT_OK(c->module->launchArgs(
      c->name, {(uint32_t)parts, (uint32_t)p.rows(), 1}, c->block,
      {KernelArg::buffer(logits.data(), (int64_t)logits.size()),
       KernelArg::buffer(lens.data(), (int64_t)lens.size()),
       KernelArg::buffer(out.data(), (int64_t)out.size()),
       KernelArg::i32(p.rows()), KernelArg::i32(p.cols),
       KernelArg::i64(p.stride), KernelArg::i32(p.nextN),
       KernelArg::i32(p.lens2d ? 1 : 0), ws.arg(), KernelArg::i32(parts)}));
  EXPECT_EQ(ws.firstDirty(), -1) << "the launch left its workspace dirty";
  return out;
}

void runSplit(const std::string &what, const std::string &target, int k,
              const Problem &p, int parts, Workspace &ws, bool sorted = false) {
  SCOPED_TRACE(what + " on " + target + " k=" + std::to_string(k) +
               " cols=" + std::to_string(p.cols) +
               " parts=" + std::to_string(parts) + (sorted ? " sorted" : ""));
  std::vector<int32_t> out = launchSplit(target, k, p, parts, sorted, ws);
  if (out.empty())
    return;
  for (int r = 0; r < p.rows(); ++r) {
    const int32_t *row = out.data() + (size_t)r * k;
    if (sorted)
      checkSortedRow(p, r, k, row);
    else
      checkRow(p, r, k, row);
  }
}

// Random rows split over 1 to 4 parts, on one workspace throughout.
TEST(TopKPerRowSplit, RandomRowsOverParts) {
  std::mt19937 rng(41);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (const std::string &t : targets()) {
    Workspace ws;
    for (int parts = 1; parts <= 4; ++parts) {
      Problem p =
          rowsOf({4100, 3000, 700}, 4100, [&](int, int) { return d(rng); });
      runSplit("random", t, 512, p, parts, ws);
    }
  }
}

// Few distinct values and all-equal rows: the threshold bin spans parts.
TEST(TopKPerRowSplit, TiesAndAllEqual) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> few(0, 6);
  for (const std::string &t : targets()) {
    Workspace ws;
    Problem ties = rowsOf({4000, 3500}, 4000,
                          [&](int, int) { return (float)few(rng) * 0.5f; });
    runSplit("ties", t, 512, ties, 4, ws);
    Problem flat = rowsOf({3000}, 3000, [](int, int) { return 1.25f; });
    runSplit("all equal", t, 512, flat, 3, ws);
  }
}

// Lengths 0, 1, k-1, k, k+1, negative and past the row (clamped to cols),
// with parts that have nothing of a short row to read.
TEST(TopKPerRowSplit, Lengths) {
  std::mt19937 rng(43);
  std::uniform_real_distribution<float> d(-5.0f, 5.0f);
  for (const std::string &t : targets()) {
    Workspace ws;
    Problem p = rowsOf({0, 1, 511, 512, 513, -3, 3000}, 2900,
                       [&](int, int) { return d(rng); });
    runSplit("lengths", t, 512, p, 4, ws);
  }
}

// next_n = 3 with 1-D (causal) and 2-D lengths in rows padded to a larger
// stride, and a padded stride whose padding (NaN) must not be read.
TEST(TopKPerRowSplit, NextNAndPaddedStride) {
  std::mt19937 rng(44);
  std::uniform_real_distribution<float> d(-5.0f, 5.0f);
  for (const std::string &t : targets()) {
    Workspace ws;
    for (bool twoD : {false, true})
      runSplit(twoD ? "2-D lengths" : "1-D lengths", t, 512,
               nextNRows(twoD, [&] { return d(rng); }), 2, ws);
    Problem padded = rowsOf(
        {2600, 2048}, 2600, [&](int, int) { return d(rng); }, /*pad=*/37);
    runSplit("padded", t, 512, padded, 3, ws);
  }
}

// k = 2048 over a row of several chunks per part.
TEST(TopKPerRowSplit, K2048) {
  std::mt19937 rng(45);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  Workspace ws;
  Problem p = rowsOf({8000}, 8000, [&](int, int) { return d(rng); });
  runSplit("random", "gfx950", 2048, p, 4, ws);
}

// Sorted output: exactly the reference's order, ties and all.
TEST(TopKPerRowSplit, Sorted) {
  std::mt19937 rng(46);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::uniform_int_distribution<int> few(0, 6);
  for (const std::string &t : targets()) {
    Workspace ws;
    Problem random =
        rowsOf({3000, 1500}, 3000, [&](int, int) { return d(rng); });
    runSplit("random", t, 512, random, 3, ws, /*sorted=*/true);
    Problem ties = rowsOf({2500, 300}, 2500,
                          [&](int, int) { return (float)few(rng) * 0.5f; });
    runSplit("ties", t, 512, ties, 2, ws, /*sorted=*/true);
  }
}

// The most rows one launch holds in the emulator's grid (16 rows of 4
// parts), then the same workspace again with other rows and parts.
TEST(TopKPerRowSplit, FullGridThenRepeatedLaunches) {
  std::mt19937 rng(47);
  std::normal_distribution<float> d(0.0f, 2.0f);
  Workspace ws;
  std::vector<int32_t> lens(16);
  for (int r = 0; r < 16; ++r)
    lens[r] = 600 + 150 * r;
  Problem full = rowsOf(lens, 3000, [&](int, int) { return d(rng); });
  runSplit("16 rows", "gfx942", 512, full, 4, ws);
  for (int round = 0; round < 3; ++round) {
    Problem p = rowsOf({3500, 2000}, 3500, [&](int, int) { return d(rng); });
    runSplit("again", "gfx942", 512, p, 1 + round, ws);
  }
}

} // namespace
