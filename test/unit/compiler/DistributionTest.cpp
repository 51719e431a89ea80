//===- DistributionTest.cpp - tile-to-SIMT on the emulator ----------------===//
//
// Small tile kernels are lowered in-process for gfx942, gfx950 and sm_90 and
// run on the SIMT emulator; the results are compared with plain C++
// references. Each kernel exercises one part of the distribution: layouts
// that replicate, reductions in registers / across lanes / across waves,
// layout changes through LDS, masked and gathered accesses, loops carrying
// tiles, atomics.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "tessel/Emulator/Emulator.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>
#include <sys/mman.h>
#include <vector>

using namespace tessel;

namespace {

struct Compiled {
  std::unique_ptr<emu::Module> module;
  emu::Dim3 block;
};

/// Lowers `src` for `target` with `knobs`; fails the test on any error.
Compiled compile(const std::string &src, const std::string &target,
                 const KnobBindings &knobs = {}) {
  auto ctx = test::makeTesselContext();
  auto module = test::lowerTileForTest(*ctx, src, "kernel", target, knobs);
  if (!module)
    return {};
  auto m = emu::Module::fromModule(*module);
  if (!m) {
    ADD_FAILURE() << "emulator load failed: " << llvm::toString(m.takeError());
    return {};
  }
  auto names = (*m)->kernelNames();
  auto bs = (*m)->knownBlockSize(names.front());
  if (!bs || !*bs) {
    ADD_FAILURE() << "kernel has no known block size";
    return {};
  }
  return {std::move(*m), **bs};
}

void run(const Compiled &c, const char *kernel, unsigned grid,
         llvm::ArrayRef<emu::KernelArg> args) {
  ASSERT_TRUE(c.module);
  llvm::Error e = c.module->launchArgs(kernel, {grid, 1, 1}, c.block, args);
  ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
}

class Distribution : public ::testing::TestWithParam<std::string> {};

// Row maxima of a [4, 128] tile broadcast back and subtracted: reduction in
// registers and across 16 lanes, slice layouts, broadcast.
TEST_P(Distribution, RowMaxSubtract) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %rows = tile.range 0 to 4 : tensor<4xi32>
  %c128 = arith.constant dense<128> : tensor<4xi32>
  %ro = arith.muli %rows, %c128 : tensor<4xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<4xi32> -> tensor<4x1xi32>
  %r2 = tile.broadcast %r1 : tensor<4x1xi32> -> tensor<4x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %o = arith.addi %r2, %c2 : tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  %m = tile.reduce max %v, 1 : tensor<4x128xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m, 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x128xf32>
  %d = arith.subf %v, %mb : tensor<4x128xf32>
  tile.store %d, %y[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-100, 100);
  std::vector<float> x(512), y(512, NAN);
  for (float &v : x)
    v = dist(rng);
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 512),
       emu::KernelArg::buffer(y.data(), 512)});
  for (int r = 0; r < 4; ++r) {
    float m = -INFINITY;
    for (int j = 0; j < 128; ++j)
      m = std::max(m, x[r * 128 + j]);
    for (int j = 0; j < 128; ++j)
      ASSERT_EQ(y[r * 128 + j], x[r * 128 + j] - m)
          << "row " << r << " col " << j;
  }
}

// A sum over 512 elements spread over 4 waves: lanes, then waves via LDS.
TEST_P(Distribution, CrossWaveSum) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {
    knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %s = tile.reduce add %v, 0 : tensor<512xi32> -> i32
  %pid = tile.program_id 0 : i32
  tile.store %s, %out[%pid] : i32, !tile.ptr<i32>, i32
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::vector<int32_t> x(512), out(3, -1);
  int64_t want = 0;
  for (int i = 0; i < 512; ++i) {
    x[i] = (i * 7919) % 1000 - 500;
    want += x[i];
  }
  run(c, "k", 3,
      {emu::KernelArg::buffer(x.data(), 512),
       emu::KernelArg::buffer(out.data(), 3)});
  for (int p = 0; p < 3; ++p)
    EXPECT_EQ(out[p], want) << "program " << p;
}

// reshape + transpose + reshape through LDS: out[i*8+j] = x[j*8+i].
TEST_P(Distribution, TransposeThroughLds) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>
  %m = tile.reshape %v : tensor<64xf32> -> tensor<8x8xf32>
  %t = tile.transpose %m, [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %b = tile.reshape %t : tensor<8x8xf32> -> tensor<64xf32>
  tile.store %b, %y[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::vector<float> x(64), y(64, NAN);
  for (int i = 0; i < 64; ++i)
    x[i] = float(i) + 0.5f;
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 64),
       emu::KernelArg::buffer(y.data(), 64)});
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(y[i * 8 + j], x[j * 8 + i]) << i << "," << j;
}

