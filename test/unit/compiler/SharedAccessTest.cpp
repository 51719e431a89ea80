//===- SharedAccessTest.cpp - Addressing shared-memory tiles --------------===//
//
// Checks planLdsAccess, which local_store / local_load /
// async_copy_global_to_local use, on the composition of a distributed
// layout with the inverse of a `#tile.shared` layout:
//  - every (register, lane, wave) reaches the element offset that the
//    shared layout's formula (LinearLayoutConversions.h) gives for the
//    coordinate it holds, computed here directly from the formula;
//  - the vector width is the run of registers with consecutive offsets;
//  - bank conflicts, counted from the byte addresses, are what the
//    swizzle arithmetic predicts, and the plan reports the same number.
//
//===----------------------------------------------------------------------===//

#include "ConvertLayout.h"
#include "Gf2.h"
#include "SharedMemoryToSimt.h"

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace tessel;
using tessel::test::gf2Image;
using tile::LinearLayout;

namespace {

struct Shared {
  unsigned vec, perPhase, maxPhase;
};

/// The element offset of (r, c) in a row-major R x C tile under the
/// swizzle, as LinearLayoutConversions.h states it.
int64_t formulaOffset(int64_t r, int64_t c, int64_t C, const Shared &s) {
  int64_t v = std::min<int64_t>(s.vec, C);
  int64_t phase = (r / s.perPhase) % s.maxPhase;
  return r * C + (((c / v) ^ phase) % (C / v)) * v + c % v;
}

struct Fixture : public ::testing::Test {
  mlir::MLIRContext ctx;
  Fixture() { ctx.loadDialect<tile::TileDialect>(); }

  LinearLayout dist(llvm::ArrayRef<int64_t> shape, const std::string &attr) {
    mlir::Attribute a = mlir::parseAttribute(attr, &ctx);
    EXPECT_TRUE(a) << attr;
    std::string err;
    auto l = tile::toLinearLayout(shape, a, &err);
    EXPECT_TRUE(succeeded(l)) << err;
    return *l;
  }

