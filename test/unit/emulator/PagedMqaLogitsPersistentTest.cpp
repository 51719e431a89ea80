//===- PagedMqaLogitsPersistentTest.cpp - The persistent logits variant ---===//
//
// Compiles kernels_dsl/paged_mqa_logits.mlir with persistent = 1 for gfx942
// and gfx950 in-process and runs it on the emulator over a schedule of the
// paged_mqa_logits_metadata contract (DESIGN.md 3.3; an independent host
// walk over the batches here), against the float64 reference of the
// split-grid tests:
//   out[r, t] = kscale[t] * sum_h relu(q[r,h,:] . k[t,:]) * w[r,h]
// on the values the fp8 bytes encode in the target's format. The -inf
// positions must be exactly t in [len_r, max_model_len) (with write_tail;
// without it they stay untouched), the padding past max_model_len stays
// untouched, and calc_diff = 1 - 2 sum(xy) / sum(x^2 + y^2) < 1e-3 over the
// rest. The cases cover uneven lengths, batches of length 0 (leading,
// inside and trailing), 1-D and 2-D lengths, next_n 1, 2 and 3, blocks 1,
// 16 and 64, split_tokens below, equal to and not a multiple of chunk_k,
// and num_cus below and above the number of segments. The preshuffled
// variant (preshuffle = 1) reads the same cache in the preshuffled layout
// ([block/16][D/16][16 tok][16 B] per block, DESIGN.md 3.1) and must give
// the same reference values: blocks 16 and 64, next_n 1 and 2, 1-D and 2-D
// lengths, uneven lengths with zero-length rows and batches.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "LogitsReference.h"
#include "TestUtil.h"
#include "TileKernel.h"

#include "mlir/IR/MLIRContext.h"

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

struct Variant {
  std::string target;
  int heads, rows, chunk, waves;
  int preshuffle = 0; // reads the preshuffled cache layout
  std::string name() const {
    return target + "_h" + std::to_string(heads) + "_r" + std::to_string(rows) +
           "_c" + std::to_string(chunk) + "_w" + std::to_string(waves) +
           (preshuffle ? "_ps" : "");
  }
};

Module *compiled(const Variant &v) {
  static std::map<std::string, std::unique_ptr<Module>> cache;
  auto &slot = cache[v.name()];
  if (slot)
    return slot.get();
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) +
                  "/paged_mqa_logits.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  slot = emulatorModuleFor(ss.str(), "paged_mqa_logits.mlir", v.target,
                           {{"heads", v.heads},
                            {"rows_per_program", v.rows},
                            {"chunk_k", v.chunk},
                            {"num_waves", v.waves},
                            {"preshuffle", v.preshuffle},
                            {"persistent", 1}});
  return slot.get();
}

struct Problem {
  int batch, nextN, blockSize;
  std::vector<int> lens; // per batch (1-D) or per row (2-D)
  bool lens2d;
  int maxModelLen;
  int64_t outStride;
  int splitTokens;
  int numCus;
  bool writeTail;
  unsigned seed;
};

/// The schedule of DeepGEMM's get_paged_mqa_logits_metadata contract, by a
/// serial walk: batch b has ceil(len_b / split) segments (len_b its longest
/// row, 1-D: context_lens[b]); unit i starts at global segment i*q +
/// min(i, rem) of S, as (batch, segment in the batch); S itself and the
/// sentinel are (batch, 0).
std::vector<int32_t> referenceSchedule(const Problem &p) {
  std::vector<int64_t> segs(p.batch);
  int64_t total = 0;
  for (int b = 0; b < p.batch; ++b) {
    int64_t len = 0;
    for (int j = 0; j < (p.lens2d ? p.nextN : 1); ++j)
      len = std::max<int64_t>(len, p.lens[b * (p.lens2d ? p.nextN : 1) + j]);
    segs[b] = (len + p.splitTokens - 1) / p.splitTokens;
    total += segs[b];
  }
  std::vector<int32_t> out(size_t(p.numCus + 1) * 2);
  const int64_t q = total / p.numCus, rem = total % p.numCus;
  for (int i = 0; i <= p.numCus; ++i) {
    int64_t g = i == p.numCus ? total : i * q + std::min<int64_t>(i, rem);
    int64_t b = 0, before = 0;
    while (b < p.batch && before + segs[b] <= g)
      before += segs[b++];
    out[2 * i] = int32_t(b);
    out[2 * i + 1] = int32_t(b < p.batch ? g - before : 0);
  }
  return out;
}

