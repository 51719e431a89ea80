//===- MetadataKernelTest.cpp - paged_mqa_logits_metadata on the emulator -===//
//
// Compiles kernels_dsl/paged_mqa_logits_metadata.mlir to SIMT IR for gfx942,
// gfx950 and sm_90 in-process, runs it on the emulator and compares the whole
// schedule with an independent reference of the contract (int64, a serial
// walk over the batches), on random and skewed length distributions, 1-D
// and 2-D lengths, and the unit counts of real devices. Every case also
// checks the balance property directly: each unit gets floor(S/n) or
// ceil(S/n) segments. The schedule buffer holds exactly num_cus + 1 rows,
// so a stray store fails the emulator's bounds check.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

std::string readKernelSource() {
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) +
                  "/paged_mqa_logits_metadata.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Compiled {
  std::unique_ptr<Module> module;
  std::string name;
  Dim3 block{};
};

/// One compiled module per (target, num_waves), shared by the cases.
Compiled *compiled(const std::string &target, int64_t numWaves) {
  static std::map<std::pair<std::string, int64_t>, Compiled> cache;
  auto key = std::make_pair(target, numWaves);
  if (auto it = cache.find(key); it != cache.end())
    return it->second.module ? &it->second : nullptr;
  Compiled &c = cache[key];
  std::string src = readKernelSource();
  if (src.empty()) {
    ADD_FAILURE() << "cannot read paged_mqa_logits_metadata.mlir";
    return nullptr;
  }
  std::unique_ptr<Module> emu = emulatorModuleFor(
      src, "paged_mqa_logits_metadata.mlir", target, {{"num_waves", numWaves}});
  LoweredKernel one = oneKernelOf(std::move(emu));
  if (!one.emu)
    return nullptr;
  c.name = one.name;
  c.block = one.block;
  c.module = std::move(one.emu);
  return &c;
}

struct Problem {
  int batch = 0, nextN = 1;
  bool lens2d = false;
  std::vector<int32_t> lens; // [batch] or [batch * nextN]
};

/// The contract in int64, batch by batch: the segments of each batch, the
/// start of each unit, and the batch that holds it by a serial walk.
std::vector<int32_t> reference(const Problem &p, int split, int n) {
  std::vector<int64_t> segs(p.batch), excl(p.batch);
  int64_t s = 0;
  for (int b = 0; b < p.batch; ++b) {
    int64_t len = 0;
    if (!p.lens2d)
      len = p.lens[b];
    else
      for (int j = 0; j < p.nextN; ++j)
        len = std::max<int64_t>(len, p.lens[(size_t)b * p.nextN + j]);
    len = std::max<int64_t>(len, 0);
    segs[b] = (len + split - 1) / split;
    excl[b] = s;
    s += segs[b];
  }
  std::vector<int32_t> out(2 * (size_t)(n + 1));
  int64_t q = s / n, rem = s % n;
  int b = 0;
  for (int i = 0; i <= n; ++i) {
    int64_t g = i < n ? i * q + std::min<int64_t>(i, rem) : s;
    while (b < p.batch && excl[b] + segs[b] <= g)
      ++b;
    out[2 * i] = g == s ? p.batch : b;
    out[2 * i + 1] = g == s ? 0 : (int32_t)(g - excl[b]);
  }
  return out;
}

