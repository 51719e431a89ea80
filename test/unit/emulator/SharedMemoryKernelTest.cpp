//===- SharedMemoryKernelTest.cpp - LDS tiles on the emulator -------------===//
//
// Compiles tile kernels that stage tiles in shared memory (tile.local_alloc,
// tile.async_copy_global_to_local, tile.async_commit_group,
// tile.async_wait, tile.memdesc_index, tile.local_load) for gfx942 and
// gfx950 in-process and runs them on the emulator, checked element for
// element against references computed here:
//
//  - Transpose: a 64x64 fp8 tile is copied global -> LDS asynchronously
//    (rows at and past `rows` masked off, which must read as zero), then
//    loaded in the B-operand layout of a 32x32 MFMA (each lane holds 8
//    consecutive K elements of one column: a transposed access of the
//    row-major tile) and stored transposed: y[n][k] = x[k][n].
//  - Double buffering: a 2-stage buffer of 32x64 f32 tiles over `steps` K
//    steps; step k waits for its stage (at most one group in flight),
//    loads it in a column-major layout and accumulates (k + 1) * tile,
//    then refills the stage with step k + 2. y = sum_k (k + 1) * x_k, exact
//    in f32 for the small integers used. Its shared layout leaves the
//    swizzle to the compiler (perPhase = maxPhase = 0).
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/MLIRContext.h"

#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

/// Replaces every `from` in `s` by `to`.
std::string substitute(std::string s, const std::string &from,
                       const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// Lowers tile IR `src` for `target` with `numWaves` waves; null on failure
/// (with a test failure naming the diagnostics).
std::unique_ptr<Module> compile(const std::string &src,
                                const std::string &target, int64_t numWaves) {
  return emulatorModuleFor(src, "kernel", target, {{"num_waves", numWaves}});
}

// Row-major offsets r * 64 + c of a ROWSx64 tile, with no layout: layout
// assignment picks them.
const char *kOffsets = R"(
  %rows = tile.range 0 to ROWS : tensor<ROWSxi32>
  %c64 = arith.constant dense<64> : tensor<ROWSxi32>
  %ro = arith.muli %rows, %c64 : tensor<ROWSxi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<ROWSxi32> -> tensor<ROWSx1xi32>
  %r2 = tile.broadcast %r1 : tensor<ROWSx1xi32> -> tensor<ROWSx64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %c1 = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c2 = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<ROWSx64xi32>
  %o = arith.addi %r2, %c2 : tensor<ROWSx64xi32>
)";

const char *kTransposeKernel = R"(
#shared = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#mfma = #tile.mfma<{version = MFMAV, instrShape = [32, 32, 16], wavesPerCTA = [2, 2], transposed = false}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>
tile.kernel @transpose(%x: !tile.ptr<FP8> {tile.divisibility = 16 : i64},
                       %y: !tile.ptr<FP8> {tile.divisibility = 16 : i64},
                       %nrows: i32)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
OFFSETS
  %nv = tile.splat %nrows : i32 -> tensor<64x64xi32>
  %c64s = arith.constant dense<64> : tensor<64x64xi32>
  %lim = arith.muli %nv, %c64s : tensor<64x64xi32>
  %m = arith.cmpi slt, %o, %lim : tensor<64x64xi32>
  %buf = tile.local_alloc : !tile.memdesc<64x64xFP8, #shared>
  %t = tile.async_copy_global_to_local %x[%o] mask(%m : tensor<64x64xi1>), %buf : !tile.ptr<FP8>, tensor<64x64xi32> -> !tile.memdesc<64x64xFP8, #shared>
  %g = tile.async_commit_group %t
  %w = tile.async_wait %g {num = 0 : i32}
  %b = tile.local_load %buf : !tile.memdesc<64x64xFP8, #shared> -> tensor<64x64xFP8, #opB>
  // y[n * 64 + k] = b[k][n]
  %kk = tile.range 0 to 64 : tensor<64xi32>
  %k1 = tile.expand_dims %kk, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k2 = tile.broadcast %k1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %nn = tile.range 0 to 64 : tensor<64xi32>
  %n64 = arith.constant dense<64> : tensor<64xi32>
  %nr = arith.muli %nn, %n64 : tensor<64xi32>
  %n1 = tile.expand_dims %nr, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %n2 = tile.broadcast %n1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %yo = arith.addi %k2, %n2 : tensor<64x64xi32>
  tile.store %b, %y[%yo] : tensor<64x64xFP8, #opB>, !tile.ptr<FP8>, tensor<64x64xi32>
  tile.return
}
)";

