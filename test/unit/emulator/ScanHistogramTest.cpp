//===- ScanHistogramTest.cpp - reverse scans and histograms on the emulator
//===//
//
// Lowers small tile kernels with a reverse (suffix) tile.scan or a
// tile.histogram and runs them on the emulator against a direct evaluation
// of the op's definition: suffix scans (add, max, min; inclusive and
// exclusive) of 1-D tiles over one and several waves and along both axes
// of a 2-D tile; histograms of keys with out-of-range values (negative and
// past the bins), with a mask, and with many or few distinct bins per wave
// (the lowering combines the lanes of a bin: by a ballot loop on AMD, by
// match.any on sm_90), and with the lanes of each wave tied on few bins;
// tile.histogram_add accumulating the chunks of a longer array into zeroed
// LDS bins over a loop (no barrier between chunks), read back after a
// tile.barrier, with the same kinds of keys; tile.atomic_cas with many
// lanes racing for one word.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include <algorithm>
#include <climits>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

std::string knobs(int64_t waves) {
  return " attributes {knobs = [#tile.knob<\"num_waves\" : i32 = " +
         std::to_string(waves) + ">]}";
}

std::unique_ptr<Module> lower(const std::string &ir, const std::string &target,
                              std::string &name, Dim3 &block) {
  std::unique_ptr<Module> emu =
      emulatorModuleFor(ir, "kernel.mlir", target, {});
  if (!emu)
    return nullptr;
  name = emu->kernelNames()[0];
  auto bs = emu->knownBlockSize(name);
  if (!bs || !bs->has_value())
    return nullptr;
  block = **bs;
  return emu;
}

// ---- reverse scans -------------------------------------------------------

std::string scanKernel(int64_t rows, int64_t cols, int axis,
                       const std::string &kind, bool exclusive, int64_t waves) {
  std::string t = "tensor<" +
                  (rows > 1 ? std::to_string(rows) + "x" : std::string()) +
                  std::to_string(cols) + "xi32>";
  std::string ir = "tile.kernel @s(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>)" +
                   knobs(waves) + " {\n";
  if (rows == 1) {
    ir += "  %o = tile.range 0 to " + std::to_string(cols) + " : " + t + "\n";
  } else {
    std::string r = std::to_string(rows), c = std::to_string(cols);
    ir += "  %c = tile.range 0 to " + c + " : tensor<" + c + "xi32>\n";
    ir += "  %r = tile.range 0 to " + r + " : tensor<" + r + "xi32>\n";
    ir += "  %r1 = tile.expand_dims %r, 1 : tensor<" + r + "xi32> -> tensor<" +
          r + "x1xi32>\n";
    ir += "  %c1 = tile.expand_dims %c, 0 : tensor<" + c +
          "xi32> -> tensor<1x" + c + "xi32>\n";
    ir += "  %rb = tile.broadcast %r1 : tensor<" + r + "x1xi32> -> " + t + "\n";
    ir += "  %cb = tile.broadcast %c1 : tensor<1x" + c + "xi32> -> " + t + "\n";
    ir += "  %w = arith.constant dense<" + c + "> : " + t + "\n";
    ir += "  %rw = arith.muli %rb, %w : " + t + "\n";
    ir += "  %o = arith.addi %rw, %cb : " + t + "\n";
  }
  ir += "  %v = tile.load %x[%o] : !tile.ptr<i32>, " + t + " -> " + t + "\n";
  ir += "  %s = tile.scan " + kind + " %v, " + std::to_string(axis) + " {" +
        (exclusive ? "exclusive, " : "") + "reverse} : " + t + "\n";
  ir += "  tile.store %s, %y[%o] : " + t + ", !tile.ptr<i32>, " + t +
        "\n  tile.return\n}\n";
  return ir;
}

int32_t combine(const std::string &kind, int32_t a, int32_t b) {
  if (kind == "add")
    return (int32_t)((uint32_t)a + (uint32_t)b);
  return kind == "max" ? std::max(a, b) : std::min(a, b);
}

int32_t identity(const std::string &kind) {
  return kind == "add" ? 0 : kind == "max" ? INT32_MIN : INT32_MAX;
}

