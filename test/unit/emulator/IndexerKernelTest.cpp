//===- IndexerKernelTest.cpp - indexer_k_cache_write on the emulator ------===//
//
// Compiles kernels_dsl/indexer_k_cache_write.mlir to SIMT IR for gfx942 and
// gfx950 in-process, runs it on the emulator with random data and compares
// with an independent float64 reference: exact fp8 bytes, scales within one
// ulp, untouched bytes for skipped slots; and checks that a slot beyond the
// real cache that the kernel's guard lets through is caught by the emulator's
// bounds check.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "TestUtil.h"
#include "TileLowering.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

constexpr int D = 128;

std::string readKernelSource() {
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) +
                  "/indexer_k_cache_write.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Compiled {
  std::unique_ptr<Module> module;
  int64_t tokensPerProgram = 0; // as recorded in the SIMT IR's tessel.knobs
};

// The values the kernel declares for knob `name` (its `values` list, else its
// default), so the test follows the kernel's own declaration.
std::vector<int64_t> declaredKnobValues(const std::string &name) {
  mlir::DialectRegistry reg;
  tessel::registerTesselDialects(reg);
  mlir::MLIRContext ctx(reg);
  ctx.loadAllAvailableDialects();
  auto m = mlir::parseSourceString<mlir::ModuleOp>(readKernelSource(), &ctx);
  std::vector<int64_t> out;
  if (!m)
    return out;
  m->walk([&](mlir::Operation *op) {
    auto knobs = op->getAttrOfType<mlir::ArrayAttr>("knobs");
    if (!knobs)
      return;
    for (mlir::Attribute a : knobs) {
      auto k = mlir::dyn_cast<tessel::tile::KnobAttr>(a);
      if (!k || k.getName() != name)
        continue;
      if (k.getValues())
        out.assign(k.getValues().asArrayRef().begin(),
                   k.getValues().asArrayRef().end());
      else if (k.getDefaultValue())
        out.push_back(*k.getDefaultValue());
    }
  });
  return out;
}

// Lowers the tile kernel for `target`; on failure the module is null (with a
// test failure).
Compiled compile(const std::string &target, const tessel::KnobBindings &knobs) {
  Compiled c;
  std::string src = readKernelSource();
  if (src.empty()) {
    ADD_FAILURE() << "cannot read indexer_k_cache_write.mlir";
    return c;
  }
  auto ctx = tessel::test::makeTesselContext();
  auto m = tessel::test::lowerTileForTest(
      *ctx, src, "indexer_k_cache_write.mlir", target, knobs);
  if (!m)
    return c;
  m->walk([&](mlir::gpu::GPUFuncOp fn) {
    if (auto k = fn->getAttrOfType<mlir::DictionaryAttr>("tessel.knobs"))
      if (auto v = k.getAs<mlir::IntegerAttr>("tokens_per_program"))
        c.tokensPerProgram = v.getInt();
  });
  if (c.tokensPerProgram <= 0) {
    ADD_FAILURE() << "the SIMT IR records no tokens_per_program knob";
    return c;
  }
  auto emu = Module::fromModule(*m);
  if (!emu) {
    ADD_FAILURE() << llvm::toString(emu.takeError());
    return c;
  }
  c.module = std::move(*emu);
  return c;
}

float bf16ToF32(uint16_t b) { return f32((uint32_t)b << 16); }

struct Problem {
  int T = 0, blockSize = 0, numBlocks = 0;
  bool bf16 = true;
  std::vector<uint8_t> k; // raw bytes of [T, D] (row stride D)
  std::vector<int64_t> slots;
  std::vector<uint8_t> cache;
  double kval(int t, int d) const {
    if (bf16) {
      uint16_t b;
      std::memcpy(&b, &k[((size_t)t * D + d) * 2], 2);
      return bf16ToF32(b);
    }
    float f;
    std::memcpy(&f, &k[((size_t)t * D + d) * 4], 4);
    return f;
  }
};

Problem makeProblem(int T, int blockSize, int numBlocks, bool bf16,
                    unsigned seed) {
  Problem p;
  p.T = T, p.blockSize = blockSize, p.numBlocks = numBlocks, p.bf16 = bf16;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  p.k.resize((size_t)T * D * (bf16 ? 2 : 4));
  for (int t = 0; t < T; ++t) {
    // Rows below the 1e-4 amax floor too (t % 19 == 7).
    float mag = t % 19 == 7 ? 1e-6f : std::exp2((float)(t % 13) - 6.0f);
    for (int d = 0; d < D; ++d) {
      float v = (t % 17 == 5) ? 0.0f : nd(rng) * mag; // some all-zero rows
      if (bf16) {
        uint16_t b = (uint16_t)(bits(v) >> 16);
        std::memcpy(&p.k[((size_t)t * D + d) * 2], &b, 2);
      } else {
        std::memcpy(&p.k[((size_t)t * D + d) * 4], &v, 4);
      }
    }
  }
  // A permutation of the slots, some tokens skipped with -1.
  std::vector<int64_t> perm(numBlocks * blockSize);
  for (size_t i = 0; i < perm.size(); ++i)
    perm[i] = (int64_t)i;
  std::shuffle(perm.begin(), perm.end(), rng);
  p.slots.resize(T);
  for (int t = 0; t < T; ++t)
    p.slots[t] = (t % 7 == 3) ? -1 : perm[t];
  p.cache.assign((size_t)numBlocks * blockSize * (D + 4), 0xAB);
  return p;
}

