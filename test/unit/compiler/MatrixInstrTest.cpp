//===- MatrixInstrTest.cpp - TargetInfo's matrix-instruction facts --------===//
//
// Checks the MFMA table of gfx942/gfx950, Hopper's mma.sync table, and the
// choice of instruction for a dot, including the errors for what no instruction
// serves.
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

// Both Hopper targets serve dots of fewer than a warpgroup's 4 warps
// through mma.sync: e4m3fn as f16 m16n8k16 (the e4m3 form is emulated on
// Hopper) over 16x8x32 tiles, bf16 natively.
TEST_F(MatrixInstrTest, HopperSelectsMmaSync) {
  for (const char *chip : {"sm_90", "sm_90a"}) {
    SCOPED_TRACE(chip);
    auto info = TargetInfo::create(chip);
    std::string why;
    auto f = info->selectMatrixInstr(fn, fn, f32, 64, 64, 32, &why,
                                     /*numWaves=*/1);
    ASSERT_TRUE(succeeded(f)) << why;
    EXPECT_EQ(f->m, 16u);
    EXPECT_EQ(f->n, 8u);
    EXPECT_EQ(f->k, 32u);
    EXPECT_EQ(f->operandType, fn);
    EXPECT_EQ(f->mnemonic, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    EXPECT_EQ(f->mnemonic.find("e4m3"), std::string::npos);
    // K = 16 takes the 16x8x16 fp8 tile, run as one f16 instruction.
    auto f16 = info->selectMatrixInstr(fn, fn, f32, 16, 8, 16, &why);
    ASSERT_TRUE(succeeded(f16)) << why;
    EXPECT_EQ(f16->k, 16u);
    EXPECT_EQ(f16->mnemonic, f->mnemonic);
    // bf16 prefers the 16x8x32 tile (two m16n8k16, 8-byte operand runs)
    // and takes the native 16x8x16 one where K is not a multiple of 32.
    auto b32 = info->selectMatrixInstr(bf16, bf16, f32, 64, 64, 32, &why);
    ASSERT_TRUE(succeeded(b32)) << why;
    EXPECT_EQ(b32->k, 32u);
    auto b = info->selectMatrixInstr(bf16, bf16, f32, 16, 8, 16, &why);
    ASSERT_TRUE(succeeded(b)) << why;
    EXPECT_EQ(b->k, 16u);
    for (const MatrixInstr &i : {*b32, *b})
      EXPECT_EQ(i.mnemonic,
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
    for (const MatrixInstr &i : info->matrixInstrs(&ctx)) {
      if (i.operandSource != MatrixOperandSource::Registers)
        continue; // wgmma (HopperPrefersWgmmaOnSm90a)
      // A [16, K] over 32 lanes: 4 lanes share a row, each holds two rows.
      EXPECT_EQ(i.m * i.k, 32 * 2 * i.kPerLane);
      EXPECT_EQ(i.accPerLane, i.m * i.n / 32);
    }
  }
}

// sm_90a prefers wgmma (a warpgroup of 4 warps reading A and B from shared
// memory) wherever the dot's M is a multiple of 64 and the kernel has a
// warpgroup; sm_90 has no wgmma.
TEST_F(MatrixInstrTest, HopperPrefersWgmmaOnSm90a) {
  auto info = TargetInfo::create("sm_90a");
  std::string why;
  auto w = info->selectMatrixInstr(fn, fn, f32, 64, 64, 32, &why, 4);
  ASSERT_TRUE(succeeded(w)) << why;
  EXPECT_EQ(w->mnemonic,
            "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3");
  EXPECT_EQ(w->operandSource, MatrixOperandSource::SharedMemory);
  EXPECT_EQ(w->wavesPerInstr, 4u);
  // m64nN: N/8 groups of 4 f32 over the warpgroup's 128 threads.
  EXPECT_EQ(w->accPerLane, w->m * w->n / 128);
  auto wide = info->selectMatrixInstr(fn, fn, f32, 128, 256, 64, &why, 8);
  ASSERT_TRUE(succeeded(wide)) << why;
  EXPECT_EQ(wide->n, 256u);
  // M = 32 and 2 warps fall back to mma.sync.
  auto m32 = info->selectMatrixInstr(fn, fn, f32, 32, 64, 32, &why, 4);
  ASSERT_TRUE(succeeded(m32)) << why;
  EXPECT_EQ(m32->operandSource, MatrixOperandSource::Registers);
  auto w2 = info->selectMatrixInstr(fn, fn, f32, 64, 64, 32, &why, 2);
  ASSERT_TRUE(succeeded(w2)) << why;
  EXPECT_EQ(w2->operandSource, MatrixOperandSource::Registers);
  // Its accumulator is #tile.nv_mma version 3 with 4 warps per group, and
  // leads back to the instruction; bf16 has no wgmma here.
  Attribute acc = info->matrixAccEncoding(&ctx, *w, 2, 1, true);
  auto nv = dyn_cast_or_null<tile::NvMmaLayoutAttr>(acc);
  ASSERT_TRUE(nv);
  EXPECT_EQ(nv.getVersion(), 3u);
  EXPECT_EQ(nv.getWavesPerCTA(), ArrayRef<unsigned>({8, 1}));
  auto back = info->matrixInstrOf(acc, fn, &why);
  ASSERT_TRUE(succeeded(back)) << why;
  EXPECT_EQ(back->mnemonic, w->mnemonic);
  EXPECT_TRUE(failed(info->matrixInstrOf(acc, bf16, &why)));
  EXPECT_NE(why.find("no wgmma of sm_90a"), std::string::npos) << why;
  auto portable = TargetInfo::create("sm_90");
  for (const MatrixInstr &i : portable->matrixInstrs(&ctx))
    EXPECT_EQ(i.operandSource, MatrixOperandSource::Registers) << i.mnemonic;
  EXPECT_TRUE(failed(portable->matrixInstrOf(acc, fn, &why)));
  EXPECT_NE(why.find("needs sm_90a"), std::string::npos) << why;
}

TEST_F(MatrixInstrTest, HopperRejectsWhatMmaSyncDoesNotServe) {
  auto info = TargetInfo::create("sm_90");
  std::string why;
  // gfx942's fp8 format has no NVIDIA instruction.
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(fnuz, fnuz, f32, 64, 64, 32, &why)));
  EXPECT_NE(why.find("no matrix instruction of sm_90 takes f8E4M3FNUZ"),
            std::string::npos)
      << why;
  // Tiles need K a multiple of 16, N of 8, M of 16.
  EXPECT_TRUE(failed(info->selectMatrixInstr(fn, fn, f32, 64, 64, 8, &why)));
  EXPECT_NE(why.find("for f8E4M3FN tiles 64x64x8 (MxNxK): supported shapes "
                     "are 16x8x32 16x8x16"),
            std::string::npos)
      << why;
  EXPECT_TRUE(failed(info->selectMatrixInstr(bf16, bf16, f32, 8, 8, 16, &why)));
  EXPECT_NE(why.find("supported shapes are 16x8x32 16x8x16"), std::string::npos)
      << why;
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(bf16, bf16, f32, 16, 4, 16, &why)));
  EXPECT_TRUE(
      failed(info->selectMatrixInstr(bf16, bf16, bf16, 16, 8, 16, &why)));
  EXPECT_NE(why.find("accumulates in f32 on sm_90"), std::string::npos) << why;
  EXPECT_TRUE(failed(info->selectMatrixInstr(bf16, fn, f32, 16, 8, 32, &why)));
  EXPECT_NE(why.find("one element type"), std::string::npos) << why;
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