void runScan(const std::string &target, int64_t rows, int64_t cols, int axis,
             const std::string &kind, bool exclusive, int64_t waves) {
  SCOPED_TRACE(target + " " + std::to_string(rows) + "x" +
               std::to_string(cols) + " axis " + std::to_string(axis) + " " +
               kind + (exclusive ? " exclusive" : " inclusive") + " waves " +
               std::to_string(waves));
  std::string name;
  Dim3 block{};
  auto emu = lower(scanKernel(rows, cols, axis, kind, exclusive, waves), target,
                   name, block);
  ASSERT_TRUE(emu);
  std::mt19937 rng(21);
  std::uniform_int_distribution<int32_t> d(-1000, 1000);
  std::vector<int32_t> x(rows * cols), y(rows * cols, 0x5a5a5a5a);
  for (int32_t &v : x)
    v = d(rng);
  EXPECT_OK(emu->launchArgs(name, {1, 1, 1}, block,
                            {KernelArg::buffer(x.data(), (int64_t)x.size()),
                             KernelArg::buffer(y.data(), (int64_t)y.size())}));
  bool alongCols = axis == 1 || rows == 1;
  int64_t lines = alongCols ? rows : cols, len = alongCols ? cols : rows;
  int bad = 0;
  for (int64_t l = 0; l < lines; ++l) {
    int32_t acc = identity(kind);
    for (int64_t i = len - 1; i >= 0; --i) {
      int64_t at = alongCols ? l * cols + i : i * cols + l;
      int32_t incl = combine(kind, acc, x[at]);
      int32_t want = exclusive ? acc : incl;
      acc = incl;
      if (y[at] != want && bad++ < 5)
        ADD_FAILURE() << "element " << at << ": " << y[at] << ", expected "
                      << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(ReverseScan, OneDimensionalAcrossWaves) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"}) {
    runScan(t, 1, 512, 0, "add", false, 4);
    runScan(t, 1, 512, 0, "add", true, 4);
    runScan(t, 1, 2048, 0, "max", false, 16);
    runScan(t, 1, 256, 0, "min", true, 1);
  }
}

TEST(ReverseScan, AlongEachAxisOfATwoDimensionalTile) {
  for (const char *t : {"gfx942", "sm_90"}) {
    runScan(t, 8, 64, 1, "add", false, 2);
    runScan(t, 8, 64, 0, "add", true, 2);
    runScan(t, 16, 32, 0, "max", false, 4);
  }
}

// ---- histograms ----------------------------------------------------------

std::string histKernel(int64_t n, int64_t bins, bool masked, int64_t waves) {
  std::string t = "tensor<" + std::to_string(n) + "xi32>";
  std::string tb = "tensor<" + std::to_string(bins) + "xi32>";
  std::string ir = "tile.kernel @h(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>, "
                   "%limit: i32)" +
                   knobs(waves) + " {\n";
  ir += "  %o = tile.range 0 to " + std::to_string(n) + " : " + t + "\n";
  ir += "  %v = tile.load %x[%o] : !tile.ptr<i32>, " + t + " -> " + t + "\n";
  std::string mask;
  if (masked) {
    ir += "  %l = tile.splat %limit : i32 -> " + t + "\n";
    ir += "  %m = arith.cmpi slt, %o, %l : " + t + "\n";
    mask = " mask(%m : tensor<" + std::to_string(n) + "xi1>)";
  }
  ir += "  %h = tile.histogram %v" + mask + " : " + t + " -> " + tb + "\n";
  ir += "  %b = tile.range 0 to " + std::to_string(bins) + " : " + tb + "\n";
  ir += "  tile.store %h, %y[%b] : " + tb + ", !tile.ptr<i32>, " + tb +
        "\n  tile.return\n}\n";
  return ir;
}

/// Launches one program of `name` over the keys `x` (the first 3/4 of them
/// counted when `masked`) and compares its `bins` with a direct count.
template <typename Emu>
void expectBinsCountKeys(Emu &emu, const std::string &name, Dim3 block,
                         std::vector<int32_t> &x, int64_t bins, bool masked) {
  int64_t n = (int64_t)x.size();
  std::vector<int32_t> y(bins, 0x5a5a5a5a);
  int32_t limit = (int32_t)(n * 3 / 4);
  std::vector<int32_t> want(bins, 0);
  for (int64_t i = 0; i < n; ++i)
    if ((!masked || i < limit) && x[i] >= 0 && x[i] < bins)
      ++want[x[i]];
  EXPECT_OK(emu.launchArgs(name, {1, 1, 1}, block,
                           {KernelArg::buffer(x.data(), n),
                            KernelArg::buffer(y.data(), bins),
                            KernelArg::i32(limit)}));
  int bad = 0;
  for (int64_t b = 0; b < bins; ++b)
    if (y[b] != want[b] && bad++ < 5)
      ADD_FAILURE() << "bin " << b << ": " << y[b] << ", expected " << want[b];
  EXPECT_EQ(bad, 0);
}

/// Runs the histogram of `x` into `bins` bins (counting only the first
/// 3/4 of the keys when `masked`) and compares it with a direct count.
void checkHistogram(const std::string &target, std::vector<int32_t> x,
                    int64_t bins, bool masked, int64_t waves) {
  int64_t n = (int64_t)x.size();
  std::string name;
  Dim3 block{};
  auto emu = lower(histKernel(n, bins, masked, waves), target, name, block);
  ASSERT_TRUE(emu);
  expectBinsCountKeys(*emu, name, block, x, bins, masked);
}

void runHistogram(const std::string &target, int64_t n, int64_t bins,
                  int32_t spread, bool masked, int64_t waves) {
  SCOPED_TRACE(target + " " + std::to_string(n) + " keys, " +
               std::to_string(bins) + " bins, spread " +
               std::to_string(spread) + (masked ? " masked" : "") + " waves " +
               std::to_string(waves));
  std::mt19937 rng(5);
  // Keys from -3 to spread + 2: some negative, some past the bins when
  // spread >= bins.
  std::uniform_int_distribution<int32_t> d(-3, spread + 2);
  std::vector<int32_t> x(n);
  for (int32_t &v : x)
    v = d(rng);
  checkHistogram(target, x, bins, masked, waves);
}

TEST(Histogram, ManyDistinctBins) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"})
    runHistogram(t, 1024, 256, 300, false, 4);
}

