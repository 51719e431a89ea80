//===- AxisInfoTest.cpp - Contiguity, divisibility and constancy ----------===//
//
// AxisInfoAnalysis caches facts in a map that grows while it computes: a
// query of a deep value computes, and inserts, every value it depends on,
// so the map rehashes many times inside one query. The kernels here hold
// thousands of values whose facts follow from simple arithmetic, queried
// deepest first and then in a shuffled order; every answer must match.
//
//===----------------------------------------------------------------------===//

#include "AxisInfo.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace tessel;

namespace {

// 1000 links: 3001 values, and a recursion 1000 queries deep.
constexpr int kChain = 1000;

/// x0 = range(0, 64); x(i+1) = x(i) + 64; y(i) = x(i) * 2;
/// m(i) = x(i) < n with n promised divisible by 16.
std::string chainKernel() {
  std::string s = "tile.kernel @k(%n: i32 {tile.divisibility = 16 : i64}) {\n"
                  "  %c64 = arith.constant dense<64> : tensor<64xi32>\n"
                  "  %c2 = arith.constant dense<2> : tensor<64xi32>\n"
                  "  %nv = tile.splat %n : i32 -> tensor<64xi32>\n"
                  "  %x0 = tile.range 0 to 64 : tensor<64xi32>\n";
  for (int i = 0; i < kChain; ++i) {
    std::string x = "%x" + std::to_string(i);
    std::string t = " : tensor<64xi32>\n";
    s += "  %x" + std::to_string(i + 1) + " = arith.addi " + x + ", %c64" + t;
    s += "  %y" + std::to_string(i) + " = arith.muli " + x + ", %c2" + t;
    s += "  %m" + std::to_string(i) + " = arith.cmpi slt, " + x + ", %nv" + t;
  }
  s += "  tile.return\n}\n";
  return s;
}

struct Expected {
  Value v;
  int64_t contiguity, divisibility, constancy;
};

TEST(AxisInfo, ThousandsOfValuesQueriedInAnyOrder) {
  DialectRegistry reg;
  registerTesselDialects(reg);
  MLIRContext ctx(reg);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(chainKernel(), &ctx);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<tile::KernelOp>().begin();

  // Values by name, in definition order.
  std::vector<Value> xs, ys, ms;
  kernel.walk([&](Operation *op) {
    if (isa<tile::RangeOp>(op) || isa<arith::AddIOp>(op))
      xs.push_back(op->getResult(0));
    else if (isa<arith::MulIOp>(op))
      ys.push_back(op->getResult(0));
    else if (isa<arith::CmpIOp>(op))
      ms.push_back(op->getResult(0));
  });
  ASSERT_EQ(xs.size(), size_t(kChain + 1));
  ASSERT_EQ(ys.size(), size_t(kChain));
  ASSERT_EQ(ms.size(), size_t(kChain));

  // x(i) = 64 i + [0, 64): one run of 64 starting at 64 i (the range's
  // start 0 is divisible by any power of two: capped at 2^30).
  // y(i) = 2 x(i): even, no longer contiguous.
  // m(i): the run start and n share 16, so aligned groups of 16 compare
  // alike.
  std::vector<Expected> expected;
  for (int i = 0; i <= kChain; ++i)
    expected.push_back({xs[i], 64, i == 0 ? int64_t(1) << 30 : 64, 1});
  for (int i = 0; i < kChain; ++i) {
    expected.push_back({ys[i], 1, 2, 1});
    expected.push_back({ms[i], 1, 1, 16});
  }

  AxisInfoAnalysis axis(kernel);
  // Deepest first: one query computes (and caches) the whole chain.
  AxisInfo last = axis.get(ms.back());
  EXPECT_EQ(last.constancy[0], 16);
  std::mt19937 rng(3);
  std::shuffle(expected.begin(), expected.end(), rng);
  for (const Expected &e : expected) {
    AxisInfo info = axis.get(e.v);
    ASSERT_EQ(info.rank(), 1u);
    EXPECT_EQ(info.contiguity[0], e.contiguity);
    EXPECT_EQ(info.divisibility[0], e.divisibility);
    EXPECT_EQ(info.constancy[0], e.constancy);
  }
}

/// Parses one kernel and gives the result of each op by the name of its
/// SSA value (`%name`), through the location the parser gives them.
struct Parsed {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::vector<std::pair<std::string, Value>> values;