// The writer's scale (DESIGN.md 3.4): max(amax, 1e-4) / fp8_max in f32,
// fp8_max = 224 for e4m3fnuz and 448 for e4m3fn; with ue8m0 the smallest
// power of two >= it (found by doubling).
float referenceScale(double amax, bool fnuz, bool ue8m0) {
  float s = (float)(std::max(amax, (double)1e-4f) / (fnuz ? 224.0 : 448.0));
  if (!ue8m0)
    return s;
  double p = std::ldexp(1.0, -149);
  while (p < s)
    p *= 2;
  return (float)p;
}

// Where value d of token-in-block o lies in its block (plain or the
// preshuffled [block/16][8][16 tokens][16 bytes]).
size_t valueOffset(bool preshuffle, int64_t o, int d) {
  if (!preshuffle)
    return o * D + d;
  return ((o / 16) * 8 + d / 16) * 256 + (o % 16) * 16 + d % 16;
}

void runCase(const std::string &target, bool bf16, int64_t tppKnob,
             bool preshuffle = false, bool ue8m0 = false, int blockSize = 64,
             int numWaves = 4) {
  SCOPED_TRACE(target + (bf16 ? " bf16" : " f32") +
               " block_size=" + std::to_string(blockSize) +
               " tokens_per_program=" + std::to_string(tppKnob) +
               " preshuffle=" + std::to_string(preshuffle) +
               " ue8m0=" + std::to_string(ue8m0) +
               " num_waves=" + std::to_string(numWaves));
  tessel::KnobBindings knobs = {{"k_bf16", bf16 ? 1 : 0},
                                {"tokens_per_program", tppKnob},
                                {"preshuffle", preshuffle ? 1 : 0},
                                {"scale_ue8m0", ue8m0 ? 1 : 0},
                                {"num_waves", numWaves}};
  Compiled c = compile(target, knobs);
  ASSERT_TRUE(c.module);
  Module *m = c.module.get();
  const int64_t tpp = c.tokensPerProgram;
  EXPECT_EQ(tpp, tppKnob);
  const bool fnuz = target == "gfx942";
  // sm_90 uses OCP e4m3fn like gfx950.
  const int T = 203, numBlocks = (5 * 64 + blockSize - 1) / blockSize;
  Problem p = makeProblem(T, blockSize, numBlocks, bf16, 99 + (unsigned)tpp);
  auto names = m->kernelNames();
  ASSERT_EQ(names.size(), 1u);
  auto bs = m->knownBlockSize(names[0]);
  ASSERT_TRUE((bool)bs);
  ASSERT_TRUE(bs->has_value());
  uint32_t grid = (uint32_t)((T + tpp - 1) / tpp);
  int64_t numSlots = (int64_t)numBlocks * blockSize;
  std::vector<KernelArg> args = {
      KernelArg::buffer(p.k.data(), (int64_t)p.k.size()),
      KernelArg::buffer(p.slots.data(), T),
      KernelArg::buffer(p.cache.data(), (int64_t)p.cache.size()),
      KernelArg::i32(T),
      KernelArg::i64(D),
      KernelArg::i32(blockSize),
      KernelArg::i64(numSlots)};
  EXPECT_OK(m->launchArgs(names[0], {grid, 1, 1}, **bs, args));

  Fp8Ref ref{fnuz};
  std::vector<bool> written(numSlots, false);
  int badQ = 0, badS = 0, checked = 0;
  for (int t = 0; t < T; ++t) {
    int64_t s = p.slots[t];
    if (s < 0 || s >= numSlots)
      continue;
    written[s] = true;
    ++checked;
    double amax = 0;
    for (int d = 0; d < D; ++d)
      amax = std::max(amax, std::fabs(p.kval(t, d)));
    float scale = referenceScale(amax, fnuz, ue8m0);
    int64_t blk = s / blockSize, off = s % blockSize;
    size_t block = (size_t)blk * blockSize * (D + 4);
    size_t sBase = block + blockSize * D + off * 4;
    for (int d = 0; d < D; ++d) {
      float y = (float)(p.kval(t, d) / scale); // correctly rounded f32 div
      int e = ref.encode(y);
      size_t at = block + valueOffset(preshuffle, off, d);
      if (p.cache[at] != e && badQ++ < 5)
        ADD_FAILURE() << target << " token " << t << " d " << d << ": byte "
                      << (int)p.cache[at] << ", expected " << e;
    }
    float got;
    std::memcpy(&got, &p.cache[sBase], 4);
    float ulp = std::nextafter(scale, INFINITY) - scale;
    if (!(std::fabs(got - scale) <= ulp) && badS++ < 5)
      ADD_FAILURE() << target << " token " << t << ": scale " << got
                    << ", expected " << scale;
  }
  EXPECT_EQ(badQ, 0);
  EXPECT_EQ(badS, 0);
  EXPECT_GT(checked, T * 3 / 4);
  // Slots no token maps to are untouched.
  for (int64_t s = 0; s < numSlots; ++s) {
    if (written[s])
      continue;
    int64_t blk = s / blockSize, off = s % blockSize;
    size_t block = (size_t)blk * blockSize * (D + 4);
    size_t sBase = block + blockSize * D + off * 4;
    for (int d = 0; d < D; ++d)
      ASSERT_EQ(p.cache[block + valueOffset(preshuffle, off, d)], 0xAB)
          << "slot " << s;
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(p.cache[sBase + i], 0xAB) << "slot " << s;
  }
}

