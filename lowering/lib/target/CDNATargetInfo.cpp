//===- CDNATargetInfo.cpp - gfx942 (CDNA3) and gfx950 (CDNA4) -------------===//
//
// Cross-lane movement on CDNA prefers DPP (free inside the VALU op), then
// ds_swizzle within 32 lanes, then permlane swaps on CDNA4, and ds_bpermute
// as the general fallback.
//
//===----------------------------------------------------------------------===//

#include "TargetInfoImpl.h"

#include "tessel/Dialect/Tile/MfmaShapes.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/compute_unit.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace tessel;

namespace {

class CDNATargetInfo : public TargetInfo {
public:
  explicit CDNATargetInfo(CDNAGeneration gen) : gen(gen) {}

  StringRef name() const override {
    return gen == CDNAGeneration::CDNA3 ? "gfx942" : "gfx950";
  }
  Vendor vendor() const override { return Vendor::AMD; }
  StringRef triple() const override { return "amdgcn-amd-amdhsa"; }
  StringRef chip() const override { return name(); }
  StringRef features() const override { return ""; }
  unsigned waveSize() const override { return 64; }
  unsigned maxVectorBytes() const override { return 16; }
  bool supportsBoundedBufferLoads() const override { return true; }
  unsigned maxWorkgroupSize() const override { return 1024; }
  unsigned registersPerLane() const override {
    return computeUnit().registersPerLane;
  }
  unsigned ldsBytesPerWorkgroup() const override {
    return computeUnit().ldsBytes;
  }
  unsigned ldsBankRowBytes() const override { return 128; }
  StringRef deviceSyncScope() const override { return "agent"; }
  // s_sleep 2: about 128 clocks, long enough to free the memory pipe and
  // short next to a barrier's round trip through L2.
  void emitSpinBackoff(OpBuilder &b, Location loc) const override {
    ROCDL::SSleepOp::create(b, loc, 2);
  }

  Type fp8Type(MLIRContext *ctx) const override {
    if (gen == CDNAGeneration::CDNA3)
      return Float8E4M3FNUZType::get(ctx);
    return Float8E4M3FNType::get(ctx);
  }
  double fp8Max() const override {
    return gen == CDNAGeneration::CDNA3 ? 240.0 : 448.0;
  }

  const AmdComputeUnit &computeUnit() const {
    return *findAmdComputeUnit(name().data());
  }

  /// `#tile.mfma` version of this chip.
  unsigned mfmaVersion() const { return gen == CDNAGeneration::CDNA3 ? 3 : 4; }

  /// Mnemonic suffix of each operand kind.
  static StringRef mnemonicSuffix(tile::MfmaOperandKind kind) {
    switch (kind) {
    case tile::MfmaOperandKind::Fp8:
      return "_fp8_fp8";
    case tile::MfmaOperandKind::Bf16:
      return "_bf16";
    case tile::MfmaOperandKind::F8F6F4:
      return "_f8f6f4";
    }
    llvm_unreachable("unknown MfmaOperandKind");
  }

  MatrixInstr instrFor(MLIRContext *ctx, const tile::MfmaShape &s) const {
    // gfx942's fp8_fp8 instructions read e4m3fnuz, gfx950's read e4m3fn:
    // the same mnemonic follows the chip's fp8 format. The f8f6f4 forms
    // (CDNA4 only) read e4m3fn A and B here.
    bool bf16 = s.operand == tile::MfmaOperandKind::Bf16;
    std::string mnemonic = "v_mfma_f32_" + std::to_string(s.m) + "x" +
                           std::to_string(s.n) + "x" + std::to_string(s.k) +
                           mnemonicSuffix(s.operand).str();
    MatrixInstr i;
    i.m = s.m;
    i.n = s.n;
    i.k = s.k;
    i.operandType = bf16 ? Type(BFloat16Type::get(ctx)) : fp8Type(ctx);
    i.kPerLane = s.kPerLane();
    i.accPerLane = s.m * s.n / waveSize();
    i.mnemonic = mnemonic;
    return i;
  }

