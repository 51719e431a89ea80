//===- NVVMFp8.cpp - fp8 truncation for the NVIDIA back end ---------------===//
//
// LLVM's NVPTX target has no fp8 types, so arith.truncf to f8E4M3FN/f8E5M2 is
// rewritten before convert-gpu-to-nvvm into
// `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` (nvvm.convert.f32x2.to.f8x2), which
// rounds to nearest even, saturates to the largest finite value and keeps NaN,
// as SIMT IR requires. The bytes are then bitcast back to the fp8 type, which
// the LLVM type converter maps to i8.
//
//===----------------------------------------------------------------------===//

#include "BackendInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace tessel::backend {

/// Converts the f32 pair (lo, hi) into two fp8 bytes; byte 0 holds lo. The
/// PTX instruction puts its first operand in the upper byte.
static Value convertPair(OpBuilder &b, Location loc, Value lo, Value hi,
                         Type fp8Type) {
  auto bytes = VectorType::get({2}, b.getI8Type());
  return NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, bytes, hi, lo, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, fp8Type);
}

static LogicalResult rewriteTruncf(arith::TruncFOp op) {
  Type resultType = op.getType();
  Type fp8 = getElementTypeOrSelf(resultType);
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(fp8))
    return op.emitError() << "fp8 type " << fp8
                          << " is not supported on NVIDIA targets; use "
                             "f8E4M3FN or f8E5M2";
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = op.getIn();
  Type srcElem = getElementTypeOrSelf(src.getType());
  Type f32 = b.getF32Type();
  auto withElem = [&](Type t, Type elem) -> Type {
    if (auto vt = dyn_cast<VectorType>(t))
      return vt.clone(elem);
    return elem;
  };
  if (srcElem.isF16() || srcElem.isBF16())
    src = arith::ExtFOp::create(b, loc, withElem(src.getType(), f32), src);
  else if (!srcElem.isF32())
    return op.emitError() << "fp8 truncation from " << srcElem
                          << " is not supported on NVIDIA targets";

  auto vecType = dyn_cast<VectorType>(resultType);
  if (!vecType) {
    Value pair = convertPair(b, loc, src, src, fp8);
    Value byte = vector::ExtractOp::create(b, loc, pair, int64_t(0));
    op.getResult().replaceAllUsesWith(
        arith::BitcastOp::create(b, loc, fp8, byte).getResult());
    op.erase();
    return success();
  }
  if (vecType.getRank() != 1 || vecType.isScalable())
    return op.emitError()
           << "fp8 truncation of " << vecType
           << " is not supported on NVIDIA targets; expected a 1-D vector";
  int64_t n = vecType.getNumElements();
  SmallVector<Value> elems, bytes;
  for (int64_t i = 0; i < n; ++i)
    elems.push_back(vector::ExtractOp::create(b, loc, src, i));
  for (int64_t i = 0; i < n; i += 2) {
    Value hi = i + 1 < n ? elems[i + 1] : elems[i];
    Value pair = convertPair(b, loc, elems[i], hi, fp8);
    bytes.push_back(vector::ExtractOp::create(b, loc, pair, int64_t(0)));
    if (i + 1 < n)
      bytes.push_back(vector::ExtractOp::create(b, loc, pair, int64_t(1)));
  }
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({n}, b.getI8Type()), bytes);
  op.getResult().replaceAllUsesWith(
      arith::BitcastOp::create(b, loc, vecType, packed).getResult());
  op.erase();
  return success();
}

LogicalResult lowerFp8TruncfToNVVM(ModuleOp module) {
  SmallVector<arith::TruncFOp> truncs;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](arith::TruncFOp op) {
      if (isa<FloatType>(getElementTypeOrSelf(op.getType())) &&
          getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth() == 8)
        truncs.push_back(op);
    });
  });
  for (arith::TruncFOp op : truncs)
    if (failed(rewriteTruncf(op)))
      return failure();
  return success();
}

} // namespace tessel::backend