// A masked tail with `other`, a gather through loaded indices, int64
// offsets, and a loop carrying a tile.
TEST_P(Distribution, MaskedGatherLoop) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<f32>, %idx: !tile.ptr<i64>, %y: !tile.ptr<f32>,
               %n: i64, %iters: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0 to 128 : tensor<128xi64>
  %nv = tile.splat %n : i64 -> tensor<128xi64>
  %m = arith.cmpi slt, %r, %nv : tensor<128xi64>
  %other = arith.constant dense<-3.0> : tensor<128xf32>
  %i = tile.load %idx[%r] mask(%m : tensor<128xi1>) : !tile.ptr<i64>, tensor<128xi64> -> tensor<128xi64>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %acc = scf.for %it = %c0 to %iters step %c1 iter_args(%a = %zero) -> (tensor<128xf32>) : i32 {
    %g = tile.load %x[%i] mask(%m : tensor<128xi1>) other(%other : tensor<128xf32>) : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
    %s = arith.addf %a, %g : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %acc, %y[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  const int64_t n = 77;
  const int iters = 3;
  std::vector<float> x(1000), y(128, NAN);
  std::vector<int64_t> idx(n);
  for (int i = 0; i < 1000; ++i)
    x[i] = float(i % 97) * 0.25f;
  for (int64_t i = 0; i < n; ++i)
    idx[i] = (i * 389) % 1000;
  // idx has only n elements: masked lanes must not read past it.
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 1000),
       emu::KernelArg::buffer(idx.data(), n),
       emu::KernelArg::buffer(y.data(), 128), emu::KernelArg::i64(n),
       emu::KernelArg::i32(iters)});
  for (int64_t i = 0; i < 128; ++i) {
    float g = i < n ? x[idx[i]] : -3.0f;
    float want = 0;
    for (int it = 0; it < iters; ++it)
      want += g;
    EXPECT_EQ(y[i], want) << "element " << i;
  }
}

// A prefix sum over 512 elements on 4 waves (2 per lane): in-lane runs,
// the whole-wave lane scan, then the waves' totals through LDS.
TEST_P(Distribution, InclusiveScanAcrossWaves) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) attributes {
    knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %s = tile.scan add %v, 0 : tensor<512xi32>
  tile.store %s, %y[%r] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::vector<int32_t> x(512), y(512, -1);
  for (int i = 0; i < 512; ++i)
    x[i] = (i * 37) % 11 - 3;
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 512),
       emu::KernelArg::buffer(y.data(), 512)});
  int32_t acc = 0;
  for (int i = 0; i < 512; ++i) {
    acc += x[i];
    ASSERT_EQ(y[i], acc) << "element " << i;
  }
}

// Exclusive running maxima along the rows of a [4, 128] tile: each row is a
// group of 16 lanes (8 elements each), scanned within the group.
TEST_P(Distribution, ExclusiveRowMaxScan) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %rows = tile.range 0 to 4 : tensor<4xi32>
  %c128 = arith.constant dense<128> : tensor<4xi32>
  %ro = arith.muli %rows, %c128 : tensor<4xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<4xi32> -> tensor<4x1xi32>
  %r2 = tile.broadcast %r1 : tensor<4x1xi32> -> tensor<4x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %o = arith.addi %r2, %c2 : tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  %s = tile.scan max %v, 1 {exclusive} : tensor<4x128xf32>
  tile.store %s, %y[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-50, 50);
  std::vector<float> x(512), y(512, NAN);
  for (float &v : x)
    v = dist(rng);
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 512),
       emu::KernelArg::buffer(y.data(), 512)});
  for (int r = 0; r < 4; ++r) {
    float m = -INFINITY;
    for (int j = 0; j < 128; ++j) {
      ASSERT_EQ(y[r * 128 + j], m) << "row " << r << " col " << j;
      m = std::max(m, x[r * 128 + j]);
    }
  }
}

