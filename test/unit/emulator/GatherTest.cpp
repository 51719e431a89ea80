//===- GatherTest.cpp - tile.gather on the emulator -----------------------===//
//
// Lowers small tile kernels that gather along each axis of 1-D and 2-D
// tiles (f32, i32 and i8 elements, several wave counts) and runs them on
// the emulator against a direct evaluation of the op's definition,
// including indices out of range (negative and past the axis), which read
// 0; and gathers in a loop, from a source fixed outside it (staged once,
// before the loop) beside one that changes every iteration.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

struct Shape {
  int64_t rows, cols; // rows == 1: a 1-D tile of `cols`
};

std::string tensorType(Shape s, const std::string &elem) {
  return "tensor<" + (s.rows > 1 ? std::to_string(s.rows) + "x" : "") +
         std::to_string(s.cols) + "x" + elem + ">";
}

/// Row-major offsets of a tile of shape `s`, as tile IR defining `%name`.
std::string offsets(const std::string &name, Shape s) {
  std::string t = tensorType(s, "i32");
  std::string cols = std::to_string(s.cols);
  if (s.rows == 1)
    return "  %" + name + " = tile.range 0 to " + cols + " : " + t + "\n";
  std::string ir = "  %" + name + "_c = tile.range 0 to " + cols +
                   " : tensor<" + cols + "xi32>\n";
  std::string rows = std::to_string(s.rows);
  std::string r1 = "tensor<" + rows + "x1xi32>",
              c1 = "tensor<1x" + cols + "xi32>";
  ir += "  %" + name + "_r = tile.range 0 to " + rows + " : tensor<" + rows +
        "xi32>\n";
  ir += "  %" + name + "_r1 = tile.expand_dims %" + name + "_r, 1 : tensor<" +
        rows + "xi32> -> " + r1 + "\n";
  ir += "  %" + name + "_c1 = tile.expand_dims %" + name + "_c, 0 : tensor<" +
        cols + "xi32> -> " + c1 + "\n";
  ir += "  %" + name + "_rb = tile.broadcast %" + name + "_r1 : " + r1 +
        " -> " + t + "\n";
  ir += "  %" + name + "_cb = tile.broadcast %" + name + "_c1 : " + c1 +
        " -> " + t + "\n";
  ir += "  %" + name + "_w = arith.constant dense<" + cols + "> : " + t + "\n";
  ir += "  %" + name + "_rw = arith.muli %" + name + "_rb, %" + name +
        "_w : " + t + "\n";
  ir += "  %" + name + " = arith.addi %" + name + "_rw, %" + name +
        "_cb : " + t + "\n";
  return ir;
}

std::string gatherKernel(Shape src, Shape idx, int axis,
                         const std::string &elem, int64_t waves) {
  std::string ts = tensorType(src, elem), ti = tensorType(idx, "i32"),
              to = tensorType(idx, elem);
  std::string ir = "tile.kernel @g(%src: !tile.ptr<" + elem +
                   ">, %idx: !tile.ptr<i32>, %out: !tile.ptr<" + elem +
                   ">) attributes {knobs = [#tile.knob<\"num_waves\" : i32 = " +
                   std::to_string(waves) + ">]} {\n";
  ir += offsets("so", src) + offsets("io", idx);
  ir += "  %s = tile.load %src[%so] : !tile.ptr<" + elem + ">, " +
        tensorType(src, "i32") + " -> " + ts + "\n";
  ir +=
      "  %i = tile.load %idx[%io] : !tile.ptr<i32>, " + ti + " -> " + ti + "\n";
  ir += "  %g = tile.gather %s[%i], " + std::to_string(axis) + " : " + ts +
        ", " + ti + " -> " + to + "\n";
  ir += "  tile.store %g, %out[%io] : " + to + ", !tile.ptr<" + elem + ">, " +
        ti + "\n  tile.return\n}\n";
  return ir;
}

/// Runs one gather of 32-bit or 8-bit elements (raw bits) and compares.
template <typename T>
void runGather(const std::string &target, Shape src, Shape idx, int axis,
               const std::string &elem, int64_t waves) {
  SCOPED_TRACE(target + " " + tensorType(src, elem) + "[" +
               tensorType(idx, "i32") + "], axis " + std::to_string(axis) +
               ", num_waves=" + std::to_string(waves));
  std::unique_ptr<Module> emu = emulatorModuleFor(
      gatherKernel(src, idx, axis, elem, waves), "gather.mlir", target, {});
  ASSERT_TRUE(emu);
  auto names = emu->kernelNames();
  auto bs = emu->knownBlockSize(names[0]);
  ASSERT_TRUE((bool)bs && bs->has_value());

  std::mt19937 rng(7);
  int64_t extent = axis == 0 && src.rows > 1 ? src.rows : src.cols;
  std::vector<T> s(src.rows * src.cols);
  std::normal_distribution<float> nd;
  for (T &v : s)
    v = elem == "f32" ? (T)bits(nd(rng)) : (T)rng(); // finite floats
  std::vector<int32_t> ix(idx.rows * idx.cols);
  std::uniform_int_distribution<int32_t> d(-2, (int32_t)extent + 1);
  for (int32_t &v : ix)
    v = d(rng);
  ix[0] = -1, ix[1] = (int32_t)extent; // both ends out of range
  std::vector<T> out(ix.size(), (T)0x5a);
  EXPECT_OK(
      emu->launchArgs(names[0], {1, 1, 1}, **bs,
                      {KernelArg::buffer(s.data(), (int64_t)s.size()),
                       KernelArg::buffer(ix.data(), (int64_t)ix.size()),
                       KernelArg::buffer(out.data(), (int64_t)out.size())}));
  int bad = 0;
  for (int64_t r = 0; r < idx.rows; ++r)
    for (int64_t c = 0; c < idx.cols; ++c) {
      int32_t i = ix[r * idx.cols + c];
      T want = 0;
      if (i >= 0 && i < extent)
        want = axis == 1 || src.rows == 1 ? s[r * src.cols + i]
                                          : s[(int64_t)i * src.cols + c];
      if (out[r * idx.cols + c] != want && bad++ < 5)
        ADD_FAILURE() << "element (" << r << ", " << c << ") index " << i
                      << ": " << (int64_t)out[r * idx.cols + c] << ", expected "
                      << (int64_t)want;
    }
  EXPECT_EQ(bad, 0);
}