  SmallVector<MatrixInstr> matrixInstrs(MLIRContext *ctx) const override {
    // CDNA4's double-rate fp8 forms first: where the dot's K is a multiple
    // of theirs, one of them does the work of four 16x16x32 (or 32x32x16)
    // fp8_fp8 instructions. Otherwise the table's order.
    auto doubleRate = [](const tile::MfmaShape &s) {
      return s.operand == tile::MfmaOperandKind::F8F6F4;
    };
    SmallVector<MatrixInstr> instrs;
    for (bool wantDoubleRate : {true, false})
      for (const tile::MfmaShape &s : tile::kMfmaShapes)
        if (s.minVersion <= mfmaVersion() && doubleRate(s) == wantDoubleRate)
          instrs.push_back(instrFor(ctx, s));
    return instrs;
  }

  Attribute matrixAccEncoding(MLIRContext *ctx, const MatrixInstr &instr,
                              unsigned wavesM, unsigned wavesN,
                              bool transposed) const override {
    return tile::MfmaLayoutAttr::get(ctx, mfmaVersion(),
                                     {instr.m, instr.n, instr.k},
                                     {wavesM, wavesN}, transposed);
  }

  Attribute matrixOperandEncoding(Attribute acc, unsigned opIdx,
                                  const MatrixInstr &instr,
                                  int64_t dotK) const override {
    // kWidth is the instruction's own run of consecutive K per lane: all of
    // kPerLane, or 16 for the f8f6f4 forms, whose lanes hold two runs K/2
    // apart. The operand registers are then the hardware's, and the dot
    // lowering gathers each instruction's slots from the layout. Where the
    // dot's K allows, a CDNA3 form gets runs of one 16-byte load per lane
    // (kWidth 16 for fp8, 8 for bf16), each read by several instructions.
    const tile::MfmaShape *s =
        tile::findMfmaShape(mfmaVersion(), instr.m, instr.n, instr.k);
    unsigned kWidth = s ? s->kRun() : instr.kPerLane;
    if (s && s->operand != tile::MfmaOperandKind::F8F6F4 && dotK > 0) {
      unsigned elemBytes =
          std::max(1u, instr.operandType.getIntOrFloatBitWidth() / 8);
      int64_t lanesAlongK = waveSize() / instr.m;
      while (int64_t(kWidth) * 2 * elemBytes <= maxVectorBytes() &&
             dotK % (int64_t(kWidth) * 2 * lanesAlongK) == 0)
        kWidth *= 2;
    }
    return tile::DotOperandLayoutAttr::get(acc.getContext(), opIdx, acc,
                                           kWidth);
  }

  FailureOr<MatrixInstr> matrixInstrOf(Attribute acc, Type operandType,
                                       std::string *why) const override {
    auto fail = [&](const Twine &msg) -> FailureOr<MatrixInstr> {
      if (why)
        *why = msg.str();
      return failure();
    };
    auto mfma = dyn_cast_or_null<tile::MfmaLayoutAttr>(acc);
    if (!mfma)
      return fail("the accumulator of a dot on " + name() +
                  " must have a #tile.mfma layout");
    if (mfma.getVersion() != mfmaVersion())
      return fail("#tile.mfma version " + Twine(mfma.getVersion()) +
                  " does not match " + name() + " (version " +
                  Twine(mfmaVersion()) + ")");
    return findMatrixInstr(matrixInstrs(operandType.getContext()),
                           mfma.getInstrShape(), operandType, "MFMA", name(),
                           why);
  }

  Value emitMatrixInstr(OpBuilder &b, Location loc, const MatrixInstr &instr,
                        Attribute accEncoding, Value a, Value bv,
                        Value acc) const override {
    // A transposed accumulator holds D^T = B^T A^T: the same operand
    // registers with the instruction's A and B swapped.
    auto mfma = dyn_cast<tile::MfmaLayoutAttr>(accEncoding);
    if (mfma && mfma.getTransposed())
      std::swap(a, bv);
    return amdgpu::MFMAOp::create(b, loc, acc.getType(), instr.m, instr.n,
                                  instr.k, /*blocks=*/1, a, bv, acc)
        .getResult();
  }