TEST(Histogram, FewBinsCombineInAWave) {
  for (const char *t : {"gfx942", "sm_90"})
    runHistogram(t, 2048, 2048, 4, false, 8);
}

/// 1024 keys whose every run of 8 lanes ties on bins 0, 5 and 63 beside a
/// negative key and one past 64 bins.
std::vector<int32_t> tiedKeysOfAWave() {
  std::vector<int32_t> tied(1024);
  for (int i = 0; i < 1024; ++i) {
    const int32_t pattern[8] = {0, 0, 0, 5, 5, 63, -1, 64 + i % 3};
    tied[i] = pattern[i % 8];
  }
  return tied;
}

// Every wave's lanes tie on a few bins, bin 0 among them, beside keys that
// are not counted (negative, past the bins, masked off): on targets that
// combine a bin's lanes before the atomic, the uncounted lanes must not
// join any bin's count (bin 0 in particular). Then all keys of the tile
// in one bin.
TEST(Histogram, TiedKeysOfAWave) {
  std::vector<int32_t> tied = tiedKeysOfAWave();
  for (const char *t : {"gfx942", "gfx950", "sm_90", "sm_90a"}) {
    SCOPED_TRACE(t);
    checkHistogram(t, tied, 64, /*masked=*/true, 4);
    checkHistogram(t, tied, 64, /*masked=*/false, 2);
    checkHistogram(t, std::vector<int32_t>(512, 7), 16, /*masked=*/false, 2);
  }
}

TEST(Histogram, MaskAndBinsPerLane) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"}) {
    runHistogram(t, 512, 512, 520, true, 2); // 4 bins per lane to zero
    runHistogram(t, 512, 64, 70, true, 2);   // half the lanes zero one
  }
}

