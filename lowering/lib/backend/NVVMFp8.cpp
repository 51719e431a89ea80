//===- NVVMFp8.cpp - fp8 conversions for the NVIDIA back end --------------===//
//
// LLVM's NVPTX target has no fp8 types, so before convert-gpu-to-nvvm:
// - arith.truncf to f8E4M3FN/f8E5M2 becomes
// `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`
//   (nvvm.convert.f32x2.to.f8x2): round to nearest even, saturate to the
//   largest finite value, NaN stays NaN, as SIMT IR requires;
// - arith.extf from them becomes `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact), then a
//   widening from f16.
// The bytes are bitcast to and from the fp8 type, which the LLVM type
// converter maps to i8.
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

/// Rewrites arith.extf from fp8 into `cvt.rn.f16x2.{e4m3,e5m2}x2` (exact)
/// followed by a widening from f16 when the result is wider.
static LogicalResult rewriteExtf(arith::ExtFOp op) {
  Value src = op.getIn();
  Type fp8 = getElementTypeOrSelf(src.getType());
  Type resultElem = getElementTypeOrSelf(op.getType());
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(fp8))
    return op.emitError() << "fp8 type " << fp8
                          << " is not supported on NVIDIA targets; use "
                             "f8E4M3FN or f8E5M2";
  if (!resultElem.isF16() && !resultElem.isF32() && !resultElem.isF64())
    return op.emitError() << "fp8 extension to " << resultElem
                          << " is not supported on NVIDIA targets";
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i8 = b.getI8Type();
  auto pairType = VectorType::get({2}, i8);
  auto halfPair = VectorType::get({2}, b.getF16Type());
  auto widen = [&](Value half) -> Value {
    if (resultElem.isF16())
      return half;
    return arith::ExtFOp::create(b, loc, resultElem, half);
  };
  auto convert = [&](Value lo, Value hi) -> Value {
    Value pair =
        vector::FromElementsOp::create(b, loc, pairType, ValueRange{lo, hi});
    return NVVM::ConvertF8x2ToF16x2Op::create(b, loc, halfPair, pair,
                                              /*relu=*/false, fp8);
  };

  auto vecType = dyn_cast<VectorType>(src.getType());
  if (!vecType) {
    Value byte = arith::BitcastOp::create(b, loc, i8, src);
    Value halves = convert(byte, byte);
    op.getResult().replaceAllUsesWith(
        widen(vector::ExtractOp::create(b, loc, halves, int64_t(0))));
    op.erase();
    return success();
  }
  if (vecType.getRank() != 1 || vecType.isScalable())
    return op.emitError()
           << "fp8 extension of " << vecType
           << " is not supported on NVIDIA targets; expected a 1-D vector";
  int64_t n = vecType.getNumElements();
  Value bytes = arith::BitcastOp::create(b, loc, vecType.clone(i8), src);
  SmallVector<Value> elems, results;
  for (int64_t i = 0; i < n; ++i)
    elems.push_back(vector::ExtractOp::create(b, loc, bytes, i));
  for (int64_t i = 0; i < n; i += 2) {
    Value halves = convert(elems[i], i + 1 < n ? elems[i + 1] : elems[i]);
    results.push_back(
        widen(vector::ExtractOp::create(b, loc, halves, int64_t(0))));
    if (i + 1 < n)
      results.push_back(
          widen(vector::ExtractOp::create(b, loc, halves, int64_t(1))));
  }
  op.getResult().replaceAllUsesWith(
      vector::FromElementsOp::create(b, loc, cast<VectorType>(op.getType()),
                                     results)
          .getResult());
  op.erase();
  return success();
}

static bool isFp8(Type t) {
  Type elem = getElementTypeOrSelf(t);
  return isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8;
}

LogicalResult lowerFp8ConversionsToNVVM(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](gpu::GPUModuleOp gpuModule) {
    gpuModule.walk([&](Operation *op) {
      if (auto trunc = dyn_cast<arith::TruncFOp>(op);
          trunc && isFp8(trunc.getType()))
        ops.push_back(op);
      if (auto ext = dyn_cast<arith::ExtFOp>(op);
          ext && isFp8(ext.getIn().getType()))
        ops.push_back(op);
    });
  });
  for (Operation *op : ops) {
    LogicalResult result = isa<arith::TruncFOp>(op)
                               ? rewriteTruncf(cast<arith::TruncFOp>(op))
                               : rewriteExtf(cast<arith::ExtFOp>(op));
    if (failed(result))
      return failure();
  }
  return success();
}

} // namespace tessel::backend
