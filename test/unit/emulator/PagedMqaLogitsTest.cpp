//===- PagedMqaLogitsTest.cpp - paged_mqa_logits on the emulator ----------===//
//
// Compiles kernels_dsl/paged_mqa_logits.mlir for gfx942 and gfx950
// in-process and runs it on the emulator against a float64 reference of
//   out[r, t] = kscale[t] * sum_h relu(q[r,h,:] . k[t,:]) * w[r,h]
// computed on the values the fp8 bytes encode in the target's format
// (e4m3fnuz on gfx942, e4m3fn on gfx950, Fp8Ref.h). The -inf positions must
// be exactly t in [len_r, max_model_len) (with write_tail; without it they
// stay untouched), the padding of each output row past max_model_len must
// stay untouched, and over the rest calc_diff = 1 - 2 sum(xy) /
// sum(x^2 + y^2) < 1e-3. Block tables are shuffled, lengths are uneven
// inside a batch, and 1-D and 2-D lengths, several block sizes, rows per
// program and split counts are covered. One case writes its output past
// 2^31 bytes of a lazily mapped buffer.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "LogitsReference.h"
#include "TestUtil.h"
#include "TileKernel.h"

#include "mlir/IR/MLIRContext.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

constexpr int kD = kLogitsD;
constexpr int kTokenBytes = kLogitsTokenBytes;

std::string readKernel() {
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) +
                  "/paged_mqa_logits.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Variant {
  std::string target;
  int heads, rows, chunk, waves;
  int preshuffle = 0; // reads the preshuffled cache layout
  tessel::KnobBindings knobs() const {
    return {{"heads", heads},
            {"rows_per_program", rows},
            {"chunk_k", chunk},
            {"num_waves", waves},
            {"preshuffle", preshuffle}};
  }
  std::string name() const {
    return target + "_h" + std::to_string(heads) + "_r" + std::to_string(rows) +
           "_c" + std::to_string(chunk) + "_w" + std::to_string(waves) +
           (preshuffle ? "_ps" : "");
  }
};

/// Lowered variants, compiled once per test binary.
Module *compiled(const Variant &v) {
  static std::map<std::string, std::unique_ptr<Module>> cache;
  auto &slot = cache[v.name()];
  if (slot)
    return slot.get();
  slot = emulatorModuleFor(readKernel(), "paged_mqa_logits.mlir", v.target,
                           v.knobs());
  return slot.get();
}

struct Problem {
  int batch, nextN, blockSize;
  /// Per batch (1-D) or per row (2-D) context lengths.
  std::vector<int> lens;
  bool lens2d;
  int maxModelLen;
  int64_t outStride; // >= maxModelLen
  int splitKv;
  bool writeTail;
  unsigned seed;
};

/// The part of an output row that is filled and checked: [0, max_model_len)
/// and up to 64 elements of padding after it.
int64_t checkedCols(const Problem &p) {
  return std::min<int64_t>(p.outStride, int64_t(p.maxModelLen) + 64);
}

/// Runs one problem on variant `v`; returns the emulator's wall time.
double runProblem(const Variant &v, const Problem &p) {
  SCOPED_TRACE(
      "B=" + std::to_string(p.batch) + " next_n=" + std::to_string(p.nextN) +
      " block=" + std::to_string(p.blockSize) +
      " split=" + std::to_string(p.splitKv) + (p.lens2d ? " 2-D" : " 1-D") +
      (p.writeTail ? " tail" : " no-tail"));
  Module *mod = compiled(v);
  if (!mod)
    return 0;
  const LogitsShape shape{v.heads, p.batch,  p.nextN,      p.blockSize,
                          p.lens,  p.lens2d, p.maxModelLen};
  const Fp8Ref fp8{v.target == "gfx942"};
  const LogitsInputs in = makeLogitsInputs(shape, fp8, p.seed);
  const int R = p.batch * p.nextN;

  // Output rows of outStride f32, mapped lazily: with a huge stride only
  // the pages of the checked columns exist (rows past 2^31 bytes).
  const int64_t outBytes = int64_t(R) * p.outStride * 4;
  void *mem = mmap(nullptr, outBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    ADD_FAILURE() << "cannot map " << outBytes << " bytes";
    return 0;
  }
  float *rows = static_cast<float *>(mem);
  for (int r = 0; r < R; ++r)
    std::fill(rows + int64_t(r) * p.outStride,
              rows + int64_t(r) * p.outStride + checkedCols(p),
              kLogitsUntouched);

  unsigned groups = unsigned((p.nextN + v.rows - 1) / v.rows);
  // The reference reads the cache in the plain layout; a preshuffled variant
  // gets the same values in its layout.
  LogitsLaunch launch{
      in.q,
      v.preshuffle ? preshuffledCopy(in.cache, p.blockSize) : in.cache,
      in.weights,
      in.lens,
      in.tables,
      {0, 0}};
  auto start = std::chrono::steady_clock::now();
  llvm::Error e = mod->launchArgs(
      "paged_mqa_logits", {unsigned(p.splitKv), unsigned(p.batch), groups},
      {unsigned(v.waves) * 64, 1, 1},
      launch.args(shape, in, rows, int64_t(R) * p.outStride, p.outStride,
                  p.writeTail, v.chunk));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (e)
    ADD_FAILURE() << llvm::toString(std::move(e));
  else
    checkLogits(shape, fp8, in, p.writeTail, rows, p.outStride, checkedCols(p));
  munmap(mem, outBytes);
  return seconds;
}