// Fewer keys than lanes: waves (and on AMD, lanes) hold copies of the
// keys, and each key must still be counted once.
TEST(Histogram, FewerKeysThanLanes) {
  for (const char *t : {"gfx942", "sm_90"}) {
    runHistogram(t, 64, 256, 300, false, 8);
    runHistogram(t, 32, 64, 70, true, 4);
  }
}

// ---- histograms accumulated in LDS -------------------------------------

/// A loop over `chunks` chunks of `n` keys that adds each chunk into LDS
/// bins zeroed once (with `masked`, only keys at positions below %limit),
/// then a barrier and the bins read back and stored.
std::string histAddKernel(int64_t n, int64_t chunks, int64_t bins, bool masked,
                          int64_t waves) {
  std::string t = "tensor<" + std::to_string(n) + "xi32>";
  std::string tb = "tensor<" + std::to_string(bins) + "xi32>";
  std::string mem = "!tile.memdesc<" + std::to_string(bins) +
                    "xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, "
                    "order = [0]}>>";
  std::string ir = "tile.kernel @h(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>, "
                   "%limit: i32)" +
                   knobs(waves) + " {\n";
  ir += "  %z = arith.constant dense<0> : " + tb + "\n";
  ir += "  %bins = tile.local_alloc(%z : " + tb + ") : " + mem + "\n";
  ir += "  %r = tile.range 0 to " + std::to_string(n) + " : " + t + "\n";
  ir += "  %c0 = arith.constant 0 : i32\n";
  ir += "  %c1 = arith.constant 1 : i32\n";
  ir += "  %cc = arith.constant " + std::to_string(chunks) + " : i32\n";
  ir += "  %cn = arith.constant " + std::to_string(n) + " : i32\n";
  ir += "  scf.for %i = %c0 to %cc step %c1 : i32 {\n";
  ir += "    %first = arith.muli %i, %cn : i32\n";
  ir += "    %fs = tile.splat %first : i32 -> " + t + "\n";
  ir += "    %o = arith.addi %r, %fs : " + t + "\n";
  ir += "    %v = tile.load %x[%o] : !tile.ptr<i32>, " + t + " -> " + t + "\n";
  std::string mask;
  if (masked) {
    ir += "    %l = tile.splat %limit : i32 -> " + t + "\n";
    ir += "    %m = arith.cmpi slt, %o, %l : " + t + "\n";
    mask = " mask(%m : tensor<" + std::to_string(n) + "xi1>)";
  }
  ir += "    tile.histogram_add %v" + mask + " into %bins : " + t + ", " + mem +
        "\n  }\n";
  ir += "  tile.barrier\n";
  ir += "  %h = tile.local_load %bins : " + mem + " -> " + tb + "\n";
  ir += "  %b = tile.range 0 to " + std::to_string(bins) + " : " + tb + "\n";
  ir += "  tile.store %h, %y[%b] : " + tb + ", !tile.ptr<i32>, " + tb +
        "\n  tile.return\n}\n";
  return ir;
}

/// Adds the keys `x`, in chunks of `n`, into `bins` bins (counting only the
/// first 3/4 of the keys when `masked`) and compares the bins with a direct
/// count of the whole array.
void checkHistogramAdd(const std::string &target, std::vector<int32_t> x,
                       int64_t n, int64_t bins, bool masked, int64_t waves) {
  int64_t total = (int64_t)x.size();
  ASSERT_EQ(total % n, 0);
  std::string name;
  Dim3 block{};
  auto emu = lower(histAddKernel(n, total / n, bins, masked, waves), target,
                   name, block);
  ASSERT_TRUE(emu);
  expectBinsCountKeys(*emu, name, block, x, bins, masked);
}

void runHistogramAdd(const std::string &target, int64_t n, int64_t chunks,
                     int64_t bins, int32_t spread, bool masked, int64_t waves) {
  SCOPED_TRACE(target + " " + std::to_string(chunks) + " chunks of " +
               std::to_string(n) + " keys, " + std::to_string(bins) +
               " bins, spread " + std::to_string(spread) +
               (masked ? " masked" : "") + " waves " + std::to_string(waves));
  std::mt19937 rng(11);
  // Keys from -3 to spread + 2: some negative, some past the bins.
  std::uniform_int_distribution<int32_t> d(-3, spread + 2);
  std::vector<int32_t> x(n * chunks);
  for (int32_t &v : x)
    v = d(rng);
  checkHistogramAdd(target, x, n, bins, masked, waves);
}