// A column scan of a [4, 16] tile: the lanes along the axis are not the low
// lane bits (16 lanes per row come first), so the lane scan steps 16 lanes.
TEST_P(Distribution, ColumnScanWithStridedLanes) {
  const char *src = R"(
tile.kernel @k(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<64xi32> -> tensor<64xi32>
  %m = tile.reshape %v : tensor<64xi32> -> tensor<4x16xi32>
  %s = tile.scan add %m, 0 : tensor<4x16xi32>
  %b = tile.reshape %s : tensor<4x16xi32> -> tensor<64xi32>
  tile.store %b, %y[%r] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::vector<int32_t> x(64), y(64, -1);
  for (int i = 0; i < 64; ++i)
    x[i] = i * 3 + 1;
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 64),
       emu::KernelArg::buffer(y.data(), 64)});
  for (int col = 0; col < 16; ++col) {
    int32_t acc = 0;
    for (int row = 0; row < 4; ++row) {
      acc += x[row * 16 + col];
      EXPECT_EQ(y[row * 16 + col], acc) << row << "," << col;
    }
  }
}

// Tensor atomics: 256 values counted into 16 bins.
TEST_P(Distribution, AtomicCount) {
  const char *src = R"(
tile.kernel @k(%keys: !tile.ptr<i32>, %bins: !tile.ptr<i32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %k = tile.load %keys[%r] : !tile.ptr<i32>, tensor<256xi32> -> tensor<256xi32>
  %one = arith.constant dense<1> : tensor<256xi32>
  %old = tile.atomic_rmw add, %bins[%k], %one : !tile.ptr<i32>, tensor<256xi32>, tensor<256xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  std::vector<int32_t> keys(256), bins(16, 0), want(16, 0);
  for (int i = 0; i < 256; ++i) {
    keys[i] = (i * i + 3) % 16;
    ++want[keys[i]];
  }
  run(c, "k", 2,
      {emu::KernelArg::buffer(keys.data(), 256),
       emu::KernelArg::buffer(bins.data(), 16)});
  for (int b = 0; b < 16; ++b)
    EXPECT_EQ(bins[b], 2 * want[b]) << "bin " << b;
}

// int64 offsets past 2^31 elements reach the right bytes: a byte buffer of
// 2^31 + 4 KiB (reserved lazily, only the touched pages exist) is written at
// 2^31 + 1000 + i, computed from an i64 base argument.
TEST_P(Distribution, Int64OffsetsPast2GiB) {
  const char *src = R"(
tile.kernel @k(%y: !tile.ptr<i8>, %base: i64) {
  %r = tile.range 0 to 128 : tensor<128xi64>
  %b = tile.splat %base : i64 -> tensor<128xi64>
  %o = arith.addi %b, %r : tensor<128xi64>
  %v = arith.trunci %r : tensor<128xi64> to tensor<128xi8>
  tile.store %v, %y[%o] : tensor<128xi8>, !tile.ptr<i8>, tensor<128xi64>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  ASSERT_TRUE(c.module);
  const int64_t size = (int64_t(1) << 31) + 4096;
  void *mem = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto *bytes = static_cast<uint8_t *>(mem);
  const int64_t base = (int64_t(1) << 31) + 1000;
  run(c, "k", 1,
      {emu::KernelArg::buffer(bytes, size), emu::KernelArg::i64(base)});
  for (int64_t i = 0; i < 128; ++i)
    EXPECT_EQ(bytes[base + i], uint8_t(i)) << "byte " << i;
  // Nothing landed where a 32-bit wrap of the offset would have put it.
  for (int64_t i = 0; i < 128; ++i)
    EXPECT_EQ(bytes[1000 + i], 0) << "byte " << i;
  munmap(mem, size);
}

// A store past the end of a buffer is an emulator error naming the op and the
// kernel source line of the tile.store (line 5 of the source below).
TEST_P(Distribution, OutOfBoundsStoreIsCaught) {
  const char *src = R"(
tile.kernel @k(%y: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = arith.constant dense<1.0> : tensor<128xf32>
  tile.store %v, %y[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
})";
  Compiled c = compile(src, GetParam());
  ASSERT_TRUE(c.module);
  std::vector<float> y(100);
  llvm::Error e = c.module->launchArgs("k", {1, 1, 1}, c.block,
                                       {emu::KernelArg::buffer(y.data(), 100)});
  ASSERT_TRUE(bool(e));
  std::string msg = llvm::toString(std::move(e));
  EXPECT_NE(msg.find("out-of-bounds store"), std::string::npos) << msg;
  EXPECT_NE(msg.find(":5:3:"), std::string::npos) << msg;
}

// Layout conversions on the emulator: a tile is loaded in one explicit
// layout, converted and stored from another; the output must equal the
// input. The cases cover each mechanism of ConvertLayout.h: LDS with
// 16-byte accesses on both sides, LDS with a true transpose (16-byte stores,
// byte loads), shuffles of 16-bit elements, and a register permutation.
struct ConversionCase {
  const char *name;
  int rows, cols, waves;
  const char *elem; // i8, f16 or f32
  // {sizePerThread, threadsPerWave, wavesPerCTA, order} for 64 and 32 lanes.
  const char *src64, *dst64, *src32, *dst32;
};

std::string blocked(const char *params) {
  return std::string("#tile.blocked<{") + params + "}>";
}

/// A kernel that loads x in layout `s`, converts to `d` and stores to y,
/// with every tensor's layout explicit.
std::string conversionKernel(const ConversionCase &c, const std::string &s,
                             const std::string &d) {
  std::string R = std::to_string(c.rows), C = std::to_string(c.cols);
  std::string E = c.elem;
  auto offsets = [&](const std::string &p, const std::string &L) {
    std::string s0 = "#tile.slice<{dim = 1, parent = " + L + "}>";
    std::string s1 = "#tile.slice<{dim = 0, parent = " + L + "}>";
    std::string t2 = "tensor<" + R + "x" + C + "xi32, " + L + ">";
    return "  %" + p + "r = tile.range 0 to " + R + " : tensor<" + R +
           "xi32, " + s0 + ">\n  %" + p + "k = arith.constant dense<" + C +
           "> : tensor<" + R + "xi32, " + s0 + ">\n  %" + p +
           "ro = arith.muli %" + p + "r, %" + p + "k : tensor<" + R + "xi32, " +
           s0 + ">\n  %" + p + "r1 = tile.expand_dims %" + p +
           "ro, 1 : tensor<" + R + "xi32, " + s0 + "> -> tensor<" + R +
           "x1xi32, " + L + ">\n  %" + p + "r2 = tile.broadcast %" + p +
           "r1 : tensor<" + R + "x1xi32, " + L + "> -> " + t2 + "\n  %" + p +
           "c = tile.range 0 to " + C + " : tensor<" + C + "xi32, " + s1 +
           ">\n  %" + p + "c1 = tile.expand_dims %" + p + "c, 0 : tensor<" + C +
           "xi32, " + s1 + "> -> tensor<1x" + C + "xi32, " + L + ">\n  %" + p +
           "c2 = tile.broadcast %" + p + "c1 : tensor<1x" + C + "xi32, " + L +
           "> -> " + t2 + "\n  %" + p + "o = arith.addi %" + p + "r2, %" + p +
           "c2 : " + t2 + "\n";
  };
  std::string ts = "tensor<" + R + "x" + C + "x" + E + ", " + s + ">";
  std::string td = "tensor<" + R + "x" + C + "x" + E + ", " + d + ">";
  return "tile.kernel @k(%x: !tile.ptr<" + E + ">, %y: !tile.ptr<" + E +
         ">) attributes {knobs = [#tile.knob<\"num_waves\" : i32 = " +
         std::to_string(c.waves) + ">]} {\n" + offsets("s", s) +
         offsets("d", d) + "  %v = tile.load %x[%so] : !tile.ptr<" + E +
         ">, tensor<" + R + "x" + C + "xi32, " + s + "> -> " + ts +
         "\n  %w = tile.convert_layout %v : " + ts + " -> " + td +
         "\n  tile.store %w, %y[%do] : " + td + ", !tile.ptr<" + E +
         ">, tensor<" + R + "x" + C + "xi32, " + d + ">\n  tile.return\n}\n";
}

class Conversion
    : public ::testing::TestWithParam<std::tuple<std::string, ConversionCase>> {
};

TEST_P(Conversion, RoundTripsEveryElement) {
  auto [target, cc] = GetParam();
  bool wave64 = TargetInfo::create(target)->waveSize() == 64;
  std::string src = conversionKernel(cc, blocked(wave64 ? cc.src64 : cc.src32),
                                     blocked(wave64 ? cc.dst64 : cc.dst32));
  Compiled c = compile(src, target);
  size_t n = size_t(cc.rows) * cc.cols;
  unsigned bytes = std::string(cc.elem) == "i8"    ? 1
                   : std::string(cc.elem) == "f16" ? 2
                                                   : 4;
  // Distinct bit patterns that are valid in every element type (no NaNs).
  std::vector<uint8_t> x(n * bytes), y(n * bytes, 0xee);
  for (size_t i = 0; i < n; ++i)
    for (unsigned b = 0; b < bytes; ++b)
      x[i * bytes + b] = uint8_t((i >> (8 * b)) * 37 + 11 * b + i) & 0x3f;
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), n),
       emu::KernelArg::buffer(y.data(), n)});
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(0, std::memcmp(&x[i * bytes], &y[i * bytes], bytes))
        << "element (" << i / cc.cols << ", " << i % cc.cols << ")";
}