struct Case {
  Variant v;
  Problem p;
};

class PagedMqaLogits : public ::testing::TestWithParam<Case> {};

TEST_P(PagedMqaLogits, MatchesFloat64Reference) {
  const Case &c = GetParam();
  double s = runProblem(c.v, c.p);
  std::printf("[ emulator ] %s: %.2f s\n", c.v.name().c_str(), s);
}

std::vector<Case> cases() {
  const int64_t kPast2GiB = (int64_t(1) << 29) + 128; // f32 row stride
  std::vector<Case> out;
  for (std::string t : {"gfx942", "gfx950"}) {
    Variant h64{t, 64, 1, 256, 4}, h32r2{t, 32, 2, 256, 4},
        h64r2{t, 64, 2, 128, 4};
    // Contexts 0, 1, block - 1, block, block + 1 and a few thousand; 1-D
    // lengths; one split, and three (more splits than chunks for some).
    out.push_back({h64, {3, 1, 64, {0, 1, 63}, false, 300, 300, 1, true, 1}});
    out.push_back(
        {h64, {3, 1, 64, {64, 65, 2500}, false, 2560, 2570, 3, false, 2}});
    // Two MTP rows per program (M = 2 x 32), 2-D lengths uneven inside a
    // batch, block 16, two splits.
    out.push_back(
        {h32r2, {2, 2, 16, {15, 16, 17, 3000}, true, 3072, 3080, 2, true, 3}});
    // next_n = 3 over two rows per program (the second group has one
    // masked row), block 1, 1-D causal lengths.
    out.push_back({h32r2, {1, 3, 1, {700}, false, 800, 800, 1, true, 4}});
    // next_n = 8 with M = 2 x 64, four splits, 2-D lengths.
    out.push_back({h64r2,
                   {1,
                    8,
                    64,
                    {1, 9, 200, 64, 511, 0, 130, 300},
                    true,
                    512,
                    520,
                    4,
                    true,
                    5}});
    // next_n = 1 with two rows per program (one masked).
    out.push_back({h64r2, {2, 1, 16, {33, 257}, false, 300, 304, 2, true, 6}});
    // The other head counts of the library: 16 heads x 4 rows (chunk 128)
    // and x 8 rows (chunk 64), 128 heads.
    out.push_back({{t, 16, 4, 128, 4},
                   {2, 4, 64, {130, 600}, false, 640, 640, 2, true, 8}});
    out.push_back(
        {{t, 16, 8, 64, 4}, {1, 8, 16, {300}, false, 320, 320, 2, true, 10}});
    out.push_back({{t, 128, 1, 128, 4},
                   {2, 1, 16, {17, 400}, false, 512, 512, 1, true, 9}});
  }
  // Output offsets past 2^31 bytes: row 1 starts at byte 2^31 + 512.
  out.push_back({{"gfx942", 32, 2, 256, 4},
                 {1, 2, 16, {300}, false, 512, kPast2GiB, 2, true, 7}});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Emulator, PagedMqaLogits, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.v.name() + "_" +
                                  std::to_string(info.index);
                         });

//===----------------------------------------------------------------------===//
// Preshuffled cache (preshuffle = 1)
//===----------------------------------------------------------------------===//

class PagedMqaLogitsPreshuffled : public ::testing::TestWithParam<Case> {};