struct TargetCase {
  std::string target, fp8, mfmaVersion;
};

void PrintTo(const TargetCase &c, std::ostream *os) { *os << c.target; }

class SharedMemoryKernel : public ::testing::TestWithParam<TargetCase> {};

TEST_P(SharedMemoryKernel, AsyncCopyThenTransposedOperandLoad) {
  const TargetCase &tc = GetParam();
  std::string src = substitute(kTransposeKernel, "OFFSETS", kOffsets);
  src = substitute(src, "ROWS", "64");
  src = substitute(src, "FP8", tc.fp8);
  src = substitute(src, "MFMAV", tc.mfmaVersion);
  auto mod = compile(src, tc.target, 4);
  ASSERT_TRUE(mod);

  std::mt19937 rng(7);
  std::vector<uint8_t> x(64 * 64), y(64 * 64);
  for (uint8_t &b : x)
    b = uint8_t(rng() & 0x7f); // finite values of either fp8 format
  for (int nrows : {64, 37, 0}) {
    SCOPED_TRACE("rows = " + std::to_string(nrows));
    std::fill(y.begin(), y.end(), uint8_t(0xAB));
    llvm::Error e =
        mod->launchArgs("transpose", {1, 1, 1}, {256, 1, 1},
                        {KernelArg::buffer(x.data(), int64_t(x.size())),
                         KernelArg::buffer(y.data(), int64_t(y.size())),
                         KernelArg::i32(nrows)});
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    int bad = 0;
    for (int k = 0; k < 64; ++k)
      for (int n = 0; n < 64; ++n) {
        uint8_t want = k < nrows ? x[k * 64 + n] : 0;
        uint8_t got = y[n * 64 + k];
        if (got != want && bad++ < 5)
          ADD_FAILURE() << "y[" << n << "][" << k << "] = " << int(got)
                        << ", want x[" << k << "][" << n << "] = " << int(want);
      }
    EXPECT_EQ(bad, 0);
  }
}

