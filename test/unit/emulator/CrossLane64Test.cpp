//===- CrossLane64Test.cpp - 64-bit reductions and scans on the emulator --===//
//
// Lowers tile kernels whose tile.reduce / tile.scan combine i64 or f64
// elements across the lanes and waves of a workgroup (the values cross
// lanes as two 32-bit halves, the waves' partials meet in 8-byte LDS slots)
// and runs them on the emulator against a direct evaluation of the ops'
// definitions in C++:
// - add, max, min, umax and umin reductions and inclusive / exclusive /
//   reverse scans of random i64 values (negatives, values past 2^32, full
//   64-bit patterns), 1-D over several waves and along the rows of a 2-D
//   tile;
// - f64 max reductions and add scans of integer-valued doubles (exact in
//   any order of combination);
// - an argmax by packed keys: (order-preserving u32 key of the f32 value
//   << 32) | ~index, reduced with umax, gives the largest value's smallest
//   index, negative values included.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

/// A tile of `rows` x `cols` (rows == 1: a 1-D tile of `cols`); the
/// reductions and scans run along the columns.
struct Shape {
  int64_t rows, cols, waves;
  int64_t size() const { return rows * cols; }
  std::string str() const {
    return std::to_string(rows) + "x" + std::to_string(cols) + " over " +
           std::to_string(waves) + " waves";
  }
};

std::string tensor(const Shape &s, const std::string &elem) {
  return "tensor<" + (s.rows > 1 ? std::to_string(s.rows) + "x" : "") +
         std::to_string(s.cols) + "x" + elem + ">";
}

/// The kernel's header and `%o`, the row-major offsets of an i32 tile of
/// shape `s` (of a 2-D tile also `%col`, the column indices).
std::string prologue(const Shape &s, const std::string &args) {
  std::string t = tensor(s, "i32");
  std::string ir = "tile.kernel @k(" + args +
                   ") attributes {knobs = [#tile.knob<\"num_waves\" : i32 = " +
                   std::to_string(s.waves) + ">]} {\n";
  std::string c = std::to_string(s.cols);
  if (s.rows == 1) {
    ir += "  %o = tile.range 0 to " + c + " : " + t + "\n";
    return ir;
  }
  std::string r = std::to_string(s.rows);
  ir += "  %c = tile.range 0 to " + c + " : tensor<" + c + "xi32>\n";
  ir += "  %r = tile.range 0 to " + r + " : tensor<" + r + "xi32>\n";
  ir += "  %r1 = tile.expand_dims %r, 1 : tensor<" + r + "xi32> -> tensor<" +
        r + "x1xi32>\n";
  ir += "  %c1 = tile.expand_dims %c, 0 : tensor<" + c + "xi32> -> tensor<1x" +
        c + "xi32>\n";
  ir += "  %rb = tile.broadcast %r1 : tensor<" + r + "x1xi32> -> " + t + "\n";
  ir += "  %col = tile.broadcast %c1 : tensor<1x" + c + "xi32> -> " + t + "\n";
  ir += "  %w = arith.constant dense<" + c + "> : " + t + "\n";
  ir += "  %rw = arith.muli %rb, %w : " + t + "\n";
  ir += "  %o = arith.addi %rw, %col : " + t + "\n";
  return ir;
}

/// Stores `value` (the reduction of a tile of shape `s`: a scalar or one
/// element per row) to `%y`.
std::string storeReduced(const Shape &s, const std::string &value,
                         const std::string &elem) {
  if (s.rows == 1)
    return "  %c0 = arith.constant 0 : i32\n  tile.store " + value +
           ", %y[%c0] : " + elem + ", !tile.ptr<" + elem + ">, i32\n";
  std::string r = std::to_string(s.rows);
  std::string tr = "tensor<" + r + "x" + elem + ">";
  return "  %ro = tile.range 0 to " + r + " : tensor<" + r + "xi32>\n" +
         "  tile.store " + value + ", %y[%ro] : " + tr + ", !tile.ptr<" + elem +
         ">, tensor<" + r + "xi32>\n";
}

