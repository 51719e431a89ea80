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
    // K = 96: a multiple of 32 but not of 64, so no double-rate form.
    auto f = info->selectMatrixInstr(fp8, fp8, f32, 64, 64, 96, &why);
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

// gfx950 takes its double-rate fp8 forms where K allows: 16x16x128 for K a
// multiple of 128, 32x32x64 for K a multiple of 64 (with M and N multiples
// of 32), the fp8_fp8 forms otherwise. gfx942 has none of them.
TEST_F(MatrixInstrTest, Gfx950PrefersDoubleRateFp8) {
  auto g950 = TargetInfo::create("gfx950");
  auto g942 = TargetInfo::create("gfx942");
  std::string why;
  auto k128 = g950->selectMatrixInstr(fn, fn, f32, 64, 64, 256, &why);
  ASSERT_TRUE(succeeded(k128)) << why;
  EXPECT_EQ(k128->mnemonic, "v_mfma_f32_16x16x128_f8f6f4");
  EXPECT_EQ(k128->k, 128u);
  // A [16, 128] over 64 lanes: 32 fp8 per lane (two runs of 16).
  EXPECT_EQ(k128->kPerLane, 32u);
  EXPECT_EQ(k128->accPerLane, 4u);
  EXPECT_EQ(k128->operandType, fn);
  auto k64 = g950->selectMatrixInstr(fn, fn, f32, 64, 64, 64, &why);
  ASSERT_TRUE(succeeded(k64)) << why;
  EXPECT_EQ(k64->mnemonic, "v_mfma_f32_32x32x64_f8f6f4");
  EXPECT_EQ(k64->kPerLane, 32u);
  EXPECT_EQ(k64->accPerLane, 16u);
  // M = 16 leaves no 32x32 tile: back to 16x16x32.
  auto m16 = g950->selectMatrixInstr(fn, fn, f32, 16, 64, 64, &why);
  ASSERT_TRUE(succeeded(m16)) << why;
  EXPECT_EQ(m16->mnemonic, "v_mfma_f32_16x16x32_fp8_fp8");
  auto k32 = g950->selectMatrixInstr(fn, fn, f32, 64, 64, 32, &why);
  ASSERT_TRUE(succeeded(k32)) << why;
  EXPECT_EQ(k32->mnemonic, "v_mfma_f32_16x16x32_fp8_fp8");
  for (int64_t k : {32, 64, 128, 256}) {
    auto g = g942->selectMatrixInstr(fnuz, fnuz, f32, 64, 64, k, &why);
    ASSERT_TRUE(succeeded(g)) << why;
    EXPECT_EQ(g->mnemonic, "v_mfma_f32_16x16x32_fp8_fp8") << k;
  }
  // bf16 never takes an fp8 form.
  auto bf = g950->selectMatrixInstr(bf16, bf16, f32, 64, 64, 128, &why);
  ASSERT_TRUE(succeeded(bf)) << why;
  EXPECT_EQ(bf->mnemonic, "v_mfma_f32_16x16x16_bf16");
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
  auto g942 = TargetInfo::create("gfx942")->matrixInstrs(&ctx);
  auto g950 = TargetInfo::create("gfx950")->matrixInstrs(&ctx);
  // The four CDNA3 forms; gfx950 adds its two double-rate ones, first.
  ASSERT_EQ(g942.size(), 4u);
  ASSERT_EQ(g950.size(), 6u);
  for (const auto *instrs : {&g942, &g950})
    for (const MatrixInstr &i : *instrs) {
      // A [M, K] spread over 64 lanes.
      EXPECT_EQ(i.m * i.k, 64 * i.kPerLane);
      EXPECT_EQ(i.m, i.n);
    }
  EXPECT_EQ(g950[0].mnemonic, "v_mfma_f32_16x16x128_f8f6f4");
  EXPECT_EQ(g950[1].mnemonic, "v_mfma_f32_32x32x64_f8f6f4");
  EXPECT_EQ(g950[4].mnemonic, "v_mfma_f32_32x32x16_fp8_fp8");
  EXPECT_EQ(g950[5].mnemonic, "v_mfma_f32_32x32x8_bf16");
  for (const MatrixInstr &i : g942)
    EXPECT_EQ(i.mnemonic.find("f8f6f4"), std::string::npos) << i.mnemonic;
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
        // The instruction's run of consecutive K per lane: all of its
        // kPerLane, except the f8f6f4 forms' two runs of 16 (AMD's CDNA4
        // register maps).
        bool f8f6f4 = i.mnemonic.find("_f8f6f4") != std::string::npos;
        EXPECT_EQ(enc.getKWidth(), f8f6f4 ? 16u : i.kPerLane) << i.mnemonic;
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