double runProblem(const Variant &v, const Problem &p) {
  SCOPED_TRACE(
      "B=" + std::to_string(p.batch) + " next_n=" + std::to_string(p.nextN) +
      " block=" + std::to_string(p.blockSize) + " split_tokens=" +
      std::to_string(p.splitTokens) + " num_cus=" + std::to_string(p.numCus) +
      (p.lens2d ? " 2-D" : " 1-D") + (p.writeTail ? " tail" : " no-tail"));
  Module *mod = compiled(v);
  if (!mod)
    return 0;
  const LogitsShape shape{v.heads, p.batch,  p.nextN,      p.blockSize,
                          p.lens,  p.lens2d, p.maxModelLen};
  const Fp8Ref fp8{v.target == "gfx942"};
  const LogitsInputs in = makeLogitsInputs(shape, fp8, p.seed);
  const int R = p.batch * p.nextN;
  std::vector<float> out(size_t(R) * p.outStride, kLogitsUntouched);
  const unsigned groups = unsigned((p.nextN + v.rows - 1) / v.rows);
  // The reference reads the plain cache; a preshuffled variant gets the
  // same values in its layout.
  LogitsLaunch launch{
      in.q,
      v.preshuffle ? preshuffledCopy(in.cache, p.blockSize) : in.cache,
      in.weights,
      in.lens,
      in.tables,
      referenceSchedule(p)};
  auto start = std::chrono::steady_clock::now();
  llvm::Error e =
      mod->launchArgs("paged_mqa_logits", {unsigned(p.numCus), 1, groups},
                      {unsigned(v.waves) * 64, 1, 1},
                      launch.args(shape, in, out.data(), int64_t(out.size()),
                                  p.outStride, p.writeTail, p.splitTokens));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (e)
    ADD_FAILURE() << llvm::toString(std::move(e));
  else
    checkLogits(shape, fp8, in, p.writeTail, out.data(), p.outStride,
                p.outStride);
  return seconds;
}

struct Case {
  Variant v;
  Problem p;
};

class PagedMqaLogitsPersistent : public ::testing::TestWithParam<Case> {};

TEST_P(PagedMqaLogitsPersistent, MatchesFloat64Reference) {
  const Case &c = GetParam();
  double s = runProblem(c.v, c.p);
  std::printf("[ emulator ] %s: %.2f s\n", c.v.name().c_str(), s);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::string t : {"gfx942", "gfx950"}) {
    Variant h64{t, 64, 1, 128, 4}, h32r2{t, 32, 2, 128, 4};
    // Uneven 1-D lengths with a zero-length batch first; 6 segments of one
    // chunk over 4 units (fewer units than segments, units of 1 and 2).
    out.push_back(
        {h64, {4, 1, 16, {0, 300, 17, 129}, false, 400, 408, 128, 4, true, 1}});
    // The same over 16 units (more units than segments: empty units).
    out.push_back(
        {h64,
         {4, 1, 16, {0, 300, 17, 129}, false, 400, 400, 128, 16, true, 2}});
    // 2-D lengths, next_n = 2 in one M tile, block 64, a zero-length batch
    // between two others, segments of two chunks.
    out.push_back(
        {h32r2,
         {3, 2, 64, {65, 64, 0, 0, 1, 500}, true, 520, 528, 256, 2, true, 3}});
    // next_n = 3 over two groups of two rows (the second has one masked
    // row), block 1, 1-D causal lengths (rows of length 0, 1 and 2),
    // segments shorter than a chunk.
    out.push_back(
        {h32r2, {2, 3, 1, {2, 250}, false, 260, 264, 64, 5, true, 4}});
    // Segments that are not a whole number of chunks, no -inf tail.
    out.push_back(
        {h64, {2, 1, 16, {450, 90}, false, 512, 520, 200, 3, false, 5}});
    // Zero-length batches leading, inside and trailing.
    out.push_back(
        {h64, {5, 1, 16, {0, 0, 140, 0, 0}, false, 200, 200, 64, 4, true, 6}});
    // Every batch of length 0: no segment at all.
    out.push_back({h64, {2, 1, 64, {0, 0}, false, 130, 136, 128, 3, true, 7}});
  }
  return out;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return info.param.v.name() + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Emulator, PagedMqaLogitsPersistent,
                         ::testing::ValuesIn(cases()), caseName);

//===----------------------------------------------------------------------===//
// Preshuffled cache (preshuffle = 1)
//===----------------------------------------------------------------------===//

// The library's persistent preshuffled variants (kernels_dsl/variants.json:
// 64 and 32 heads with one row per program, 32 heads with two, so that
// next_n = 2 packs into one M tile; 128-token chunks). A preshuffled cache
// needs block_size % 16 == 0: blocks 16 and 64.
std::vector<Case> preshuffledCases() {
  std::vector<Case> out;
  for (std::string t : {"gfx942", "gfx950"}) {
    Variant h64{t, 64, 1, 128, 4, 1}, h32{t, 32, 1, 128, 4, 1},
        h32r2{t, 32, 2, 128, 4, 1};
    // Uneven 1-D lengths (0, block - 1, block + 1, several blocks), block
    // 64, segments of one chunk over fewer units than segments.
    out.push_back(
        {h64, {4, 1, 64, {0, 63, 65, 300}, false, 320, 328, 128, 3, true, 31}});
    // 2-D lengths, next_n = 2 as two row groups, block 16, a zero-length
    // batch between two others, segments of two chunks.
    out.push_back(
        {h32,
         {3, 2, 16, {17, 16, 0, 0, 1, 400}, true, 416, 424, 256, 2, true, 32}});
    // next_n = 2 with 1-D causal lengths (rows of length 0 and 1, then 249
    // and 250), block 16, segments shorter than a chunk, more units than
    // segments.
    out.push_back(
        {h64, {2, 2, 16, {1, 250}, false, 260, 264, 64, 9, true, 33}});
    // next_n = 2 in one M tile, 2-D lengths, block 64, segments that are
    // not a whole number of chunks, no -inf tail.
    out.push_back(
        {h32r2,
         {2, 2, 64, {130, 0, 17, 400}, true, 448, 456, 200, 3, false, 34}});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EmulatorPreshuffled, PagedMqaLogitsPersistent,
                         ::testing::ValuesIn(preshuffledCases()), caseName);

} // namespace