TEST(TileGather, OneDimensionalAcrossWaves) {
  runGather<int32_t>("gfx942", {1, 1024}, {1, 128}, 0, "i32", 4);
  runGather<int32_t>("gfx950", {1, 256}, {1, 512}, 0, "i32", 2);
  runGather<int32_t>("sm_90", {1, 512}, {1, 64}, 0, "i32", 4);
}

TEST(TileGather, AlongEachAxisOfATwoDimensionalTile) {
  runGather<uint32_t>("gfx942", {8, 64}, {8, 32}, 1, "f32", 4);
  runGather<uint32_t>("gfx942", {16, 32}, {4, 32}, 0, "f32", 2);
  runGather<int32_t>("sm_90", {8, 64}, {8, 16}, 1, "i32", 2);
}

TEST(TileGather, NarrowElements) {
  runGather<int8_t>("gfx942", {4, 128}, {4, 64}, 1, "i8", 1);
}

/// `steps` rounds of i = src[i] (a pointer chase over a fixed table, whose
/// copy in LDS is written once before the loop) beside a gather from
/// src + k (a source of the iteration, staged in it) at the same indices,
/// counted wherever it is not src[i] + k: both hold only if neither copy
/// clobbered the other.
const char *kChaseKernel = R"(
tile.kernel @chase(%src: !tile.ptr<i32>, %idx: !tile.ptr<i32>,
                   %out: !tile.ptr<i32>, %wrong: !tile.ptr<i32>, %steps: i32)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0> : tensor<128xi32>
  %so = tile.range 0 to 1024 : tensor<1024xi32>
  %io = tile.range 0 to 128 : tensor<128xi32>
  %s = tile.load %src[%so] : !tile.ptr<i32>, tensor<1024xi32> -> tensor<1024xi32>
  %i0 = tile.load %idx[%io] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %r:2 = scf.for %k = %c0 to %steps step %c1 iter_args(%i = %i0, %n = %z)
      -> (tensor<128xi32>, tensor<128xi32>) : i32 {
    %kv = tile.splat %k : i32 -> tensor<1024xi32>
    %moved = arith.addi %s, %kv : tensor<1024xi32>
    %a = tile.gather %s[%i], 0 : tensor<1024xi32>, tensor<128xi32> -> tensor<128xi32>
    %b = tile.gather %moved[%i], 0 : tensor<1024xi32>, tensor<128xi32> -> tensor<128xi32>
    %ks = tile.splat %k : i32 -> tensor<128xi32>
    %ak = arith.addi %a, %ks : tensor<128xi32>
    %ne = arith.cmpi ne, %b, %ak : tensor<128xi32>
    %ne32 = arith.extui %ne : tensor<128xi1> to tensor<128xi32>
    %n1 = arith.addi %n, %ne32 : tensor<128xi32>
    scf.yield %a, %n1 : tensor<128xi32>, tensor<128xi32>
  }
  tile.store %r#0, %out[%io] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.store %r#1, %wrong[%io] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
)";

TEST(TileGather, InALoopOverAFixedSource) {
  for (const char *target : {"gfx942", "sm_90"}) {
    SCOPED_TRACE(target);
    std::unique_ptr<Module> emu =
        emulatorModuleFor(kChaseKernel, "chase.mlir", target, {});
    ASSERT_TRUE(emu);
    auto names = emu->kernelNames();
    auto bs = emu->knownBlockSize(names[0]);
    ASSERT_TRUE((bool)bs && bs->has_value());
    std::mt19937 rng(3);
    std::uniform_int_distribution<int32_t> d(0, 1023);
    std::vector<int32_t> s(1024), ix(128), out(128, -7), wrong(128, -7);
    for (int32_t &v : s)
      v = d(rng);
    for (int32_t &v : ix)
      v = d(rng);
    const int32_t steps = 5;
    EXPECT_OK(emu->launchArgs(
        names[0], {1, 1, 1}, **bs,
        {KernelArg::buffer(s.data(), 1024), KernelArg::buffer(ix.data(), 128),
         KernelArg::buffer(out.data(), 128),
         KernelArg::buffer(wrong.data(), 128), KernelArg::i32(steps)}));
    int bad = 0;
    for (int u = 0; u < 128; ++u) {
      int32_t want = ix[u];
      for (int k = 0; k < steps; ++k)
        want = s[want];
      if ((out[u] != want || wrong[u] != 0) && bad++ < 5)
        ADD_FAILURE() << "lane " << u << ": " << out[u] << ", expected " << want
                      << "; " << wrong[u] << " rounds disagreed";
    }
    EXPECT_EQ(bad, 0);
  }
}

} // namespace