std::string reducedType(const Shape &s, const std::string &elem) {
  return s.rows == 1 ? elem
                     : "tensor<" + std::to_string(s.rows) + "x" + elem + ">";
}

int axisOf(const Shape &s) { return s.rows == 1 ? 0 : 1; }

std::string reduceKernel(const Shape &s, const std::string &kind,
                         const std::string &elem) {
  std::string t = tensor(s, elem), p = "!tile.ptr<" + elem + ">";
  std::string ir = prologue(s, "%x: " + p + ", %y: " + p);
  ir += "  %v = tile.load %x[%o] : " + p + ", " + tensor(s, "i32") + " -> " +
        t + "\n";
  ir += "  %s = tile.reduce " + kind + " %v, " + std::to_string(axisOf(s)) +
        " : " + t + " -> " + reducedType(s, elem) + "\n";
  return ir + storeReduced(s, "%s", elem) + "  tile.return\n}\n";
}

std::string scanKernel(const Shape &s, const std::string &kind,
                       const std::string &elem, bool exclusive, bool reverse) {
  std::string t = tensor(s, elem), p = "!tile.ptr<" + elem + ">";
  std::string ir = prologue(s, "%x: " + p + ", %y: " + p);
  ir += "  %v = tile.load %x[%o] : " + p + ", " + tensor(s, "i32") + " -> " +
        t + "\n";
  std::string attrs;
  if (exclusive || reverse)
    attrs = std::string(" {") + (exclusive ? "exclusive" : "") +
            (exclusive && reverse ? ", " : "") + (reverse ? "reverse" : "") +
            "}";
  ir += "  %s = tile.scan " + kind + " %v, " + std::to_string(axisOf(s)) +
        attrs + " : " + t + "\n";
  ir += "  tile.store %s, %y[%o] : " + t + ", " + p + ", " + tensor(s, "i32") +
        "\n  tile.return\n}\n";
  return ir;
}

// ---- the C++ reference -----------------------------------------------------

uint64_t combine(const std::string &kind, uint64_t a, uint64_t b) {
  int64_t sa = (int64_t)a, sb = (int64_t)b;
  if (kind == "add")
    return a + b; // wraps, as the i64 add does
  if (kind == "max")
    return (uint64_t)std::max(sa, sb);
  if (kind == "min")
    return (uint64_t)std::min(sa, sb);
  if (kind == "umax")
    return std::max(a, b);
  return std::min(a, b); // umin
}

uint64_t identity(const std::string &kind) {
  if (kind == "max")
    return (uint64_t)std::numeric_limits<int64_t>::min();
  if (kind == "min")
    return (uint64_t)std::numeric_limits<int64_t>::max();
  if (kind == "umin")
    return ~uint64_t(0);
  return 0; // add, umax
}

/// Random i64 values of three kinds in turn: full 64-bit patterns (half of
/// them negative, most far past 2^32), values within +-2^40 (past 2^32, with
/// both signs), and small ones around 0 (the high half all zeros or ones).
std::vector<uint64_t> randomI64(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> mid(-(int64_t(1) << 40), int64_t(1)
                                                                      << 40);
  std::uniform_int_distribution<int64_t> small(-1000, 1000);
  std::vector<uint64_t> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = i % 3 == 0   ? rng()
           : i % 3 == 1 ? (uint64_t)mid(rng)
                        : (uint64_t)small(rng);
  return v;
}

/// Fails the test unless `v` has the magnitudes the cases are about.
void expectInterestingValues(const std::vector<uint64_t> &v) {
  bool negative = false, wide = false;
  for (uint64_t x : v) {
    negative |= (int64_t)x < 0;
    wide |= (int64_t)x > (int64_t(1) << 32);
  }
  EXPECT_TRUE(negative && wide) << "the inputs lack negatives or values "
                                   "past 2^32";
}

