//===- GemmKernelTest.cpp - scaled GEMM through tile.dot on the emulator --===//
//
// Compiles kernels_dsl/scaled_gemm_{fp8,bf16}.mlir and
// scaled_gemm_fp8_k128.mlir (K steps of 128) for gfx942 and gfx950, and
// scaled_gemm_fp8_pipelined.mlir (64x128 tiles of C, K steps of 128 copied
// into two shared-memory stages, the dot reading them) and
// scaled_gemm_fp8_ring{,_promoted}.mlir (K steps of 64 in a three-stage ring
// on async barriers, async dots; the second adds each step's partial sum
// to an f32 accumulator) for gfx950 in-process (tile.dot on MFMA: plain loads
// in the operand layouts, accumulation in registers over a K loop, several
// waves along M and N) and runs them on the emulator against a float64
// reference of
//   C[m, n] = (sum_k A[m, k] * B[n, k]) * sa[m] * sb[n]
// on the values the fp8 / bf16 inputs encode. Each case also checks which
// MFMA the lowering chose (by its K): gfx950's K-step-128 kernel runs on the
// double-rate v_mfma_f32_16x16x128_f8f6f4, whose lanes hold two K runs of
// 16 per operand, everything else on the 16x16x32 / 16x16x16 forms.
//
// Tolerance, per element: the products a*b are exact in f32 (fp8 x fp8 has
// at most 8 significant bits, bf16 x bf16 at most 16), so the error is that
// of summing K terms in f32 in any order, at most gamma(K-1) * sum |a*b|
// with gamma(n) = n*u / (1 - n*u) and u = 2^-24, plus the two f32 scalings,
// each at most u relative: |C - ref| <= |sa*sb| * sum|a*b| *
// (gamma(K-1) + 2u) * (1 + gamma(K-1)) (+ 2u^2 terms, covered by the last
// factor). An MFMA that sums its products with fewer f32 roundings (one
// 128-term dot product per f8f6f4 instruction, say) stays within it. Masked-off
// rows, columns and k must not leak into C, and C outside [M, N] must stay
// untouched.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "TestUtil.h"
#include "TileLowering.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

std::string readKernel(const std::string &name) {
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Lowers `file` for `target` with `numWaves` waves; null on failure (with
/// a test failure). Every amdgpu.mfma of the lowered kernel must have K =
/// `mfmaK`.
std::unique_ptr<Module> compile(const std::string &file,
                                const std::string &target, int64_t numWaves,
                                unsigned mfmaK) {
  std::string src = readKernel(file);
  if (src.empty()) {
    ADD_FAILURE() << "cannot read " << file;
    return nullptr;
  }
  auto ctx = tessel::test::makeTesselContext();
  auto m = tessel::test::lowerTileForTest(*ctx, src, file, target,
                                          {{"num_waves", numWaves}});
  if (!m)
    return nullptr;
  int numMfma = 0;
  m->walk([&](mlir::amdgpu::MFMAOp op) {
    ++numMfma;
    EXPECT_EQ(op.getK(), mfmaK)
        << "an MFMA of " << op.getM() << "x" << op.getN() << "x" << op.getK();
  });
  EXPECT_GT(numMfma, 0) << "no amdgpu.mfma in the lowered kernel";
  auto emu = Module::fromModule(*m);
  if (!emu) {
    ADD_FAILURE() << llvm::toString(emu.takeError());
    return nullptr;
  }
  return std::move(*emu);
}

struct Shape {
  int M, N, K, waves;
};

struct GemmCase {
  std::string target;
  bool fp8;
  /// The kernel's K step (32 or 128 for fp8, 32 for bf16) and the K of the
  /// MFMA it must lower to.
  int kStep;
  unsigned mfmaK;
  /// A kernel with 64x128 tiles of C and K steps staged in shared memory:
  /// "_pipelined" (two cp.async stages), "_ring" (three stages on
  /// barriers, async dots) or "_ring_promoted"; empty for the others.
  std::string staged = "";
  bool pipelined() const { return !staged.empty(); }
  int tileN() const { return pipelined() ? 128 : 64; }
};

class ScaledGemm : public ::testing::TestWithParam<GemmCase> {};

constexpr int kTile = 64; // the kernel's C tile

void runShape(Module &mod, const std::string &kernel, const GemmCase &gc,
              unsigned blockSize, const Shape &s, unsigned seed) {
  SCOPED_TRACE("M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
               " K=" + std::to_string(s.K) +
               " waves=" + std::to_string(s.waves));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> val(-3.0, 3.0), scale(0.25, 4.0);
  Fp8Ref fp8{gc.target == "gfx942"};
  // Inputs as stored bytes, and the values they encode.
  auto fill = [&](int rows, std::vector<uint8_t> &bytes,
                  std::vector<double> &vals) {
    int n = rows * s.K;
    vals.resize(n);
    bytes.resize(size_t(n) * (gc.fp8 ? 1 : 2));
    for (int i = 0; i < n; ++i) {
      double x = val(rng);
      if (gc.fp8) {
        int code = fp8.encode(x);
        bytes[i] = uint8_t(code);
        vals[i] = fp8.value(code);
      } else {
        uint16_t b = uint16_t(bits(float(x)) >> 16); // truncate to bf16
        std::memcpy(&bytes[size_t(i) * 2], &b, 2);
        vals[i] = f32(uint32_t(b) << 16);
      }
    }
  };
  std::vector<uint8_t> a, b;
  std::vector<double> av, bv;
  fill(s.M, a, av);
  fill(s.N, b, bv);
  std::vector<float> sa(s.M), sb(s.N);
  for (float &x : sa)
    x = float(scale(rng));
  for (float &x : sb)
    x = float(scale(rng));
  // C with a guard region after [M, N] that must stay untouched.
  const float kGuard = -12345.0f;
  std::vector<float> c(size_t(s.M) * s.N + gc.tileN(), kGuard);

  unsigned gx = (s.M + kTile - 1) / kTile,
           gy = (s.N + gc.tileN() - 1) / gc.tileN();
  int64_t elemBytes = gc.fp8 ? 1 : 2;
  llvm::Error e = mod.launchArgs(
      kernel, {gx, gy, 1}, {blockSize, 1, 1},
      {KernelArg::buffer(a.data(), int64_t(a.size()) / elemBytes),
       KernelArg::buffer(b.data(), int64_t(b.size()) / elemBytes),
       KernelArg::buffer(sa.data(), s.M), KernelArg::buffer(sb.data(), s.N),
       KernelArg::buffer(c.data(), int64_t(c.size())), KernelArg::i32(s.M),
       KernelArg::i32(s.N), KernelArg::i32(s.K)});
  ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));

  const double u = std::ldexp(1.0, -24);
  const double gammaK = (s.K - 1) * u / (1 - (s.K - 1) * u);
  int bad = 0;
  for (int m = 0; m < s.M; ++m)
    for (int n = 0; n < s.N; ++n) {
      double sum = 0, absSum = 0;
      for (int k = 0; k < s.K; ++k) {
        double p = av[size_t(m) * s.K + k] * bv[size_t(n) * s.K + k];
        sum += p;
        absSum += std::fabs(p);
      }
      double ss = double(sa[m]) * double(sb[n]);
      double ref = sum * ss;
      double tol = std::fabs(ss) * absSum * (gammaK + 2 * u) * (1 + gammaK);
      double got = c[size_t(m) * s.N + n];
      double err = std::fabs(got - ref);
      if (!(err <= tol) && bad++ < 5)
        ADD_FAILURE() << "C[" << m << "][" << n << "] = " << got
                      << ", reference " << ref << ", tolerance " << tol;
    }
  EXPECT_EQ(bad, 0);
  for (size_t i = size_t(s.M) * s.N; i < c.size(); ++i)
    ASSERT_EQ(c[i], kGuard) << "write past C at element " << i;
}

