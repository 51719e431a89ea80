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

} // namespace