TEST_P(PagedMqaLogitsPreshuffled, MatchesFloat64Reference) {
  const Case &c = GetParam();
  double s = runProblem(c.v, c.p);
  std::printf("[ emulator ] %s: %.2f s\n", c.v.name().c_str(), s);
}

// Block sizes 16..256 (a preshuffled cache needs block_size % 16 == 0),
// every head count of the library, 1-D and 2-D lengths, contexts 0, 1,
// block - 1, block, block + 1 and a few thousand.
std::vector<Case> preshuffledCases() {
  std::vector<Case> out;
  for (std::string t : {"gfx942", "gfx950"}) {
    Variant h64{t, 64, 1, 256, 4, 1}, h32r2{t, 32, 2, 256, 4, 1},
        h64r2{t, 64, 2, 128, 4, 1};
    out.push_back(
        {h64, {4, 1, 64, {0, 1, 63, 64}, false, 320, 320, 1, true, 21}});
    out.push_back(
        {h64, {2, 1, 64, {65, 2500}, false, 2560, 2570, 3, false, 22}});
    out.push_back(
        {h32r2, {2, 2, 16, {15, 16, 17, 1500}, true, 1536, 1544, 2, true, 23}});
    out.push_back({h64r2,
                   {1,
                    8,
                    32,
                    {1, 9, 200, 32, 511, 0, 33, 300},
                    true,
                    512,
                    520,
                    4,
                    true,
                    24}});
    out.push_back({{t, 16, 4, 128, 4, 1},
                   {2, 4, 256, {130, 600}, false, 640, 640, 2, true, 25}});
    out.push_back({{t, 128, 1, 128, 4, 1},
                   {2, 1, 128, {127, 400}, false, 512, 512, 1, true, 26}});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Emulator, PagedMqaLogitsPreshuffled,
                         ::testing::ValuesIn(preshuffledCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.v.name() + "_" +
                                  std::to_string(info.index);
                         });

/// indexer_k_cache_write for `target` with the given layout (f32 input,
/// 16 tokens per program over 4 waves), lowered once per test binary.
Module *writer(const std::string &target, int preshuffle) {
  static std::map<std::string, std::unique_ptr<Module>> cache;
  auto &slot = cache[target + std::to_string(preshuffle)];
  if (slot)
    return slot.get();
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) +
                  "/indexer_k_cache_write.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  slot = emulatorModuleFor(ss.str(), "indexer_k_cache_write.mlir", target,
                           {{"k_bf16", 0},
                            {"preshuffle", preshuffle},
                            {"tokens_per_program", 16},
                            {"num_waves", 4}});
  return slot.get();
}

/// Runs the writer over every slot of a cache of `numBlocks` blocks (`k`
/// holds one f32 row of D per slot; the kernel takes it as bytes).
std::vector<uint8_t> writeCache(const std::string &target, int preshuffle,
                                const std::vector<float> &k, int blockSize,
                                int numBlocks) {
  Module *m = writer(target, preshuffle);
  if (!m)
    return {};
  const int T = numBlocks * blockSize;
  std::vector<int64_t> slots(T);
  std::iota(slots.begin(), slots.end(), 0);
  std::vector<uint8_t> cache(size_t(T) * kTokenBytes, 0);
  llvm::Error e = m->launchArgs(
      "indexer_k_cache_write", {unsigned((T + 15) / 16), 1, 1}, {256, 1, 1},
      {KernelArg::buffer(const_cast<float *>(k.data()), int64_t(k.size()) * 4),
       KernelArg::buffer(slots.data(), T),
       KernelArg::buffer(cache.data(), int64_t(cache.size())),
       KernelArg::i32(T), KernelArg::i64(kD), KernelArg::i32(blockSize),
       KernelArg::i64(T)});
  if (e) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return {};
  }
  return cache;
}