const ConversionCase conversionCases[] = {
    {"LanesTransposedI8", 64, 128, 4, "i8",
     "sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 16], threadsPerWave = [32, 2], wavesPerCTA = [2, 2], "
     "order = [0, 1]",
     "sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 16], threadsPerWave = [32, 1], wavesPerCTA = [2, 2], "
     "order = [0, 1]"},
    {"TransposedI8", 64, 128, 4, "i8",
     "sizePerThread = [1, 16], threadsPerWave = [8, 8], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [16, 1], threadsPerWave = [4, 16], wavesPerCTA = [1, 4], "
     "order = [0, 1]",
     "sizePerThread = [1, 16], threadsPerWave = [4, 8], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [16, 1], threadsPerWave = [4, 8], wavesPerCTA = [1, 4], "
     "order = [0, 1]"},
    {"TransposedF32", 32, 64, 2, "f32",
     "sizePerThread = [1, 4], threadsPerWave = [4, 16], wavesPerCTA = [2, 1], "
     "order = [1, 0]",
     "sizePerThread = [4, 1], threadsPerWave = [16, 4], wavesPerCTA = [1, 2], "
     "order = [0, 1]",
     "sizePerThread = [1, 4], threadsPerWave = [2, 16], wavesPerCTA = [2, 1], "
     "order = [1, 0]",
     "sizePerThread = [4, 1], threadsPerWave = [16, 2], wavesPerCTA = [1, 2], "
     "order = [0, 1]"},
    {"ShuffleF16", 8, 8, 1, "f16",
     "sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], "
     "order = [0, 1]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 1], "
     "order = [0, 1]"},
    {"ShuffleI8", 8, 8, 1, "i8",
     "sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], "
     "order = [0, 1]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 1], threadsPerWave = [8, 4], wavesPerCTA = [1, 1], "
     "order = [0, 1]"},
    {"RegistersF32", 2, 128, 1, "f32",
     "sizePerThread = [2, 2], threadsPerWave = [1, 64], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [2, 2], threadsPerWave = [1, 64], wavesPerCTA = [1, 1], "
     "order = [0, 1]",
     "sizePerThread = [2, 2], threadsPerWave = [1, 32], wavesPerCTA = [1, 1], "
     "order = [1, 0]",
     "sizePerThread = [2, 2], threadsPerWave = [1, 32], wavesPerCTA = [1, 1], "
     "order = [0, 1]"},
    {"WavesSwapF32", 16, 64, 4, "f32",
     "sizePerThread = [1, 4], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 4], threadsPerWave = [16, 4], wavesPerCTA = [1, 4], "
     "order = [1, 0]",
     "sizePerThread = [1, 4], threadsPerWave = [2, 16], wavesPerCTA = [4, 1], "
     "order = [1, 0]",
     "sizePerThread = [1, 4], threadsPerWave = [16, 2], wavesPerCTA = [1, 4], "
     "order = [1, 0]"},
};