class CrossLane64 : public ::testing::TestWithParam<std::string> {};

void runReduce(const std::string &target, const Shape &s,
               const std::string &kind) {
  SCOPED_TRACE(target + " reduce " + kind + " " + s.str());
  LoweredKernel k = lowerOneKernel(reduceKernel(s, kind, "i64"), target);
  ASSERT_TRUE(k.emu);
  std::vector<uint64_t> x = randomI64(s.size(), 7 + s.cols);
  expectInterestingValues(x);
  std::vector<uint64_t> y(s.rows, 0x5a5a5a5a5a5a5a5aull);
  EXPECT_OK(k.emu->launchArgs(k.name, {1, 1, 1}, k.block,
                              {KernelArg::buffer(x.data(), s.size()),
                               KernelArg::buffer(y.data(), s.rows)}));
  for (int64_t r = 0; r < s.rows; ++r) {
    uint64_t want = identity(kind);
    for (int64_t c = 0; c < s.cols; ++c)
      want = combine(kind, want, x[r * s.cols + c]);
    EXPECT_EQ((int64_t)y[r], (int64_t)want) << "row " << r;
  }
}

void runScan(const std::string &target, const Shape &s, const std::string &kind,
             bool exclusive, bool reverse) {
  SCOPED_TRACE(target + " scan " + kind + (exclusive ? " exclusive" : "") +
               (reverse ? " reverse" : "") + " " + s.str());
  LoweredKernel k =
      lowerOneKernel(scanKernel(s, kind, "i64", exclusive, reverse), target);
  ASSERT_TRUE(k.emu);
  std::vector<uint64_t> x = randomI64(s.size(), 11 + s.cols);
  std::vector<uint64_t> y(s.size(), 0x5a5a5a5a5a5a5a5aull);
  EXPECT_OK(k.emu->launchArgs(k.name, {1, 1, 1}, k.block,
                              {KernelArg::buffer(x.data(), s.size()),
                               KernelArg::buffer(y.data(), s.size())}));
  int bad = 0;
  for (int64_t r = 0; r < s.rows; ++r) {
    uint64_t acc = identity(kind);
    for (int64_t i = 0; i < s.cols; ++i) {
      int64_t at = r * s.cols + (reverse ? s.cols - 1 - i : i);
      uint64_t incl = combine(kind, acc, x[at]);
      uint64_t want = exclusive ? acc : incl;
      acc = incl;
      if (y[at] != want && bad++ < 5)
        ADD_FAILURE() << "element " << at << ": " << (int64_t)y[at]
                      << ", expected " << (int64_t)want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(CrossLane64, ReduceI64OneDimensionalAcrossWaves) {
  for (const char *kind : {"add", "max", "min", "umax", "umin"}) {
    runReduce(GetParam(), {1, 1024, 4}, kind);
    runReduce(GetParam(), {1, 4096, 16}, kind);
  }
}

TEST_P(CrossLane64, ReduceI64AlongRows) {
  for (const char *kind : {"add", "max", "umax"})
    runReduce(GetParam(), {8, 256, 4}, kind);
}

TEST_P(CrossLane64, ScanI64OneDimensionalAcrossWaves) {
  for (const char *kind : {"add", "max", "umax", "umin"})
    for (bool exclusive : {false, true})
      runScan(GetParam(), {1, 1024, 4}, kind, exclusive, false);
  runScan(GetParam(), {1, 2048, 8}, "add", true, true);
  runScan(GetParam(), {1, 512, 8}, "min", false, true);
}

TEST_P(CrossLane64, ScanI64AlongRows) {
  runScan(GetParam(), {4, 256, 2}, "add", false, false);
  runScan(GetParam(), {4, 256, 2}, "max", true, false);
}

// f64 goes through the same halves. Integer-valued doubles below 2^53 add
// exactly in any order, so the result is the reference's bit for bit.
TEST_P(CrossLane64, F64ReduceMaxAndScanAdd) {
  Shape s{1, 1024, 4};
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> d(-(int64_t(1) << 40), int64_t(1)
                                                                    << 40);
  std::vector<double> x(s.size());
  for (double &v : x)
    v = (double)d(rng);
  {
    SCOPED_TRACE(GetParam() + " f64 reduce max");
    LoweredKernel k = lowerOneKernel(reduceKernel(s, "max", "f64"), GetParam());
    ASSERT_TRUE(k.emu);
    double y = NAN;
    EXPECT_OK(k.emu->launchArgs(
        k.name, {1, 1, 1}, k.block,
        {KernelArg::buffer(x.data(), s.size()), KernelArg::buffer(&y, 1)}));
    EXPECT_EQ(y, *std::max_element(x.begin(), x.end()));
  }
  SCOPED_TRACE(GetParam() + " f64 scan add");
  LoweredKernel k =
      lowerOneKernel(scanKernel(s, "add", "f64", false, false), GetParam());
  ASSERT_TRUE(k.emu);
  std::vector<double> y(s.size(), NAN);
  EXPECT_OK(k.emu->launchArgs(k.name, {1, 1, 1}, k.block,
                              {KernelArg::buffer(x.data(), s.size()),
                               KernelArg::buffer(y.data(), s.size())}));
  double acc = 0;
  int bad = 0;
  for (int64_t i = 0; i < s.size(); ++i) {
    acc += x[i];
    if (y[i] != acc && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": " << y[i] << ", expected " << acc;
  }
  EXPECT_EQ(bad, 0);
}

// ---- argmax by packed keys
// ---------------------------------------------------

/// Per row of f32 `%x`, the column of the largest value, the smallest such
/// column on ties: the umax of (key(value) << 32) | ~column, where key is
/// the order-preserving u32 of the value (sign bit set for positives, all
/// bits flipped for negatives; -0.0 made +0.0 first by adding +0.0).
std::string argmaxKernel(const Shape &s) {
  std::string t32 = tensor(s, "i32"), tf = tensor(s, "f32"),
              t64 = tensor(s, "i64"), t1 = tensor(s, "i1");
  std::string ir = prologue(s, "%x: !tile.ptr<f32>, %y: !tile.ptr<i32>");
  ir += "  %v = tile.load %x[%o] : !tile.ptr<f32>, " + t32 + " -> " + tf + "\n";
  ir += "  %fz = arith.constant dense<0.0> : " + tf + "\n";
  ir += "  %vn = arith.addf %v, %fz : " + tf + "\n";
  ir += "  %b = arith.bitcast %vn : " + tf + " to " + t32 + "\n";
  ir += "  %zero = arith.constant dense<0> : " + t32 + "\n";
  ir += "  %ones = arith.constant dense<-1> : " + t32 + "\n";
  ir += "  %sign = arith.constant dense<-2147483648> : " + t32 + "\n";
  ir += "  %neg = arith.cmpi slt, %b, %zero : " + t32 + "\n";
  ir += "  %flipped = arith.xori %b, %ones : " + t32 + "\n";
  ir += "  %signed = arith.ori %b, %sign : " + t32 + "\n";
  ir += "  %key = arith.select %neg, %flipped, %signed : " + t1 + ", " + t32 +
        "\n";
  ir += "  %k64 = arith.extui %key : " + t32 + " to " + t64 + "\n";
  ir += "  %c32 = arith.constant dense<32> : " + t64 + "\n";
  ir += "  %hi = arith.shli %k64, %c32 : " + t64 + "\n";
  std::string col = s.rows == 1 ? "%o" : "%col";
  ir += "  %ninv = arith.xori " + col + ", %ones : " + t32 + "\n";
  ir += "  %lo = arith.extui %ninv : " + t32 + " to " + t64 + "\n";
  ir += "  %packed = arith.ori %hi, %lo : " + t64 + "\n";
  std::string rt64 = reducedType(s, "i64"), rt32 = reducedType(s, "i32");
  ir += "  %m = tile.reduce umax %packed, " + std::to_string(axisOf(s)) +
        " : " + t64 + " -> " + rt64 + "\n";
  ir += "  %mlo = arith.trunci %m : " + rt64 + " to " + rt32 + "\n";
  std::string ones = s.rows == 1 ? "-1 : i32" : "dense<-1> : " + rt32;
  ir += "  %rones = arith.constant " + ones + "\n";
  ir += "  %idx = arith.xori %mlo, %rones : " + rt32 + "\n";
  return ir + storeReduced(s, "%idx", "i32") + "  tile.return\n}\n";
}

/// Column of the largest value of each row, the first one on ties (-0.0
/// and +0.0 compare equal).
std::vector<int32_t> argmaxReference(const std::vector<float> &x,
                                     const Shape &s) {
  std::vector<int32_t> want(s.rows);
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < s.cols; ++c)
      if (x[r * s.cols + c] > x[r * s.cols + best])
        best = c;
    want[r] = (int32_t)best;
  }
  return want;
}

void runArgmax(const std::string &target, const Shape &s,
               const std::vector<float> &x, const std::string &what) {
  SCOPED_TRACE(target + " argmax " + s.str() + ", " + what);
  LoweredKernel k = lowerOneKernel(argmaxKernel(s), target);
  ASSERT_TRUE(k.emu);
  std::vector<int32_t> y(s.rows, -7);
  EXPECT_OK(k.emu->launchArgs(
      k.name, {1, 1, 1}, k.block,
      {KernelArg::buffer(const_cast<float *>(x.data()), s.size()),
       KernelArg::buffer(y.data(), s.rows)}));
  std::vector<int32_t> want = argmaxReference(x, s);
  for (int64_t r = 0; r < s.rows; ++r)
    EXPECT_EQ(y[r], want[r]) << "row " << r;
}

/// Inputs of shape `s` (no NaNs): random values in [-100, 100]; a few
/// distinct values (ties); negative values and zeros of both signs, so that
/// the maximum is a tie of -0.0 and +0.0; only negative values; one value
/// everywhere.
std::vector<std::pair<std::string, std::vector<float>>>
argmaxInputs(const Shape &s) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> wide(-100.f, 100.f);
  std::uniform_int_distribution<int> pick(0, 6);
  const float few[] = {-3.f, -2.5f, -1.f, -0.f, 0.f, 1.f, 2.f};
  std::vector<float> random(s.size()), ties(s.size()), zeros(s.size()),
      negative(s.size()), equal(s.size(), -1.5f);
  for (int64_t i = 0; i < s.size(); ++i) {
    random[i] = wide(rng);
    ties[i] = few[pick(rng)];
    zeros[i] = few[pick(rng) % 5]; // -3 .. +0.0
    negative[i] = -std::fabs(wide(rng)) - 1.f;
  }
  // Every row's first zero is -0.0 (column 1), a later one +0.0.
  for (int64_t r = 0; r < s.rows; ++r) {
    zeros[r * s.cols] = -3.f;
    zeros[r * s.cols + 1] = -0.f;
    zeros[r * s.cols + s.cols - 1] = 0.f;
  }
  return {{"random", random},
          {"ties", ties},
          {"signed zeros", zeros},
          {"negative", negative},
          {"all equal", equal}};
}

TEST_P(CrossLane64, ArgmaxByPackedKeysTiesToSmallestIndex) {
  for (Shape s : {Shape{1, 2048, 8}, Shape{4, 512, 4}})
    for (auto &[what, x] : argmaxInputs(s))
      runArgmax(GetParam(), s, x, what);
}

INSTANTIATE_TEST_SUITE_P(Targets, CrossLane64,
                         ::testing::Values("gfx942", "gfx950", "sm_90"),
                         [](const auto &info) { return info.param; });

} // namespace