  Value emitLaneGroupReduce(OpBuilder &b, Location loc, Value v,
                            CombineKind kind, unsigned firstBit,
                            unsigned numBits) const override {
    // Mirrors stand in for xor 4 / xor 8 only once the lower bits are
    // reduced: every lane then combines with a lane of the other half.
    bool lowerBitsReduced = firstBit == 0;
    for (unsigned bit = firstBit; bit < firstBit + numBits; ++bit)
      v = emitCombine(b, loc, kind, v,
                      exchange(b, loc, v, bit, lowerBitsReduced));
    return v;
  }

  Value emitLaneGroupInclusiveScan(OpBuilder &b, Location loc, Value v,
                                   CombineKind kind, unsigned firstBit,
                                   unsigned numBits) const override {
    Value identity = emitIdentity(b, loc, v.getType(), kind);
    auto dppStep = [&](amdgpu::DPPPerm perm, Attribute arg, unsigned rowMask) {
      // Lanes whose source is outside the row, or whose row is masked off,
      // keep `old` = identity.
      return emitPerLaneWord(b, loc, {identity, v}, [&](ValueRange w) {
        return amdgpu::DPPOp::create(b, loc, w[1].getType(), w[0], w[1], perm,
                                     arg, rowMask, /*bank_mask=*/0xf,
                                     /*bound_ctrl=*/false)
            .getResult();
      });
    };
    if (firstBit == 0 && numBits == 6) {
      // The whole wave: shifts inside each row of 16, then row 15's total
      // into rows 1 and 3 and lane 31's into rows 2 and 3 (the gfx9 idiom).
      for (int shift : {1, 2, 4, 8})
        v = emitCombine(
            b, loc, kind, v,
            dppStep(amdgpu::DPPPerm::row_shr, b.getI32IntegerAttr(shift), 0xf));
      v = emitCombine(b, loc, kind, v,
                      dppStep(amdgpu::DPPPerm::row_bcast_15, nullptr, 0xa));
      v = emitCombine(b, loc, kind, v,
                      dppStep(amdgpu::DPPPerm::row_bcast_31, nullptr, 0xc));
      return v;
    }
    // Hillis-Steele over the group's bit field: step s combines with the
    // lane 2^s positions earlier in the group, where there is one. Groups
    // inside a row of 16 shift with DPP, others through ds_bpermute.
    Type i32 = b.getI32Type();
    Value lane = emitLaneId(b, loc);
    Value field = emitLaneBitField(b, loc, lane, firstBit, numBits);
    for (unsigned s = 0; s < numBits; ++s) {
      int64_t dist = int64_t(1) << (firstBit + s);
      Value moved;
      if (firstBit + numBits <= 4) {
        moved =
            dppStep(amdgpu::DPPPerm::row_shr, b.getI32IntegerAttr(dist), 0xf);
      } else {
        Value src = arith::SubIOp::create(
            b, loc, lane, arith::ConstantIntOp::create(b, loc, i32, dist));
        moved = emitLaneShuffle(b, loc, v, src);
      }
      Value has = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, field,
          arith::ConstantIntOp::create(b, loc, i32, int64_t(1) << s));
      v = arith::SelectOp::create(b, loc, has,
                                  emitCombine(b, loc, kind, v, moved), v);
    }
    return v;
  }

  Value emitLaneShuffle(OpBuilder &b, Location loc, Value v,
                        Value srcLane) const override {
    // ds_bpermute addresses lanes in bytes; only the low bits count, so a
    // negative source wraps to a lane the caller ignores.
    Type i32 = b.getI32Type();
    Value addr = arith::ShLIOp::create(
        b, loc, srcLane, arith::ConstantIntOp::create(b, loc, i32, 2));
    return emitPerLaneWord(b, loc, v, [&](ValueRange w) -> Value {
      Type t = w[0].getType();
      Value bits =
          t == i32 ? w[0] : arith::BitcastOp::create(b, loc, i32, w[0]);
      Value got = ROCDL::DsBpermuteOp::create(b, loc, i32, addr, bits);
      return t == i32 ? got : arith::BitcastOp::create(b, loc, t, got);
    });
  }