// Hopper's accumulators are version-2 #tile.nv_mma of the instruction's
// 16x8xK tile, and its operands hold one 32-bit register's K elements
// (K / 8) per kWidth, as the PTX fragments do.
TEST_F(MatrixInstrTest, HopperEncodingsRoundTrip) {
  for (const char *chip : {"sm_90", "sm_90a"}) {
    auto info = TargetInfo::create(chip);
    for (const MatrixInstr &i : info->matrixInstrs(&ctx)) {
      if (i.operandSource != MatrixOperandSource::Registers)
        continue; // wgmma (HopperPrefersWgmmaOnSm90a)
      Attribute acc = info->matrixAccEncoding(&ctx, i, 2, 2, true);
      auto mma = dyn_cast_or_null<tile::NvMmaLayoutAttr>(acc);
      ASSERT_TRUE(mma) << chip;
      EXPECT_EQ(mma.getVersion(), 2u);
      EXPECT_EQ(mma.getInstrShape(), ArrayRef<unsigned>({16, 8, i.k}));
      EXPECT_EQ(mma.getWavesPerCTA(), ArrayRef<unsigned>({2, 2}));
      std::string why;
      auto back = info->matrixInstrOf(acc, i.operandType, &why);
      ASSERT_TRUE(succeeded(back)) << why;
      EXPECT_EQ(back->mnemonic, i.mnemonic);
      for (unsigned op = 0; op < 2; ++op) {
        auto enc = dyn_cast_or_null<tile::DotOperandLayoutAttr>(
            info->matrixOperandEncoding(acc, op, i));
        ASSERT_TRUE(enc);
        EXPECT_EQ(enc.getOpIdx(), op);
        EXPECT_EQ(enc.getParent(), acc);
        EXPECT_EQ(enc.getKWidth(), i.k / 8);
      }
    }
  }
}