// Every declared tokens_per_program value, on each target and input type.
void runAll(const std::string &target, bool bf16) {
  std::vector<int64_t> tpps = declaredKnobValues("tokens_per_program");
  ASSERT_FALSE(tpps.empty()) << "kernel declares no tokens_per_program";
  for (int64_t tpp : tpps)
    runCase(target, bf16, tpp);
}

TEST(EmulatorIndexerKernel, Gfx942Bf16) { runAll("gfx942", true); }
TEST(EmulatorIndexerKernel, Gfx942F32) { runAll("gfx942", false); }
TEST(EmulatorIndexerKernel, Gfx950Bf16) { runAll("gfx950", true); }
TEST(EmulatorIndexerKernel, Gfx950F32) { runAll("gfx950", false); }
// The sm_90 SIMT IR runs in wave32.
TEST(EmulatorIndexerKernel, Sm90Bf16) { runAll("sm_90", true); }
// The preshuffled layout and power-of-two (ue8m0) scales.
TEST(EmulatorIndexerKernel, Gfx942Preshuffle) {
  runCase("gfx942", true, 16, true, false);
}
TEST(EmulatorIndexerKernel, Gfx942Ue8m0) {
  runCase("gfx942", false, 16, false, true);
}
TEST(EmulatorIndexerKernel, Gfx950PreshuffleUe8m0) {
  runCase("gfx950", true, 64, true, true);
}
TEST(EmulatorIndexerKernel, Sm90PreshuffleUe8m0) {
  runCase("sm_90", true, 16, true, true);
}
// Eight waves, which the sm_90 table picks for small calls: a [16, 128]
// tile over 256 lanes (8 values per lane on sm_90, 4 in wave64).
TEST(EmulatorIndexerKernel, Sm90EightWaves) {
  runCase("sm_90", true, 16, false, false, 64, 8);
}
TEST(EmulatorIndexerKernel, Gfx942EightWaves) {
  runCase("gfx942", false, 32, false, false, 64, 8);
}

// The kernel's three ways to a slot's address: a shift and 16-byte stores
// (64 above), a shift and 4-byte-aligned stores (block 1, 2), a division and
// 16-byte stores (12: a multiple of 4, not a power of two), a division and
// 4-byte-aligned stores (7).
TEST(EmulatorIndexerKernel, BlockSizesOfEveryAddressPath) {
  for (int bs : {1, 2, 7, 12})
    runCase("gfx950", true, 16, false, false, bs);
  runCase("sm_90", false, 32, false, false, 7);
  runCase("gfx942", true, 16, false, true, 12);
}

// num_slots claims a larger cache than the buffer holds: the kernel's guard
// lets the slot through, the emulator catches the out-of-bounds store.
TEST(EmulatorIndexerKernel, OutOfBoundsSlotIsCaught) {
  Compiled c = compile("gfx950", {{"k_bf16", 1}});
  ASSERT_TRUE(c.module);
  Module *m = c.module.get();
  const int T = 8, blockSize = 16, numBlocks = 2;
  Problem p = makeProblem(T, blockSize, numBlocks, true, 5);
  p.slots[6] = numBlocks * blockSize + 3; // one block past the end
  auto names = m->kernelNames();
  auto bs = m->knownBlockSize(names[0]);
  ASSERT_TRUE((bool)bs && bs->has_value());
  std::string e = errOf(
      m->launchArgs(names[0], {2, 1, 1}, **bs,
                    {KernelArg::buffer(p.k.data(), (int64_t)p.k.size()),
                     KernelArg::buffer(p.slots.data(), T),
                     KernelArg::buffer(p.cache.data(), (int64_t)p.cache.size()),
                     KernelArg::i32(T), KernelArg::i64(D),
                     KernelArg::i32(blockSize), KernelArg::i64(1000)}));
  EXPECT_NE(e.find("out-of-bounds"), std::string::npos) << e;
  EXPECT_NE(e.find("store"), std::string::npos) << e;
  EXPECT_NE(e.find("indexer_k_cache_write.mlir"), std::string::npos) << e;
}

} // namespace