TEST_P(ScaledGemm, MatchesFloat64Reference) {
  const GemmCase &gc = GetParam();
  std::string kernel = gc.fp8 ? "scaled_gemm_fp8" : "scaled_gemm_bf16";
  if (gc.pipelined())
    kernel += gc.staged;
  else if (gc.kStep == 128)
    kernel += "_k128";
  std::string file = kernel + ".mlir";
  // Partial tiles (masks on M, N and K), one wave, 2x1, 2x2 and 4x2 waves
  // over the 64x64 tile, several programs along M and N, K loops of 1 to 8
  // steps of 32, or of 1 to 3 steps of 128.
  const std::vector<Shape> shapes32 = {
      {16, 16, 16, 1},  {64, 64, 64, 4},    {48, 80, 96, 2},
      {128, 64, 32, 4}, {256, 256, 256, 8}, {16, 256, 144, 4},
  };
  const std::vector<Shape> shapes128 = {
      {16, 16, 128, 1},   {64, 64, 256, 4},   {48, 80, 384, 2},
      {128, 64, 128, 4},  {256, 256, 256, 8}, {16, 256, 144, 4},
      {192, 112, 256, 8},
  };
  // The pipelined kernel: 4 or 8 waves, partial tiles, 1 to 4 K steps
  // (the prologue's step alone, and a masked-off copy past the end).
  const std::vector<Shape> shapesPipelined = {
      {64, 128, 128, 4}, {48, 80, 384, 4},   {128, 256, 256, 8},
      {16, 144, 144, 4}, {192, 112, 512, 8},
  };
  std::map<int, std::unique_ptr<Module>> byWaves;
  unsigned seed = 17;
  for (const Shape &s : gc.pipelined()    ? shapesPipelined
                        : gc.kStep == 128 ? shapes128
                                          : shapes32) {
    auto &mod = byWaves[s.waves];
    if (!mod)
      mod = compile(file, gc.target, s.waves, gc.mfmaK);
    ASSERT_TRUE(mod);
    runShape(*mod, kernel, gc, unsigned(s.waves) * 64, s, seed++);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mfma, ScaledGemm,
    ::testing::Values(
        GemmCase{"gfx942", true, 32, 32}, GemmCase{"gfx950", true, 32, 32},
        GemmCase{"gfx942", true, 128, 32}, GemmCase{"gfx950", true, 128, 128},
        GemmCase{"gfx942", false, 32, 16}, GemmCase{"gfx950", false, 32, 16},
        GemmCase{"gfx950", true, 128, 128, "_pipelined"},
        GemmCase{"gfx950", true, 64, 64, "_ring"},
        GemmCase{"gfx950", true, 64, 64, "_ring_promoted"}),
    [](const ::testing::TestParamInfo<GemmCase> &info) {
      return info.param.target + (info.param.fp8 ? "_fp8" : "_bf16") +
             (info.param.pipelined()    ? info.param.staged
              : info.param.kStep == 128 ? std::string("_k128")
                                        : std::string(""));
    });

} // namespace