  /// The access side of `d` on a row-major tile with swizzle `s`.
  ConversionPlan::Side side(const LinearLayout &d,
                            llvm::ArrayRef<int64_t> shape, const Shared &s,
                            unsigned elemBytes, const TargetInfo &info) {
    std::string attr = "#tile.shared<{vec = " + std::to_string(s.vec) +
                       ", perPhase = " + std::to_string(s.perPhase) +
                       ", maxPhase = " + std::to_string(s.maxPhase) +
                       ", order = [1, 0]}>";
    std::string err;
    auto sh =
        tile::toLinearLayout(shape, mlir::parseAttribute(attr, &ctx), &err);
    EXPECT_TRUE(succeeded(sh)) << err;
    auto toOffset = d.invertAndCompose(*sh, &err);
    EXPECT_TRUE(succeeded(toOffset)) << err;
    auto sd = planLdsAccess(*toOffset, elemBytes, info, &err);
    EXPECT_TRUE(succeeded(sd)) << err;
    return *sd;
  }
};

/// Every (register, lane, wave) of `d` reaches the formula's offset of the
/// coordinate it holds.
void expectFormulaOffsets(const LinearLayout &d, const ConversionPlan::Side &s,
                          int64_t C, const Shared &sh) {
  for (int32_t w = 0; w < d.getInDimSize("wave"); ++w)
    for (int32_t l = 0; l < d.getInDimSize("lane"); ++l)
      for (int32_t r = 0; r < d.getInDimSize("register"); ++r) {
        llvm::SmallVector<int32_t> rc = d.apply({r, l, w});
        int64_t got =
            gf2Image(s.reg, r) ^ gf2Image(s.lane, l) ^ gf2Image(s.wave, w);
        ASSERT_EQ(got, formulaOffset(rc[0], rc[1], C, sh))
            << "register " << r << " lane " << l << " wave " << w;
      }
}

/// Worst number of distinct dwords one bank serves among the lanes of one
/// 128-byte bank row, over every access of `s` (one wave).
unsigned simulatedConflicts(const ConversionPlan::Side &s, int64_t regs,
                            unsigned elemBytes, unsigned lanes) {
  unsigned width = std::max(4u, (1u << s.vecBits) * elemBytes);
  unsigned perRow = std::max(1u, 128 / width);
  unsigned worst = 1;
  for (int64_t r = 0; r < regs; r += int64_t(1) << s.vecBits)
    for (unsigned l0 = 0; l0 < lanes; l0 += perRow) {
      std::map<unsigned, std::set<int64_t>> bank;
      for (unsigned l = l0; l < l0 + perRow && l < lanes; ++l) {
        int64_t byte = (gf2Image(s.reg, r) ^ gf2Image(s.lane, l)) * elemBytes;
        for (int64_t d = byte / 4; d < (byte + width) / 4; ++d)
          bank[d % 32].insert(d);
      }
      for (auto &[b, dwords] : bank)
        worst = std::max<unsigned>(worst, dwords.size());
    }
  return worst;
}

// A 64x128 fp8 tile held 16 contiguous bytes of a row per lane: every
// shared layout whose vec is 16 gives 16-byte accesses at the formula's
// offsets; vec 8 halves the width, vec 1 leaves single bytes.
TEST_F(Fixture, RowMajorFp8AccessesFollowTheFormula) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout d = dist({64, 128}, "#tile.blocked<{sizePerThread = [1, 16], "
                                   "threadsPerWave = [8, 8], wavesPerCTA = "
                                   "[4, 1], order = [1, 0]}>");
  struct Case {
    Shared s;
    unsigned vecBits;
  } cases[] = {{{16, 1, 8}, 4},
               {{16, 2, 4}, 4},
               {{8, 1, 8}, 3},
               {{1, 1, 1}, 4},
               {{1, 1, 16}, 0}};
  for (const Case &c : cases) {
    SCOPED_TRACE("vec " + std::to_string(c.s.vec) + " perPhase " +
                 std::to_string(c.s.perPhase) + " maxPhase " +
                 std::to_string(c.s.maxPhase));
    ConversionPlan::Side s = side(d, {64, 128}, c.s, 1, *info);
    expectFormulaOffsets(d, s, 128, c.s);
    EXPECT_EQ(s.vecBits, c.vecBits);
  }
}

// The MFMA 32x32x16 fp8 B operand ([K, N], 8 consecutive K per lane) reads
// a row-major [K][N] tile across rows: one byte per access, at the
// formula's offsets, with and without a swizzle.
TEST_F(Fixture, MfmaOperandReadsFollowTheFormula) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout d = dist(
      {64, 64}, "#tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version "
                "= 3, instrShape = [32, 32, 16], wavesPerCTA = [2, 2], "
                "transposed = false}>, kWidth = 8}>");
  for (Shared sh : {Shared{16, 1, 4}, Shared{1, 1, 1}, Shared{4, 2, 8}}) {
    ConversionPlan::Side s = side(d, {64, 64}, sh, 1, *info);
    expectFormulaOffsets(d, s, 64, sh);
    EXPECT_EQ(s.vecBits, 0u);
  }
}

// A 64x64 f32 tile read by lanes that each hold one row (lane l = row l,
// registers along the columns). Where runs of 4 columns stay contiguous the
// reads are 16 bytes, 8 lanes per 128-byte bank row: without a swizzle the
// rows are 256 bytes apart and all 8 hit the same 4 banks (8-way); vec 4
// with 8 phases gives 8 consecutive rows 8 distinct 16-byte slots
// (conflict free). vec 1 with 32 phases breaks the runs (4-byte reads, 32
// lanes per bank row) but puts lane r's column c in bank (c XOR r) mod 32,
// distinct for the 32 lanes (conflict free). The plan reports what the
// simulation counts.
TEST_F(Fixture, SwizzleRemovesRowPerLaneConflicts) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout d = dist({64, 64}, "#tile.blocked<{sizePerThread = [1, 1], "
                                  "threadsPerWave = [64, 1], wavesPerCTA = "
                                  "[1, 1], order = [0, 1]}>");
  struct Case {
    Shared s;
    unsigned vecBits, ways;
  } cases[] = {{{1, 1, 1}, 2, 8}, {{4, 1, 8}, 2, 1}, {{1, 1, 32}, 0, 1}};
  for (const Case &c : cases) {
    SCOPED_TRACE("vec " + std::to_string(c.s.vec) + " maxPhase " +
                 std::to_string(c.s.maxPhase));
    ConversionPlan::Side s = side(d, {64, 64}, c.s, 4, *info);
    expectFormulaOffsets(d, s, 64, c.s);
    EXPECT_EQ(s.vecBits, c.vecBits);
    EXPECT_EQ(simulatedConflicts(s, d.getInDimSize("register"), 4, 64), c.ways);
    EXPECT_EQ(s.conflictWays, c.ways);
  }
}