/// Each unit's share, from the schedule alone: floor(S/n) or ceil(S/n).
void checkBalanced(const Problem &p, int split, int n,
                   const std::vector<int32_t> &sched) {
  std::vector<int64_t> excl(p.batch + 1, 0);
  for (int b = 0; b < p.batch; ++b) {
    int64_t len = 0;
    for (int j = 0; j < (p.lens2d ? p.nextN : 1); ++j)
      len = std::max<int64_t>(len,
                              p.lens[(size_t)b * (p.lens2d ? p.nextN : 1) + j]);
    excl[b + 1] = excl[b] + (len + split - 1) / split;
  }
  int64_t s = excl[p.batch];
  auto start = [&](int i) {
    int32_t b = sched[2 * i];
    EXPECT_GE(b, 0);
    EXPECT_LE(b, p.batch);
    return excl[std::clamp<int32_t>(b, 0, p.batch)] + sched[2 * i + 1];
  };
  for (int i = 0; i < n; ++i) {
    int64_t share = start(i + 1) - start(i);
    EXPECT_TRUE(share == s / n || share == (s + n - 1) / n)
        << "unit " << i << " gets " << share << " of " << s << " segments over "
        << n << " units";
  }
  EXPECT_EQ(start(n), s);
}

double runKernel(const Compiled &c, const Problem &p, int split, int n,
                 std::vector<int32_t> &sched) {
  std::vector<int32_t> lens = p.lens;
  if (lens.empty())
    lens.push_back(0); // a valid buffer for an empty batch
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_OK(c.module->launchArgs(
      c.name, {1, 1, 1}, c.block,
      {KernelArg::buffer(lens.data(), (int64_t)p.lens.size()),
       KernelArg::buffer(sched.data(), (int64_t)sched.size()),
       KernelArg::i32(p.batch), KernelArg::i32(p.nextN),
       KernelArg::i32(p.lens2d ? 1 : 0), KernelArg::i32(split),
       KernelArg::i32(n)}));
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

void runCase(const std::string &what, const std::string &target,
             int64_t numWaves, const Problem &p, int split, int n) {
  SCOPED_TRACE(
      what + " on " + target + " num_waves=" + std::to_string(numWaves) +
      " B=" + std::to_string(p.batch) + " next_n=" + std::to_string(p.nextN) +
      (p.lens2d ? " 2-D" : " 1-D") + " split=" + std::to_string(split) +
      " num_cus=" + std::to_string(n));
  Compiled *c = compiled(target, numWaves);
  ASSERT_TRUE(c);
  std::vector<int32_t> sched(2 * (size_t)(n + 1), 0x7eadbeef);
  double ms = runKernel(*c, p, split, n, sched);
  std::vector<int32_t> want = reference(p, split, n);
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (sched[i] != want[i] && bad++ < 6)
      ADD_FAILURE() << "schedule[" << i / 2 << "]." << (i % 2 ? "offset" : "b")
                    << " = " << sched[i] << ", expected " << want[i];
  EXPECT_EQ(bad, 0);
  checkBalanced(p, split, n, sched);
  std::printf("[ metadata ] %-14s %s waves=%lld B=%d next_n=%d %s split=%d "
              "num_cus=%d: %.1f ms\n",
              what.c_str(), target.c_str(), (long long)numWaves, p.batch,
              p.nextN, p.lens2d ? "2-D" : "1-D", split, n, ms);
}

Problem uniform(int batch, int maxLen, unsigned seed, int nextN = 1,
                bool lens2d = false) {
  Problem p;
  p.batch = batch, p.nextN = nextN, p.lens2d = lens2d;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, maxLen);
  p.lens.resize((size_t)batch * (lens2d ? nextN : 1));
  for (int32_t &l : p.lens)
    l = d(rng);
  return p;
}

/// Mostly short contexts, a few orders of magnitude longer ones, and runs
/// of zeros (log-uniform lengths, a third of them 0).
Problem skewed(int batch, unsigned seed) {
  Problem p;
  p.batch = batch;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(0.0, 20.0);
  p.lens.resize(batch);
  for (int32_t &l : p.lens)
    l = rng() % 3 == 0 ? 0 : (int32_t)std::exp2(e(rng));
  return p;
}

const int kSplits[] = {64, 256, 1024};
const int kCus[] = {1, 80, 132, 256, 304};

class MetadataKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(MetadataKernel, RandomLengthsEverySplitAndUnitCount) {
  for (int split : kSplits)
    for (int n : kCus)
      runCase("random", GetParam(), 16, uniform(64, 40000, split + n), split,
              n);
}