// A portable sm_90 dot refuses MFMA and wgmma accumulators, and an nv_mma
// tile for an operand type it has no instruction for, with the reason.
TEST_F(MatrixInstrTest, HopperAccumulatorMustBeMmaSync) {
  auto info = TargetInfo::create("sm_90");
  auto bf = info->selectMatrixInstr(bf16, bf16, f32, 16, 8, 16, nullptr);
  ASSERT_TRUE(succeeded(bf));
  Attribute acc = info->matrixAccEncoding(&ctx, *bf, 1, 1, false);
  std::string why;
  EXPECT_TRUE(failed(info->matrixInstrOf(acc, fnuz, &why)));
  EXPECT_NE(why.find("no mma.sync of sm_90 has shape 16x8x16 with f8E4M3FNUZ"),
            std::string::npos)
      << why;
  // The accumulator of a shape serves fp8 and bf16, as different tiles.
  auto fp8 = info->selectMatrixInstr(fn, fn, f32, 16, 8, 32, nullptr);
  ASSERT_TRUE(succeeded(fp8));
  Attribute acc32 = info->matrixAccEncoding(&ctx, *fp8, 1, 1, false);
  auto asBf16 = info->matrixInstrOf(acc32, bf16, &why);
  ASSERT_TRUE(succeeded(asBf16)) << why;
  EXPECT_EQ(asBf16->operandType, bf16);
  EXPECT_EQ(asBf16->k, 32u);
  Attribute wgmma = tile::NvMmaLayoutAttr::get(&ctx, 3, {64, 64, 32}, {4, 1});
  EXPECT_TRUE(failed(info->matrixInstrOf(wgmma, fn, &why)));
  EXPECT_NE(why.find("wgmma (#tile.nv_mma version 3) needs sm_90a"),
            std::string::npos)
      << why;
  auto g = TargetInfo::create("gfx950");
  auto mfmaInstr = g->selectMatrixInstr(fn, fn, f32, 16, 16, 32, nullptr);
  ASSERT_TRUE(succeeded(mfmaInstr));
  Attribute mfma = g->matrixAccEncoding(&ctx, *mfmaInstr, 1, 1, false);
  EXPECT_TRUE(failed(info->matrixInstrOf(mfma, fn, &why)));
  EXPECT_NE(why.find("must have a #tile.nv_mma layout"), std::string::npos)
      << why;
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
  EXPECT_NE(why.find("must have a #tile.nv_mma layout"), std::string::npos)
      << why;
}

} // namespace