  explicit Parsed(const std::string &src) : ctx(makeRegistry()) {
    ctx.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(src, &ctx);
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry reg;
    registerTesselDialects(reg);
    return reg;
  }
  tile::KernelOp kernel() { return *module->getOps<tile::KernelOp>().begin(); }
  /// The result of the op carrying `{tag = "name"}`.
  Value tagged(llvm::StringRef name) {
    Value found;
    kernel().walk([&](Operation *op) {
      if (auto t = op->getAttrOfType<StringAttr>("tag"); t && t == name)
        found = op->getResult(0);
    });
    return found;
  }
};

// Widening keeps a run only where it cannot wrap in the narrow type: runs
// aligned to their length always (the wrap points are multiples of every
// power of two), longer runs only for non-negative values.
TEST(AxisInfo, ExtensionsKeepRunsThatCannotWrap) {
  Parsed p(R"(
tile.kernel @k(%n: i32, %m: i32 {tile.divisibility = 64 : i64}) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %r64 = arith.extsi %r {tag = "nonneg"} : tensor<256xi32> to tensor<256xi64>
  %nv = tile.splat %n : i32 -> tensor<256xi32>
  %x = arith.addi %r, %nv : tensor<256xi32>
  %x64 = arith.extsi %x {tag = "unaligned"} : tensor<256xi32> to tensor<256xi64>
  %mv = tile.splat %m : i32 -> tensor<256xi32>
  %y = arith.addi %r, %mv : tensor<256xi32>
  %y64 = arith.extsi %y {tag = "aligned64"} : tensor<256xi32> to tensor<256xi64>
  %yu = arith.extui %y {tag = "aligned64u"} : tensor<256xi32> to tensor<256xi64>
  %yi = arith.index_cast %y {tag = "aligned64i"} : tensor<256xi32> to tensor<256xindex>
  %pid = tile.program_id 0 : i32
  %c256 = arith.constant 256 : i32
  %base = arith.muli %pid, %c256 overflow<nsw> : i32
  %bv = tile.splat %base : i32 -> tensor<256xi32>
  %z = arith.addi %bv, %r overflow<nsw> : tensor<256xi32>
  %z64 = arith.extsi %z {tag = "nswsum"} : tensor<256xi32> to tensor<256xi64>
  %w = arith.addi %bv, %r : tensor<256xi32>
  %w64 = arith.extsi %w {tag = "wrapsum"} : tensor<256xi32> to tensor<256xi64>
  tile.return
}
)");
  ASSERT_TRUE(p.module);
  AxisInfoAnalysis axis(p.kernel());
  struct Case {
    const char *tag;
    int64_t contiguity, divisibility;
  };
  for (Case c : {Case{"nonneg", 256, int64_t(1) << 30},
                 Case{"unaligned", 1, 1}, Case{"aligned64", 64, 64},
                 Case{"aligned64u", 64, 64}, Case{"aligned64i", 64, 64},
                 Case{"nswsum", 256, 256}, Case{"wrapsum", 256, 256}}) {
    Value v = p.tagged(c.tag);
    ASSERT_TRUE(v) << c.tag;
    AxisInfo info = axis.get(v);
    EXPECT_EQ(info.contiguity[0], c.contiguity) << c.tag;
    EXPECT_EQ(info.divisibility[0], c.divisibility) << c.tag;
  }
  // Before the extension the unaligned sum is one run of 256.
  Value x = p.tagged("unaligned").getDefiningOp()->getOperand(0);
  EXPECT_EQ(axis.get(x).contiguity[0], 256);
  EXPECT_TRUE(axis.isNonNegative(p.tagged("nswsum")));
  EXPECT_FALSE(axis.isNonNegative(p.tagged("wrapsum")));
  EXPECT_FALSE(axis.isNonNegative(p.tagged("unaligned")));
}

// Constants change value through extensions of negative numbers and
// truncations; divisibility stops at the narrow type's top bit.
TEST(AxisInfo, ExtensionsAndTruncationsOfConstants) {
  Parsed p(R"(
tile.kernel @k() {
  %t = arith.constant dense<true> : tensor<64xi1>
  %tu = arith.extui %t {tag = "true_u"} : tensor<64xi1> to tensor<64xi32>
  %ts = arith.extsi %t {tag = "true_s"} : tensor<64xi1> to tensor<64xi32>
  %m = arith.constant dense<-2> : tensor<64xi32>
  %mu = arith.extui %m {tag = "neg_u"} : tensor<64xi32> to tensor<64xi64>
  %big = arith.constant dense<4096> : tensor<64xi32>
  %b8 = arith.trunci %big {tag = "trunc8"} : tensor<64xi32> to tensor<64xi8>
  %odd = arith.constant dense<300> : tensor<64xi32>
  %o8 = arith.trunci %odd {tag = "trunc300"} : tensor<64xi32> to tensor<64xi8>
  tile.return
}
)");
  ASSERT_TRUE(p.module);
  AxisInfoAnalysis axis(p.kernel());
  EXPECT_EQ(axis.get(p.tagged("true_u")).constant, 1);
  EXPECT_EQ(axis.get(p.tagged("true_s")).constant, -1);
  EXPECT_EQ(axis.get(p.tagged("neg_u")).constant, (int64_t(1) << 32) - 2);
  EXPECT_EQ(axis.get(p.tagged("trunc8")).constant, 0);
  EXPECT_EQ(axis.get(p.tagged("trunc8")).divisibility[0], 128);
  EXPECT_EQ(axis.get(p.tagged("trunc300")).constant, 44);
}

} // namespace