INSTANTIATE_TEST_SUITE_P(
    Layouts, Conversion,
    ::testing::Combine(::testing::Values("gfx942", "gfx950", "sm_90"),
                       ::testing::ValuesIn(conversionCases)),
    [](const auto &info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
    });

INSTANTIATE_TEST_SUITE_P(Targets, Distribution,
                         ::testing::Values("gfx942", "gfx950", "sm_90"));

//===----------------------------------------------------------------------===//
// Masked tails: a load masked by `offsets < n` over a 1024-element tile
// (bounds-checked buffer loads on gfx942/gfx950, predicated loads on
// sm_90), and a mask that is not such a bound (predicated everywhere).
//===----------------------------------------------------------------------===//

struct TailCase {
  const char *elem; // "i8", "fp8", "bf16" or "f32"
  int32_t n;
  const char *pred; // "slt": offsets < n; "sge": offsets >= n (not a bound)
};

/// The tile element type of `elem` on `target` (fp8 follows the target).
std::string tileElem(const std::string &elem, const std::string &target) {
  if (elem == "fp8")
    return target == "gfx942" ? "f8E4M3FNUZ" : "f8E4M3FN";
  return elem;
}

unsigned elemBytes(const std::string &elem) {
  return elem == "f32" ? 4 : elem == "bf16" ? 2 : 1;
}

