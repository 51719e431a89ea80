//===- CDNATargetInfo.cpp - gfx942 (CDNA3) and gfx950 (CDNA4) -------------===//
//
// Cross-lane movement on CDNA prefers DPP (free inside the VALU op), then
// ds_swizzle within 32 lanes, then permlane swaps on CDNA4, and ds_bpermute
// as the general fallback.
//
//===----------------------------------------------------------------------===//

#include "TargetInfoImpl.h"

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
  unsigned maxWorkgroupSize() const override { return 1024; }

  Type fp8Type(MLIRContext *ctx) const override {
    if (gen == CDNAGeneration::CDNA3)
      return Float8E4M3FNUZType::get(ctx);
    return Float8E4M3FNType::get(ctx);
  }
  double fp8Max() const override {
    return gen == CDNAGeneration::CDNA3 ? 240.0 : 448.0;
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

  Value emitWaveInclusiveScan(OpBuilder &b, Location loc, Value v,
                              CombineKind kind) const override {
    Value identity = identityOf(b, loc, v.getType(), kind);
    auto step = [&](amdgpu::DPPPerm perm, Attribute arg, unsigned rowMask) {
      // Lanes whose source is outside the row, or whose row is masked off,
      // keep `old` = identity.
      Value moved = amdgpu::DPPOp::create(
          b, loc, v.getType(), identity, v, perm, arg, rowMask,
          /*bank_mask=*/0xf, /*bound_ctrl=*/false);
      v = emitCombine(b, loc, kind, v, moved);
    };
    for (int shift : {1, 2, 4, 8})
      step(amdgpu::DPPPerm::row_shr, b.getI32IntegerAttr(shift), 0xf);
    step(amdgpu::DPPPerm::row_bcast_15, nullptr, 0xa);
    step(amdgpu::DPPPerm::row_bcast_31, nullptr, 0xc);
    return v;
  }

  Value emitReadLane(OpBuilder &b, Location loc, Value v,
                     Value lane) const override {
    return ROCDL::ReadlaneOp::create(b, loc, v.getType(), v, lane);
  }

private:
  static Value identityOf(OpBuilder &b, Location loc, Type t,
                          CombineKind kind) {
    if (auto ft = dyn_cast<FloatType>(t)) {
      APFloat val = APFloat::getZero(ft.getFloatSemantics());
      if (kind == CombineKind::Max)
        val = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true);
      if (kind == CombineKind::Min)
        val = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/false);
      return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, val));
    }
    auto it = cast<IntegerType>(t);
    APInt val = APInt::getZero(it.getWidth());
    if (kind == CombineKind::Max)
      val = APInt::getSignedMinValue(it.getWidth());
    if (kind == CombineKind::Min)
      val = APInt::getSignedMaxValue(it.getWidth());
    return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, val));
  }

  /// The value of lane (id ^ (1 << bit)), or with `lowerBitsReduced` any
  /// lane of the other half of the 2^(bit+1) group.
  Value exchange(OpBuilder &b, Location loc, Value v, unsigned bit,
                 bool lowerBitsReduced) const {
    Type t = v.getType();
    auto dpp = [&](amdgpu::DPPPerm perm, Attribute arg) -> Value {
      return amdgpu::DPPOp::create(b, loc, t, v, v, perm, arg, 0xf, 0xf,
                                   false);
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
      return bpermuteXor(b, loc, v, 32);
    default:
      break;
    }
    // ds_swizzle's bit mode permutes within 32 lanes.
    return amdgpu::SwizzleBitModeOp::create(b, loc, v, /*and_mask=*/0x1f,
                                            /*or_mask=*/0, 1u << bit);
  }

  static Value bpermuteXor(OpBuilder &b, Location loc, Value v,
                           unsigned mask) {
    Type i32 = b.getI32Type();
    Value lane = arith::IndexCastOp::create(
        b, loc, i32, gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr));
    Value partner = arith::XOrIOp::create(
        b, loc, lane, arith::ConstantIntOp::create(b, loc, i32, mask));
    Value addr = arith::ShLIOp::create(
        b, loc, partner, arith::ConstantIntOp::create(b, loc, i32, 2));
    Value bits = v.getType() == i32
                     ? v
                     : arith::BitcastOp::create(b, loc, i32, v).getResult();
    Value got = ROCDL::DsBpermuteOp::create(b, loc, i32, addr, bits);
    if (v.getType() == i32)
      return got;
    return arith::BitcastOp::create(b, loc, v.getType(), got);
  }

  CDNAGeneration gen;
};

} // namespace

std::unique_ptr<TargetInfo> tessel::createCDNATargetInfo(CDNAGeneration gen) {
  return std::make_unique<CDNATargetInfo>(gen);
}
