//===- AsyncCopy.cpp - Global-to-LDS copies per target --------------------===//

#include "AsyncCopy.h"

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessel;

void tessel::emitCopyThroughRegisters(OpBuilder &b, Location loc, Value src,
                                      Value srcIdx, Value dst, Value dstIdx,
                                      int64_t elems, Value pred) {
  Type elem = cast<MemRefType>(src.getType()).getElementType();
  auto vt = VectorType::get({elems}, elem);
  unsigned bytes = elems * std::max(1u, elem.getIntOrFloatBitWidth() / 8);
  auto load = [&](OpBuilder &ob) -> Value {
    return vector::LoadOp::create(ob, loc, vt, src, ValueRange{srcIdx},
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(bytes));
  };
  Value v;
  if (!pred) {
    v = load(b);
  } else {
    auto ifOp = scf::IfOp::create(
        b, loc, pred,
        [&](OpBuilder &ob, Location) {
          scf::YieldOp::create(ob, loc, load(ob));
        },
        [&](OpBuilder &ob, Location) {
          Value z = arith::ConstantOp::create(ob, loc, vt, ob.getZeroAttr(vt));
          scf::YieldOp::create(ob, loc, z);
        });
    v = ifOp.getResult(0);
  }
  vector::StoreOp::create(b, loc, v, dst, ValueRange{dstIdx},
                          /*nontemporal=*/false, llvm::MaybeAlign(bytes));
}

void TargetInfo::emitAsyncCopy(OpBuilder &b, Location loc, Value src,
                               Value srcIdx, Value dst, Value dstIdx,
                               int64_t elems, Value pred) const {
  emitCopyThroughRegisters(b, loc, src, srcIdx, dst, dstIdx, elems, pred);
}

void TargetInfo::emitAsyncBarrierWait(OpBuilder &b, Location loc, Value,
                                      Value) const {
  gpu::BarrierOp::create(b, loc);
}

namespace {
Value sharedPtr(OpBuilder &b, Location loc, Value addr) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*shared=*/3), addr);
}
} // namespace

void tessel::emitMbarrierInit(OpBuilder &b, Location loc, Value addr,
                              unsigned arrivals) {
  NVVM::MBarrierInitOp::create(
      b, loc, sharedPtr(b, loc, addr),
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), arrivals),
      /*predicate=*/Value());
}

void tessel::emitCpAsyncMbarrierArrive(OpBuilder &b, Location loc, Value addr) {
  // .noinc: the arrival counts against the expected count (one per lane),
  // instead of being balanced by an increment.
  NVVM::CpAsyncMBarrierArriveOp::create(b, loc, sharedPtr(b, loc, addr),
                                        /*noinc=*/true);
}

void tessel::emitMbarrierWaitParity(OpBuilder &b, Location loc, Value addr,
                                    Value parity) {
  // The suspend-time hint (ns) before the op's loop tries again.
  constexpr int64_t kSuspendNs = 1000000;
  NVVM::MBarrierTryWaitParityOp::create(
      b, loc, sharedPtr(b, loc, addr), parity,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kSuspendNs));
}

void tessel::emitCpAsync(OpBuilder &b, Location loc, Value src, Value srcIdx,
                         Value dst, Value dstIdx, int64_t elems, Value pred) {
  Type elem = cast<MemRefType>(src.getType()).getElementType();
  int64_t bytes = elems * std::max(1u, elem.getIntOrFloatBitWidth() / 8);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitCopyThroughRegisters(b, loc, src, srcIdx, dst, dstIdx, elems,
                                    pred);
  // Masked-off lanes read 0 source bytes: cp.async fills the rest of the
  // destination with zeros.
  Value srcElems;
  if (pred) {
    Value all = arith::ConstantIndexOp::create(b, loc, elems);
    Value none = arith::ConstantIndexOp::create(b, loc, 0);
    srcElems = arith::SelectOp::create(b, loc, pred, all, none);
  }
  auto token = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  nvgpu::DeviceAsyncCopyOp::create(b, loc, token, dst, ValueRange{dstIdx}, src,
                                   ValueRange{srcIdx}, b.getIndexAttr(elems),
                                   srcElems,
                                   bytes == 16 ? b.getUnitAttr() : UnitAttr());
}

void tessel::emitCpAsyncCommitGroup(OpBuilder &b, Location loc) {
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

void tessel::emitCpAsyncWaitGroup(OpBuilder &b, Location loc,
                                  unsigned pending) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
}