const char *kDoubleBufferKernel = R"(
#shared = #tile.shared<{vec = 4, perPhase = 0, maxPhase = 0, order = [1, 0]}>
#colmajor = #tile.blocked<{sizePerThread = [4, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 2], order = [0, 1]}>
tile.kernel @double_buffer(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %steps: i32)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 2, values = [2]>]} {
OFFSETS
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i2 = arith.constant 2 : i32
  %stepv = tile.splat %steps : i32 -> tensor<32x64xi32>
  %tile = arith.constant dense<2048> : tensor<32x64xi32>
  %buf = tile.local_alloc : !tile.memdesc<2x32x64xf32, #shared>
  // Prologue: steps 0 and 1 into stages 0 and 1.
  %s0 = tile.memdesc_index %buf[%i0] : !tile.memdesc<2x32x64xf32, #shared> -> !tile.memdesc<32x64xf32, #shared>
  %zero = arith.constant dense<0> : tensor<32x64xi32>
  %m0 = arith.cmpi slt, %zero, %stepv : tensor<32x64xi32>
  %t0 = tile.async_copy_global_to_local %x[%o] mask(%m0 : tensor<32x64xi1>), %s0 : !tile.ptr<f32>, tensor<32x64xi32> -> !tile.memdesc<32x64xf32, #shared>
  %g0 = tile.async_commit_group %t0
  %s1 = tile.memdesc_index %buf[%i1] : !tile.memdesc<2x32x64xf32, #shared> -> !tile.memdesc<32x64xf32, #shared>
  %one = arith.constant dense<1> : tensor<32x64xi32>
  %m1 = arith.cmpi slt, %one, %stepv : tensor<32x64xi32>
  %o1 = arith.addi %o, %tile : tensor<32x64xi32>
  %t1 = tile.async_copy_global_to_local %x[%o1] mask(%m1 : tensor<32x64xi1>), %s1 : !tile.ptr<f32>, tensor<32x64xi32> -> !tile.memdesc<32x64xf32, #shared>
  %g1 = tile.async_commit_group %t1
  %acc0 = arith.constant dense<0.0> : tensor<32x64xf32, #colmajor>
  %acc = scf.for %k = %i0 to %steps step %i1 iter_args(%a = %acc0) -> (tensor<32x64xf32, #colmajor>) : i32 {
    %w = tile.async_wait {num = 1 : i32}
    %stage = arith.remui %k, %i2 : i32
    %s = tile.memdesc_index %buf[%stage] : !tile.memdesc<2x32x64xf32, #shared> -> !tile.memdesc<32x64xf32, #shared>
    %v = tile.local_load %s : !tile.memdesc<32x64xf32, #shared> -> tensor<32x64xf32, #colmajor>
    %k1 = arith.addi %k, %i1 : i32
    %kf = arith.sitofp %k1 : i32 to f32
    %kv = tile.splat %kf : f32 -> tensor<32x64xf32, #colmajor>
    %wv = arith.mulf %v, %kv : tensor<32x64xf32, #colmajor>
    %na = arith.addf %a, %wv : tensor<32x64xf32, #colmajor>
    // Refill this stage with step k + 2.
    %next = arith.addi %k, %i2 : i32
    %nv = tile.splat %next : i32 -> tensor<32x64xi32>
    %mn = arith.cmpi slt, %nv, %stepv : tensor<32x64xi32>
    %base = arith.muli %nv, %tile : tensor<32x64xi32>
    %on = arith.addi %o, %base : tensor<32x64xi32>
    %tn = tile.async_copy_global_to_local %x[%on] mask(%mn : tensor<32x64xi1>), %s : !tile.ptr<f32>, tensor<32x64xi32> -> !tile.memdesc<32x64xf32, #shared>
    %gn = tile.async_commit_group %tn
    scf.yield %na : tensor<32x64xf32, #colmajor>
  }
  tile.store %acc, %y[%o] : tensor<32x64xf32, #colmajor>, !tile.ptr<f32>, tensor<32x64xi32>
  tile.return
}
)";

TEST_P(SharedMemoryKernel, DoubleBufferedLoop) {
  const TargetCase &tc = GetParam();
  std::string src = substitute(kDoubleBufferKernel, "OFFSETS", kOffsets);
  src = substitute(src, "ROWS", "32");
  auto mod = compile(src, tc.target, 2);
  ASSERT_TRUE(mod);

  const int kMaxSteps = 6, kTile = 32 * 64;
  std::mt19937 rng(11);
  std::vector<float> x(size_t(kMaxSteps) * kTile), y(kTile);
  for (float &v : x)
    v = float(int(rng() % 17) - 8);
  for (int steps : {1, 2, 5, 6}) {
    SCOPED_TRACE("steps = " + std::to_string(steps));
    std::fill(y.begin(), y.end(), -1.0f);
    llvm::Error e =
        mod->launchArgs("double_buffer", {1, 1, 1}, {128, 1, 1},
                        {KernelArg::buffer(x.data(), int64_t(x.size())),
                         KernelArg::buffer(y.data(), int64_t(y.size())),
                         KernelArg::i32(steps)});
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    int bad = 0;
    for (int i = 0; i < kTile; ++i) {
      double want = 0;
      for (int k = 0; k < steps; ++k)
        want += double(k + 1) * x[size_t(k) * kTile + i];
      if (double(y[i]) != want && bad++ < 5)
        ADD_FAILURE() << "y[" << i / 64 << "][" << i % 64 << "] = " << y[i]
                      << ", want " << want;
    }
    EXPECT_EQ(bad, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lds, SharedMemoryKernel,
    ::testing::Values(TargetCase{"gfx942", "f8E4M3FNUZ", "3"},
                      TargetCase{"gfx950", "f8E4M3FN", "4"}),
    [](const ::testing::TestParamInfo<TargetCase> &info) {
      return info.param.target;
    });

} // namespace