// Several chunks add into the same bins: each bin ends with the count of
// the whole array, out-of-range keys left out, with and without a mask
// that ends inside a chunk (the last chunks are partly or wholly off).
TEST(HistogramAdd, AccumulatesOverChunks) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"}) {
    runHistogramAdd(t, 512, 5, 256, 300, /*masked=*/false, 2);
    runHistogramAdd(t, 512, 5, 256, 300, /*masked=*/true, 2);
  }
}

// Few distinct keys per wave (the lanes of a bin combine before the
// atomic) and more bins than lanes, over the 2048 bins of radix select.
TEST(HistogramAdd, FewBinsAndManyBins) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"}) {
    runHistogramAdd(t, 1024, 3, 2048, 4, /*masked=*/true, 4);
    runHistogramAdd(t, 256, 4, 2048, 2100, /*masked=*/false, 4);
  }
}

// Every wave's lanes tie on a few bins, bin 0 among them, beside keys that
// are not counted (negative, past the bins, masked off), in every chunk:
// the uncounted lanes must not join a bin's count, and the counts of one
// bin from several chunks add up.
TEST(HistogramAdd, TiedKeysOfAWave) {
  std::vector<int32_t> tied = tiedKeysOfAWave();
  for (const char *t : {"gfx942", "gfx950", "sm_90", "sm_90a"}) {
    SCOPED_TRACE(t);
    checkHistogramAdd(t, tied, 256, 64, /*masked=*/true, 2);
    checkHistogramAdd(t, tied, 128, 64, /*masked=*/false, 4);
    checkHistogramAdd(t, std::vector<int32_t>(512, 7), 128, 16,
                      /*masked=*/false, 2);
  }
}

// ---- compare-and-swap ------------------------------------------------------

// 256 lanes swap into 64 words that start at 0, each with cmp 0 and its
// own id + 1: per word exactly one lane wins and reads 0, the word holds
// its value, and every other lane of the word reads the winner's value.
void runAtomicCas(const std::string &target) {
  SCOPED_TRACE(target);
  std::string ir =
      "tile.kernel @c(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>)" + knobs(4) +
      " {\n"
      "  %i = tile.range 0 to 256 : tensor<256xi32>\n"
      "  %m = arith.constant dense<63> : tensor<256xi32>\n"
      "  %w = arith.andi %i, %m : tensor<256xi32>\n"
      "  %z = arith.constant dense<0> : tensor<256xi32>\n"
      "  %one = arith.constant dense<1> : tensor<256xi32>\n"
      "  %v = arith.addi %i, %one : tensor<256xi32>\n"
      "  %old = tile.atomic_cas %x[%w], %z, %v : !tile.ptr<i32>, "
      "tensor<256xi32>, tensor<256xi32>\n"
      "  tile.store %old, %y[%i] : tensor<256xi32>, !tile.ptr<i32>, "
      "tensor<256xi32>\n"
      "  tile.return\n}\n";
  std::string name;
  Dim3 block{};
  auto emu = lower(ir, target, name, block);
  ASSERT_TRUE(emu);
  std::vector<int32_t> words(64, 0), olds(256, -7);
  EXPECT_OK(emu->launchArgs(name, {1, 1, 1}, block,
                            {KernelArg::buffer(words.data(), 64),
                             KernelArg::buffer(olds.data(), 256)}));
  for (int w = 0; w < 64; ++w) {
    int32_t win = words[w];
    ASSERT_TRUE(win >= 1 && win <= 256 && (win - 1) % 64 == w)
        << "word " << w << " holds " << win;
    for (int lane = w; lane < 256; lane += 64)
      EXPECT_EQ(olds[lane], lane == win - 1 ? 0 : win)
          << "lane " << lane << " of word " << w;
  }
}

TEST(AtomicCas, OneWinnerPerWord) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"})
    runAtomicCas(t);
}

} // namespace