// The swizzle the lowering chooses for `#tile.shared` with perPhase =
// maxPhase = 0, for a 64x64 f32 buffer with vec 4, written 16 bytes of a
// row per lane and read as in SwizzleRemovesRowPerLaneConflicts (one row
// per lane). The writes are conflict free under every swizzle (8 lanes of
// a bank row write 8 different 16-byte groups of one row, and XOR with a
// phase keeps them distinct modulo 8); the reads need 8 consecutive rows in
// 8 distinct phases: perPhase 1 with maxPhase 8 or 16, so the tie-break
// (smaller maxPhase) gives perPhase 1, maxPhase 8. Read in the writer's
// layout instead, no swizzle is needed: perPhase 1, maxPhase 1.
TEST_F(Fixture, ChoosesTheConflictFreeSwizzle) {
  ctx.loadDialect<mlir::arith::ArithDialect, mlir::scf::SCFDialect>();
  auto info = TargetInfo::create("gfx942");
  const std::string rows = "#tile.blocked<{sizePerThread = [1, 4], "
                           "threadsPerWave = [4, 16], wavesPerCTA = [1, 1], "
                           "order = [1, 0]}>";
  const std::string cols = "#tile.blocked<{sizePerThread = [1, 1], "
                           "threadsPerWave = [64, 1], wavesPerCTA = [1, 1], "
                           "order = [0, 1]}>";
  auto choose = [&](const std::string &reader) -> tile::SharedLayoutAttr {
    std::string md =
        "!tile.memdesc<2x64x64xf32, #tile.shared<{vec = 4, perPhase = 0, "
        "maxPhase = 0, order = [1, 0]}>>";
    std::string st =
        "!tile.memdesc<64x64xf32, #tile.shared<{vec = 4, perPhase = 0, "
        "maxPhase = 0, order = [1, 0]}>>";
    std::string src =
        "tile.kernel @k(%i: i32) {\n"
        "  %v = arith.constant dense<1.0> : tensor<64x64xf32, " +
        rows + ">\n  %a = tile.local_alloc : " + md +
        "\n  %s = tile.memdesc_index %a[%i] : " + md + " -> " + st +
        "\n  tile.local_store %v, %s : tensor<64x64xf32, " + rows + "> -> " +
        st + "\n  %w = tile.local_load %s : " + st + " -> tensor<64x64xf32, " +
        reader + ">\n  tile.return\n}\n";
    auto m = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
    EXPECT_TRUE(m) << src;
    if (!m)
      return {};
    EXPECT_TRUE(succeeded(chooseSharedSwizzles(*m, *info)));
    tile::SharedLayoutAttr chosen;
    m->walk(
        [&](tile::LocalAllocOp a) { chosen = a.getType().getSharedLayout(); });
    m->walk([&](tile::MemDescIndexOp op) {
      EXPECT_EQ(op.getType().getSharedLayout(), chosen);
    });
    EXPECT_TRUE(succeeded(mlir::verify(*m)));
    return chosen;
  };
  tile::SharedLayoutAttr c = choose(cols);
  ASSERT_TRUE(c);
  EXPECT_EQ(c.getVec(), 4u);
  EXPECT_EQ(c.getPerPhase(), 1u);
  EXPECT_EQ(c.getMaxPhase(), 8u);
  tile::SharedLayoutAttr r = choose(rows);
  ASSERT_TRUE(r);
  EXPECT_EQ(r.getPerPhase(), 1u);
  EXPECT_EQ(r.getMaxPhase(), 1u);
}

} // namespace
