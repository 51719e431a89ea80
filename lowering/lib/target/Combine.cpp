//===- Combine.cpp - Combining functions of reductions and scans ----------===//

#include "TargetInfoImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

Value tessel::emitCombine(OpBuilder &b, Location loc, CombineKind kind, Value x,
                          Value y) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(x.getType()));
  switch (kind) {
  case CombineKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case CombineKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case CombineKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  // The tile verifier keeps floats away from the unsigned kinds.
  case CombineKind::UMax:
    return arith::MaxUIOp::create(b, loc, x, y).getResult();
  case CombineKind::UMin:
    return arith::MinUIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown combine kind");
}

Value tessel::emitIdentity(OpBuilder &b, Location loc, Type t,
                           CombineKind kind) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat val = APFloat::getZero(sem);
    if (kind == CombineKind::Max)
      val = APFloat::getInf(sem, /*Negative=*/true);
    if (kind == CombineKind::Min)
      val = APFloat::getInf(sem, /*Negative=*/false);
    return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, val));
  }
  auto it = cast<IntegerType>(t);
  APInt val = APInt::getZero(it.getWidth()); // add, umax
  if (kind == CombineKind::Max)
    val = APInt::getSignedMinValue(it.getWidth());
  if (kind == CombineKind::Min)
    val = APInt::getSignedMaxValue(it.getWidth());
  if (kind == CombineKind::UMin)
    val = APInt::getMaxValue(it.getWidth());
  return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, val));
}

Value tessel::emitLaneId(OpBuilder &b, Location loc) {
  return arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr));
}

Value tessel::emitLaneBitField(OpBuilder &b, Location loc, Value lane,
                               unsigned firstBit, unsigned numBits) {
  Type i32 = b.getI32Type();
  Value shifted = arith::ShRUIOp::create(
      b, loc, lane, arith::ConstantIntOp::create(b, loc, i32, firstBit));
  return arith::AndIOp::create(
      b, loc, shifted,
      arith::ConstantIntOp::create(b, loc, i32, (int64_t(1) << numBits) - 1));
}

Value tessel::emitPerLaneWord(OpBuilder &b, Location loc, ValueRange vs,
                              function_ref<Value(ValueRange)> move) {
  Type t = vs.front().getType();
  if (t.getIntOrFloatBitWidth() == kLaneMoveBits)
    return move(vs);
  Type word = b.getIntegerType(kLaneMoveBits);
  Type pair = b.getIntegerType(2 * kLaneMoveBits);
  Value shift = arith::ConstantIntOp::create(b, loc, pair, kLaneMoveBits);
  SmallVector<Value> lo, hi;
  for (Value v : vs) {
    Value bits = t == pair ? v : arith::BitcastOp::create(b, loc, pair, v);
    lo.push_back(arith::TruncIOp::create(b, loc, word, bits));
    hi.push_back(arith::TruncIOp::create(
        b, loc, word, arith::ShRUIOp::create(b, loc, bits, shift)));
  }
  Value movedLo = arith::ExtUIOp::create(b, loc, pair, move(lo));
  Value movedHi = arith::ExtUIOp::create(b, loc, pair, move(hi));
  Value joined = arith::OrIOp::create(
      b, loc, movedLo, arith::ShLIOp::create(b, loc, movedHi, shift));
  return t == pair ? joined : arith::BitcastOp::create(b, loc, t, joined);
}