TEST_P(MetadataKernel, SkewedLengths) {
  for (int n : kCus)
    runCase("skewed", GetParam(), 16, skewed(300, 7 + n), 64, n);
}

TEST_P(MetadataKernel, OneBatch) {
  for (int n : {1, 304})
    runCase("B=1", GetParam(), 16, uniform(1, 5000, 3), 64, n);
}

TEST_P(MetadataKernel, FourThousandBatches) {
  runCase("B=4096", GetParam(), 16, uniform(4096, 9000, 11), 256, 304);
  runCase("B=4096", GetParam(), 4, skewed(4096, 12), 64, 256);
}

TEST_P(MetadataKernel, AllZeros) {
  Problem p = uniform(100, 0, 1);
  for (int n : {1, 304})
    runCase("zeros", GetParam(), 16, p, 64, n);
}

TEST_P(MetadataKernel, OneHugeRow) {
  Problem p = uniform(40, 300, 5);
  p.lens[17] = 1 << 20; // 1M tokens: 16384 segments of 64
  runCase("huge row", GetParam(), 16, p, 64, 304);
  Problem one;
  one.batch = 1, one.lens = {1 << 20};
  runCase("huge row", GetParam(), 16, one, 64, 132);
}

TEST_P(MetadataKernel, TwoDimensionalLengths) {
  // Uneven lengths inside each batch: the batch's longest row counts.
  for (int nextN : {2, 3, 8})
    runCase("2-D", GetParam(), 16, uniform(50, 20000, nextN, nextN, true), 256,
            80);
}

TEST_P(MetadataKernel, OneDimensionalLengthsWithNextN) {
  // With 1-D lengths next_n does not change the schedule.
  Problem p = uniform(50, 20000, 21);
  p.nextN = 4;
  runCase("1-D next_n", GetParam(), 16, p, 256, 132);
}

TEST_P(MetadataKernel, MoreBatchesThanOneTile) {
  // Three batch tiles carry the running prefix; 1001 rows take two unit
  // tiles; fewer waves hold more elements per lane.
  runCase("B=10000", GetParam(), 8, skewed(10000, 31), 1024, 304);
  runCase("num_cus=1000", GetParam(), 4, uniform(500, 3000, 32), 64, 1000);
}

TEST_P(MetadataKernel, FewerSegmentsThanUnits) {
  // Units past the last segment start at the end: (batch, 0).
  runCase("S < n", GetParam(), 16, uniform(3, 200, 41), 64, 304);
}

TEST_P(MetadataKernel, DegenerateArguments) {
  // No batches; num_cus = 0 (only the sentinel row); split_tokens = 0
  // counts as 1; negative lengths count as 0.
  runCase("B=0", GetParam(), 16, Problem{}, 64, 80);
  runCase("num_cus=0", GetParam(), 16, uniform(20, 900, 51), 64, 0);
  Problem neg = uniform(20, 900, 52);
  neg.lens[3] = -5;
  runCase("negative len", GetParam(), 16, neg, 64, 80);
  Compiled *c = compiled(GetParam(), 16);
  ASSERT_TRUE(c);
  Problem p = uniform(10, 50, 53);
  std::vector<int32_t> sched(2 * 9, 0x7eadbeef);
  runKernel(*c, p, 0, 8, sched);
  EXPECT_EQ(sched, reference(p, 1, 8));
  // num_cus < 0: nothing is written (the buffer is one row, left as is).
  std::vector<int32_t> none(2, 0x7eadbeef);
  runKernel(*c, p, 64, -3, none);
  EXPECT_EQ(none, std::vector<int32_t>(2, 0x7eadbeef));
}

INSTANTIATE_TEST_SUITE_P(Targets, MetadataKernel,
                         // sm_90's SIMT IR runs in wave32.
                         ::testing::Values("gfx942", "gfx950", "sm_90"),
                         [](const auto &info) { return info.param; });

} // namespace
