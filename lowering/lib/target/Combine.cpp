//===- Combine.cpp - Combining functions of reductions and scans ----------===//

#include "TargetInfoImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

Value tessel::emitCombine(OpBuilder &b, Location loc, CombineKind kind,
                          Value x, Value y) {
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
  }
  llvm_unreachable("unknown combine kind");
}