class MaskedTail
    : public ::testing::TestWithParam<std::tuple<std::string, TailCase>> {};

// y[i] = x[i] where the mask holds (a masked copy; y keeps its bytes
// elsewhere), and z[i] = the loaded value everywhere (0 where the mask
// fails: the load's result without `other`).
TEST_P(MaskedTail, CopiesEveryElementAndZeroesTheRest) {
  auto [target, tc] = GetParam();
  std::string T = tileElem(tc.elem, target);
  std::string P = "!tile.ptr<" + T + ">";
  std::string V = "tensor<1024x" + T + ">";
  std::string src = R"(
tile.kernel @k(%x: )" +
                    P + R"( {tile.divisibility = 16 : i64},
               %y: )" +
                    P + R"( {tile.divisibility = 16 : i64},
               %z: )" +
                    P + R"( {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi )" +
                    tc.pred + R"(, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : )" +
                    P + R"(, tensor<1024xi32> -> )" + V + R"(
  tile.store %v, %y[%r] mask(%m : tensor<1024xi1>) : )" +
                    V + ", " + P + R"(, tensor<1024xi32>
  tile.store %v, %z[%r] : )" +
                    V + ", " + P + R"(, tensor<1024xi32>
  tile.return
})";
  Compiled c = compile(src, target);
  const unsigned eb = elemBytes(tc.elem);
  const size_t bytes = 1024 * eb;
  std::mt19937 rng(tc.n + 7);
  std::vector<uint8_t> x(bytes), y(bytes, 0xA5), z(bytes, 0xA5);
  for (uint8_t &b : x)
    b = uint8_t(rng());
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 1024),
       emu::KernelArg::buffer(y.data(), 1024),
       emu::KernelArg::buffer(z.data(), 1024), emu::KernelArg::i32(tc.n)});
  for (int32_t i = 0; i < 1024; ++i) {
    bool kept = std::string(tc.pred) == "slt" ? i < tc.n : i >= tc.n;
    for (unsigned k = 0; k < eb; ++k) {
      size_t at = size_t(i) * eb + k;
      ASSERT_EQ(y[at], kept ? x[at] : 0xA5)
          << "y, element " << i << " byte " << k << " (n = " << tc.n << ")";
      ASSERT_EQ(z[at], kept ? x[at] : 0)
          << "z, element " << i << " byte " << k << " (n = " << tc.n << ")";
    }
  }
}

const TailCase tailCases[] = {
    {"i8", 1000, "slt"},
    {"i8", 1001, "slt"},
    {"i8", 1023, "slt"},
    {"i8", 1024, "slt"},
    {"i8", 0, "slt"},
    {"i8", -5, "slt"},
    {"i8", 3, "slt"},
    {"fp8", 1000, "slt"},
    {"fp8", 1001, "slt"},
    {"fp8", 1022, "slt"},
    {"fp8", 1023, "slt"},
    {"f32", 1000, "slt"},
    {"f32", 1001, "slt"},
    {"f32", 1023, "slt"},
    {"f32", 1024, "slt"},
    {"bf16", 1001, "slt"},
    {"bf16", 1022, "slt"},
    {"bf16", 1023, "slt"},
    // Not a bound: the predicated path, on every target.
    {"i8", 1001, "sge"},
    {"fp8", 517, "sge"},
    {"f32", 1001, "sge"},
};

INSTANTIATE_TEST_SUITE_P(
    Targets, MaskedTail,
    ::testing::Combine(::testing::Values("gfx942", "gfx950", "sm_90"),
                       ::testing::ValuesIn(tailCases)),
    [](const auto &info) {
      const TailCase &tc = std::get<1>(info.param);
      std::string n =
          tc.n < 0 ? "m" + std::to_string(-tc.n) : std::to_string(tc.n);
      return std::get<0>(info.param) + "_" + tc.elem + "_" + tc.pred + "_" + n;
    });

//===----------------------------------------------------------------------===//
// Matrix-instruction layouts (AMD): the accumulator and operand encodings
// distributed through their linear layouts.
//===----------------------------------------------------------------------===//

class MatrixLayouts
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