/// The logits of one problem over `cache` (B batches, 1-D lengths, block
/// table b*maxBlocks + i), read by variant `v`.
std::vector<float> logitsOver(const Variant &v, const std::vector<uint8_t> &q,
                              const std::vector<uint8_t> &cache,
                              const std::vector<float> &weights,
                              std::vector<int32_t> lens, int nextN,
                              int blockSize, int maxBlocks, int mml) {
  Module *mod = compiled(v);
  if (!mod)
    return {};
  const int B = int(lens.size()), R = B * nextN;
  std::vector<int32_t> tables(size_t(B) * maxBlocks);
  std::iota(tables.begin(), tables.end(), 0);
  std::reverse(tables.begin(), tables.end()); // blocks out of order
  std::vector<int32_t> schedule(2, 0);
  std::vector<float> out(size_t(R) * mml, 0.0f);
  int shift = 0;
  while ((1 << shift) < blockSize)
    ++shift;
  llvm::Error e = mod->launchArgs(
      "paged_mqa_logits",
      {2, unsigned(B), unsigned((nextN + v.rows - 1) / v.rows)},
      {unsigned(v.waves) * 64, 1, 1},
      {KernelArg::buffer(const_cast<uint8_t *>(q.data()), int64_t(q.size())),
       KernelArg::buffer(const_cast<uint8_t *>(cache.data()),
                         int64_t(cache.size())),
       KernelArg::buffer(const_cast<float *>(weights.data()),
                         int64_t(weights.size())),
       KernelArg::buffer(lens.data(), int64_t(lens.size())),
       KernelArg::buffer(tables.data(), int64_t(tables.size())),
       KernelArg::buffer(out.data(), int64_t(out.size())),
       KernelArg::buffer(schedule.data(), int64_t(schedule.size())),
       KernelArg::i32(B), KernelArg::i32(nextN), KernelArg::i32(0),
       KernelArg::i64(maxBlocks), KernelArg::i32(shift), KernelArg::i64(mml),
       KernelArg::i32(mml), KernelArg::i32(1), KernelArg::i32(v.chunk)});
  if (e) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return {};
  }
  return out;
}

// The round trip: K quantized by the cache writer into a preshuffled cache
// and read by the preshuffled kernel gives exactly the logits that the
// plain writer's cache gives the plain kernel (the same bytes reach the
// same operand registers); the writer's preshuffled cache is the plain one
// in the layout of DESIGN.md 3.1.
class PreshuffledRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(PreshuffledRoundTrip, WriterCacheGivesThePlainLogits) {
  const std::string target = GetParam();
  const int H = 64, nextN = 2, blockSize = 64, maxBlocks = 5, B = 2;
  const int numBlocks = B * maxBlocks, mml = maxBlocks * blockSize;
  std::mt19937 rng(31);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> k(size_t(numBlocks) * blockSize * kD);
  for (float &x : k)
    x = nd(rng);
  std::vector<uint8_t> plain = writeCache(target, 0, k, blockSize, numBlocks);
  std::vector<uint8_t> shuffled =
      writeCache(target, 1, k, blockSize, numBlocks);
  ASSERT_FALSE(plain.empty());
  ASSERT_FALSE(shuffled.empty());
  ASSERT_TRUE(shuffled == preshuffledCopy(plain, blockSize))
      << "the writer's preshuffled cache is not the plain cache reordered";

  Fp8Ref fp8{target == "gfx942"};
  std::vector<uint8_t> codes;
  for (int c = 0; c < 256; ++c)
    if (std::fabs(fp8.value(c)) <= 2.0)
      codes.push_back(uint8_t(c));
  std::uniform_int_distribution<size_t> pick(0, codes.size() - 1);
  std::vector<uint8_t> q(size_t(B) * nextN * H * kD);
  for (uint8_t &b : q)
    b = codes[pick(rng)];
  std::uniform_real_distribution<float> wv(-1.0f, 1.0f);
  std::vector<float> weights(size_t(B) * nextN * H);
  for (float &w : weights)
    w = wv(rng);
  std::vector<int32_t> lens = {mml - 37, 65};

  std::vector<float> want =
      logitsOver({target, H, 2, 128, 4, 0}, q, plain, weights, lens, nextN,
                 blockSize, maxBlocks, mml);
  std::vector<float> got =
      logitsOver({target, H, 2, 128, 4, 1}, q, shuffled, weights, lens, nextN,
                 blockSize, maxBlocks, mml);
  ASSERT_EQ(want.size(), size_t(B) * nextN * mml);
  ASSERT_EQ(got.size(), want.size());
  int finite = 0, differ = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    finite += std::isfinite(want[i]);
    if (std::memcmp(&got[i], &want[i], 4) != 0 && differ++ < 5)
      ADD_FAILURE() << "logit " << i << ": " << got[i] << ", plain path "
                    << want[i];
  }
  EXPECT_EQ(differ, 0);
  // Both rows of both batches computed something (not all -inf).
  EXPECT_GT(finite, 2 * 65);
}

INSTANTIATE_TEST_SUITE_P(Emulator, PreshuffledRoundTrip,
                         ::testing::Values("gfx942", "gfx950"));

} // namespace