  bool hasActiveBallot() const override { return true; }

  Value emitActiveBallot(OpBuilder &b, Location loc,
                         Value pred) const override {
    // v_cmp writes only the active lanes' bits of the mask.
    return ROCDL::BallotOp::create(b, loc, b.getI64Type(), pred);
  }

  Value emitReadFirstActiveLane(OpBuilder &b, Location loc,
                                Value v) const override {
    return ROCDL::ReadfirstlaneOp::create(b, loc, v.getType(), v);
  }

  Value emitWaveBallot(OpBuilder &b, Location loc, Value pred) const override {
    return ROCDL::BallotOp::create(b, loc, b.getI64Type(), pred);
  }

  // v_mbcnt_lo/hi count the mask's bits below the lane in each half.
  Value emitCountBelow(OpBuilder &b, Location loc, Value mask, Value,
                       Value base) const override {
    Type i32 = b.getI32Type();
    Value lo = arith::TruncIOp::create(b, loc, i32, mask);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(
            b, loc, mask,
            arith::ConstantIntOp::create(b, loc, mask.getType(), 32)));
    Value below =
        ROCDL::MbcntLoOp::create(b, loc, i32, lo, base, nullptr, nullptr);
    return ROCDL::MbcntHiOp::create(b, loc, i32, hi, below, nullptr, nullptr);
  }

private:
  /// The value of lane (id ^ (1 << bit)), or with `lowerBitsReduced` any
  /// lane of the other half of the 2^(bit+1) group.
  Value exchange(OpBuilder &b, Location loc, Value v, unsigned bit,
                 bool lowerBitsReduced) const {
    return emitPerLaneWord(b, loc, v, [&](ValueRange w) {
      return exchangeWord(b, loc, w[0], bit, lowerBitsReduced);
    });
  }

  /// exchange() of one 32-bit word.
  Value exchangeWord(OpBuilder &b, Location loc, Value v, unsigned bit,
                     bool lowerBitsReduced) const {
    Type t = v.getType();
    auto dpp = [&](amdgpu::DPPPerm perm, Attribute arg) -> Value {
      return amdgpu::DPPOp::create(b, loc, t, v, v, perm, arg, 0xf, 0xf, false);
    };
    auto quad = [&](std::array<int32_t, 4> sel) {
      return b.getI32ArrayAttr(sel);
    };
    switch (bit) {
    case 0:
      return dpp(amdgpu::DPPPerm::quad_perm, quad({1, 0, 3, 2}));
    case 1:
      return dpp(amdgpu::DPPPerm::quad_perm, quad({2, 3, 0, 1}));
    case 2:
      if (lowerBitsReduced)
        return dpp(amdgpu::DPPPerm::row_half_mirror, nullptr);
      break;
    case 3:
      if (lowerBitsReduced)
        return dpp(amdgpu::DPPPerm::row_mirror, nullptr);
      break;
    case 4:
      if (gen == CDNAGeneration::CDNA4)
        return amdgpu::PermlaneSwapOp::create(b, loc, v, 16, false, false);
      break;
    case 5:
      if (gen == CDNAGeneration::CDNA4)
        return amdgpu::PermlaneSwapOp::create(b, loc, v, 32, false, false);
      return emitLaneShuffle(
          b, loc, v,
          arith::XOrIOp::create(
              b, loc, emitLaneId(b, loc),
              arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32)));
    default:
      break;
    }
    // ds_swizzle's bit mode permutes within 32 lanes.
    return amdgpu::SwizzleBitModeOp::create(b, loc, v, /*and_mask=*/0x1f,
                                            /*or_mask=*/0, 1u << bit);
  }

  CDNAGeneration gen;
};

} // namespace

std::unique_ptr<TargetInfo> tessel::createCDNATargetInfo(CDNAGeneration gen) {
  return std::make_unique<CDNATargetInfo>(gen);
}