/// Defines `#L` as the encoding under test and `#S0`, `#S1` as its slices.
std::string withLayout(std::string src, const std::string &layout) {
  return "#L = " + layout +
         "\n#S0 = #tile.slice<{dim = 0, parent = #L}>\n"
         "#S1 = #tile.slice<{dim = 1, parent = #L}>\n" +
         src;
}

// A [64, 64] tile moved into the layout under test, then: row maxima
// (a reduction along dim 1, in registers and across lanes), broadcast back
// and subtracted (slice, expand_dims, broadcast), column sums (along dim 0,
// across waves too), and stores of both in that layout.
TEST_P(MatrixLayouts, ReduceBroadcastStore) {
  auto [target, layout] = GetParam();
  std::string src = withLayout(R"(
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}) attributes {
    knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %rows = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %ro = arith.muli %rows, %c64 : tensor<64xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r2 = tile.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %c1 = tile.expand_dims %rows, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c2 = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %o = arith.addi %r2, %c2 : tensor<64x64xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<64x64xi32> -> tensor<64x64xf32>
  %w = tile.convert_layout %v : tensor<64x64xf32> -> tensor<64x64xf32, #L>
  %m = tile.reduce max %w, 1 : tensor<64x64xf32, #L> -> tensor<64xf32, #S1>
  %m1 = tile.expand_dims %m, 1 : tensor<64xf32, #S1> -> tensor<64x1xf32, #L>
  %mb = tile.broadcast %m1 : tensor<64x1xf32, #L> -> tensor<64x64xf32, #L>
  %d = arith.subf %w, %mb : tensor<64x64xf32, #L>
  %s = tile.reduce add %d, 0 : tensor<64x64xf32, #L> -> tensor<64xf32, #S0>
  tile.store %d, %y[%o] : tensor<64x64xf32, #L>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.store %s, %z[%rows] : tensor<64xf32, #S0>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
})",
                               layout);
  Compiled c = compile(src, target);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<float> x(4096), y(4096, NAN), z(64, NAN);
  for (float &v : x)
    v = float(dist(rng)); // integers: sums are exact in any order
  run(c, "k", 1,
      {emu::KernelArg::buffer(x.data(), 4096),
       emu::KernelArg::buffer(y.data(), 4096),
       emu::KernelArg::buffer(z.data(), 64)});
  std::vector<float> want(4096), colSum(64, 0.0f);
  for (int r = 0; r < 64; ++r) {
    float m = -INFINITY;
    for (int j = 0; j < 64; ++j)
      m = std::max(m, x[r * 64 + j]);
    for (int j = 0; j < 64; ++j) {
      want[r * 64 + j] = x[r * 64 + j] - m;
      colSum[j] += want[r * 64 + j];
    }
  }
  for (int i = 0; i < 4096; ++i)
    ASSERT_EQ(y[i], want[i]) << "element " << i;
  for (int j = 0; j < 64; ++j)
    ASSERT_EQ(z[j], colSum[j]) << "column " << j;
}

// C = A * B on one program through tile.dot with an explicit accumulator
// layout: the 32x32 instructions (which layout assignment does not prefer
// for this K) and a transposed accumulator, for fp8 and bf16 operands made
// exact.
class MatrixDot : public MatrixLayouts {};

