//===- MatrixInstrTest.cpp - TargetInfo's matrix-instruction facts --------===//
//
// Checks the MFMA table of gfx942/gfx950 and the choice of instruction for a
// dot, including the errors for what no instruction serves.
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/TargetInfo.h"

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessel;

namespace {

struct MatrixInstrTest : ::testing::Test {
  MatrixInstrTest() { ctx.loadDialect<tile::TileDialect>(); }
  MLIRContext ctx;
  Type f32 = Float32Type::get(&ctx);
  Type bf16 = BFloat16Type::get(&ctx);
  Type fnuz = Float8E4M3FNUZType::get(&ctx);
  Type fn = Float8E4M3FNType::get(&ctx);
};

TEST_F(MatrixInstrTest, CdnaPrefersSixteenBySixteen) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    auto info = TargetInfo::create(chip);
    Type fp8 = info->fp8Type(&ctx);
    std::string why;
    auto f = info->selectMatrixInstr(fp8, fp8, f32, 64, 64, 128, &why);
    ASSERT_TRUE(succeeded(f)) << why;
    EXPECT_EQ(f->m, 16u);
    EXPECT_EQ(f->n, 16u);
    EXPECT_EQ(f->k, 32u);
    EXPECT_EQ(f->kPerLane, 8u);
    EXPECT_EQ(f->operandType, fp8);
    EXPECT_EQ(f->mnemonic, "v_mfma_f32_16x16x32_fp8_fp8");
    auto b = info->selectMatrixInstr(bf16, bf16, f32, 32, 16, 16, &why);
    ASSERT_TRUE(succeeded(b)) << why;
    EXPECT_EQ(b->k, 16u);
    EXPECT_EQ(b->kPerLane, 4u);
    EXPECT_EQ(b->mnemonic, "v_mfma_f32_16x16x16_bf16");
  }
}

TEST_F(MatrixInstrTest, Fp8FormatFollowsTheChip) {
  auto g942 = TargetInfo::create("gfx942");
  auto g950 = TargetInfo::create("gfx950");
  std::string why;
  EXPECT_TRUE(
      succeeded(g942->selectMatrixInstr(fnuz, fnuz, f32, 16, 16, 32, nullptr)));
  EXPECT_TRUE(failed(g942->selectMatrixInstr(fn, fn, f32, 16, 16, 32, &why)));
  EXPECT_NE(why.find("no matrix instruction of gfx942 takes"),
            std::string::npos)
      << why;
  EXPECT_TRUE(
      succeeded(g950->selectMatrixInstr(fn, fn, f32, 16, 16, 32, nullptr)));
  EXPECT_TRUE(
      failed(g950->selectMatrixInstr(fnuz, fnuz, f32, 16, 16, 32, nullptr)));
}

TEST_F(MatrixInstrTest, TableHoldsBothSizesWithLaneCounts) {
  auto info = TargetInfo::create("gfx950");
  auto instrs = info->matrixInstrs(&ctx);
  ASSERT_EQ(instrs.size(), 4u);
  for (const MatrixInstr &i : instrs) {
    // A [M, K] spread over 64 lanes.
    EXPECT_EQ(i.m * i.k, 64 * i.kPerLane);
    EXPECT_EQ(i.m, i.n);
  }
  EXPECT_EQ(instrs[2].mnemonic, "v_mfma_f32_32x32x16_fp8_fp8");
  EXPECT_EQ(instrs[3].mnemonic, "v_mfma_f32_32x32x8_bf16");
}

TEST_F(MatrixInstrTest, RejectsWhatNoInstructionServes) {
  auto info = TargetInfo::create("gfx942");
  std::string why;
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(bf16, bf16, f32, 16, 16, 8, &why)));
  EXPECT_NE(why.find("16x16x16"), std::string::npos) << why;
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(bf16, fnuz, f32, 16, 16, 32, &why)));
  EXPECT_NE(why.find("one element type"), std::string::npos) << why;
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(bf16, bf16, bf16, 16, 16, 16, &why)));
  EXPECT_NE(why.find("accumulates in f32"), std::string::npos) << why;
}

TEST_F(MatrixInstrTest, HopperHasNoDotYet) {
  auto info = TargetInfo::create("sm_90");
  EXPECT_TRUE(info->matrixInstrs(&ctx).empty());
  std::string why;
  EXPECT_TRUE(failed(info->selectMatrixInstr(fn, fn, f32, 64, 64, 64, &why)));
  EXPECT_NE(why.find("not lowered on sm_90"), std::string::npos) << why;
}

// Each instruction's accumulator encoding leads back to the instruction, and
// its operand encodings carry the instruction's K elements per lane.
TEST_F(MatrixInstrTest, EncodingsRoundTrip) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    auto info = TargetInfo::create(chip);
    for (const MatrixInstr &i : info->matrixInstrs(&ctx)) {
      Attribute acc = info->matrixAccEncoding(&ctx, i, 2, 2, false);
      auto mfma = dyn_cast_or_null<tile::MfmaLayoutAttr>(acc);
      ASSERT_TRUE(mfma) << chip;
      EXPECT_EQ(mfma.getVersion(), std::string(chip) == "gfx942" ? 3u : 4u);
      std::string why;
      auto back = info->matrixInstrOf(acc, i.operandType, &why);
      ASSERT_TRUE(succeeded(back)) << why;
      EXPECT_EQ(back->mnemonic, i.mnemonic);
      EXPECT_EQ(i.accPerLane, i.m * i.n / 64);
      for (unsigned op = 0; op < 2; ++op) {
        auto enc = dyn_cast_or_null<tile::DotOperandLayoutAttr>(
            info->matrixOperandEncoding(acc, op, i));
        ASSERT_TRUE(enc);
        EXPECT_EQ(enc.getOpIdx(), op);
        EXPECT_EQ(enc.getParent(), acc);
        EXPECT_EQ(enc.getKWidth(), i.kPerLane);
      }
    }
  }
}

// An accumulator layout of the other chip, or of another operand type, is
// refused with the reason.
TEST_F(MatrixInstrTest, AccumulatorMustMatchTheChip) {
  auto g942 = TargetInfo::create("gfx942");
  auto g950 = TargetInfo::create("gfx950");
  auto instr = g942->selectMatrixInstr(fnuz, fnuz, f32, 32, 32, 32, nullptr);
  ASSERT_TRUE(succeeded(instr));
  Attribute acc942 = g942->matrixAccEncoding(&ctx, *instr, 1, 1, false);
  std::string why;
  EXPECT_TRUE(failed(g950->matrixInstrOf(acc942, fn, &why)));
  EXPECT_NE(why.find("does not match gfx950"), std::string::npos) << why;
  EXPECT_TRUE(failed(g942->matrixInstrOf(acc942, bf16, &why)));
  EXPECT_NE(why.find("no MFMA of gfx942 has shape 16x16x32"), std::string::npos)
      << why;
  EXPECT_TRUE(
      failed(TargetInfo::create("sm_90")->matrixInstrOf(acc942, fn, &why)));
}

} // namespace