TEST_P(MatrixDot, DotWithExplicitAccumulator) {
  auto [target, layout] = GetParam();
  std::string fp8 = target == "gfx942" ? "f8E4M3FNUZ" : "f8E4M3FN";
  std::string ver = target == "gfx942" ? "3" : "4";
  std::string l = layout;
  l.replace(l.find("version = 3"), 11, "version = " + ver);
  bool bf16 = l.find("instrShape = [32, 32, 8]") != std::string::npos ||
              l.find("instrShape = [16, 16, 16]") != std::string::npos;
  std::string et = bf16 ? "bf16" : fp8;
  std::string st = bf16 ? "i16" : "i8";
  std::string src = R"(
tile.kernel @k(%a: !tile.ptr<ST>, %b: !tile.ptr<ST>, %c: !tile.ptr<f32>) attributes {
    knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %ro = arith.muli %r, %c64 : tensor<64xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r2 = tile.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %c1 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c2 = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %o = arith.addi %r2, %c2 : tensor<64x64xi32>
  %ar = tile.load %a[%o] : !tile.ptr<ST>, tensor<64x64xi32> -> tensor<64x64xST>
  %br = tile.load %b[%o] : !tile.ptr<ST>, tensor<64x64xi32> -> tensor<64x64xST>
  %av = arith.bitcast %ar : tensor<64x64xST> to tensor<64x64xET>
  %bv = arith.bitcast %br : tensor<64x64xST> to tensor<64x64xET>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #L>
  %d = tile.dot %av, %bv, %z : tensor<64x64xET>, tensor<64x64xET> -> tensor<64x64xf32, #L>
  tile.store %d, %c[%o] : tensor<64x64xf32, #L>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
})";
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"ST", st}, {"ET", et}}) {
    for (size_t p; (p = src.find(from)) != std::string::npos;)
      src.replace(p, from.size(), to);
  }
  Compiled c = compile(withLayout(src, l), target);
  // Small integers: exact in fp8 and bf16, products and sums exact in f32.
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> dist(-3, 3);
  std::vector<int> A(4096), B(4096);
  std::vector<uint8_t> a8(4096), b8(4096);
  std::vector<uint16_t> a16(4096), b16(4096);
  auto bf16Bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t(u >> 16);
  };
  // e4m3 (fn and fnuz) codes of -3..3: sign, then exponent and mantissa.
  auto fp8Bits = [&](int v) -> uint8_t {
    static const uint8_t fn[] = {0x00, 0x38, 0x40, 0x44};
    static const uint8_t fnuz[] = {0x00, 0x40, 0x48, 0x4c};
    uint8_t mag = (target == "gfx942" ? fnuz : fn)[std::abs(v)];
    return v < 0 ? uint8_t(mag | 0x80) : mag;
  };
  for (int i = 0; i < 4096; ++i) {
    A[i] = dist(rng);
    B[i] = dist(rng);
    a8[i] = fp8Bits(A[i]);
    b8[i] = fp8Bits(B[i]);
    a16[i] = bf16Bits(float(A[i]));
    b16[i] = bf16Bits(float(B[i]));
  }
  std::vector<float> C(4096, NAN);
  if (bf16)
    run(c, "k", 1,
        {emu::KernelArg::buffer(a16.data(), 4096 * 2),
         emu::KernelArg::buffer(b16.data(), 4096 * 2),
         emu::KernelArg::buffer(C.data(), 4096)});
  else
    run(c, "k", 1,
        {emu::KernelArg::buffer(a8.data(), 4096),
         emu::KernelArg::buffer(b8.data(), 4096),
         emu::KernelArg::buffer(C.data(), 4096)});
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      int want = 0;
      for (int k = 0; k < 64; ++k)
        want += A[i * 64 + k] * B[k * 64 + j];
      ASSERT_EQ(C[i * 64 + j], float(want)) << "C[" << i << "][" << j << "]";
    }
}

#define MFMA(shape, waves, t)                                                  \
  "#tile.mfma<{version = 3, instrShape = [" shape "], wavesPerCTA = [" waves   \
  "], transposed = " t "}>"

#define ACCUMULATORS                                                           \
  MFMA("16, 16, 32", "2, 2", "false"), MFMA("32, 32, 16", "4, 1", "true"),     \
      MFMA("32, 32, 8", "1, 4", "false"), MFMA("16, 16, 16", "2, 2", "true")

INSTANTIATE_TEST_SUITE_P(
    Amd, MatrixLayouts,
    ::testing::Combine(
        ::testing::Values("gfx942", "gfx950"),
        ::testing::Values(ACCUMULATORS,
                          "#tile.dot_operand<{opIdx = 0, parent = " MFMA(
                              "16, 16, 32", "2, 2", "false") ", kWidth = 8}>",
                          "#tile.dot_operand<{opIdx = 1, parent = " MFMA(
                              "32, 32, 8", "1, 4", "false") ", kWidth = 4}>")));

INSTANTIATE_TEST_SUITE_P(Amd, MatrixDot,
                         ::testing::Combine(::testing::Values("gfx942",
                                                              "gfx950"),
                                            ::testing::Values(ACCUMULATORS)));

// gfx950's double-rate v_mfma_f32_32x32x64_f8f6f4 (K = 64 is one
// instruction's K), its operands two runs of 16 K per lane.
INSTANTIATE_TEST_SUITE_P(
    Gfx950DoubleRate, MatrixDot,
    ::testing::Combine(::testing::Values("gfx950"),
                       ::testing::Values(MFMA("32, 32, 64", "2, 2", "false"),
                                         MFMA("32, 32, 64", "1, 4", "true"))));

} // namespace
