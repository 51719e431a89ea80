//===- GridBarrierToSimt.cpp - tile.grid_barrier to SIMT IR ---------------===//
//
// Lane 0 of wave 0 of every workgroup runs, between two workgroup barriers:
//
//   gen = load(ptr[offset + 1])                      relaxed, device scope
//   fence release                                    (the workgroup's writes
//                                                     and the read of gen
//                                                     before the arrival)
//   old = atomic add(ptr[offset], 1)                 relaxed, device scope
//   if old == programs - 1:                          the last to arrive
//     store(ptr[offset], 0)                          count back to 0
//     fence acq_rel                                  (every arrival's writes
//                                                     before the release)
//     atomic add(ptr[offset + 1], 1)                 the new generation
//   else:
//     while load(ptr[offset + 1]) == gen: backoff
//   fence acquire
//
// The atomics are relaxed `llvm` atomics on a pointer to the workspace,
// ordered by explicit fences: LLVM's NVPTX back end drops the ordering of
// an `atomicrmw` (it prints a relaxed `atom`), while fences become
// `fence.acq_rel.gpu`, and memref.atomic_rmw would be system scope
// acq_rel, which on AMD writes back the whole L2 on every spin.
// The generation is read before the arrival, so a barrier cannot miss its
// own release; it is compared for equality, so it may wrap.
//
//===----------------------------------------------------------------------===//

#include "GridBarrierToSimt.h"

#include "SimtLoweringState.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// Device-scope relaxed atomics and fences on the barrier's two words.
struct BarrierWords {
  OpBuilder &b;
  Location loc;
  StringRef scope;
  Value count, gen; // !llvm.ptr<1>

  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value load(Value p) {
    return LLVM::LoadOp::create(b, loc, b.getI32Type(), p, /*alignment=*/4,
                                false, false, false, false,
                                LLVM::AtomicOrdering::monotonic, scope);
  }
  void store(Value v, Value p) {
    LLVM::StoreOp::create(b, loc, v, p, /*alignment=*/4, false, false, false,
                          LLVM::AtomicOrdering::monotonic, scope);
  }
  Value add(Value p, int64_t v) {
    return LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, p, i32(v),
                                     LLVM::AtomicOrdering::monotonic, scope,
                                     /*alignment=*/4);
  }
  void fence(LLVM::AtomicOrdering o) {
    LLVM::FenceOp::create(b, loc, o, scope);
  }
};

/// A global pointer (address space 1) to element `idx` (i64) of the i32
/// memref `mem`: its aligned base plus 4 * idx bytes. Tessel passes kernel
/// buffers with offset 0 (SIMT_IR.md).
Value wordPointer(OpBuilder &b, Location loc, Value mem, Value idx) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
  Value addr = arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
  Value four = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(4));
  Value bytes = arith::MulIOp::create(b, loc, idx, four);
  addr = arith::AddIOp::create(b, loc, addr, bytes);
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 1);
  return LLVM::IntToPtrOp::create(b, loc, ptrTy, addr);
}

/// The number of programs: the product of the grid's three sizes (i32).
Value numPrograms(OpBuilder &b, Location loc) {
  Value n;
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    Value s = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         gpu::GridDimOp::create(b, loc, d));
    n = n ? arith::MulIOp::create(b, loc, n, s).getResult() : s;
  }
  return n;
}

/// The spin of the programs that did not arrive last: reload the
/// generation, with a backoff, until it differs from `gen`.
void emitSpin(OpBuilder &b, Location loc, BarrierWords &w, Value gen,
              const TargetInfo &target) {
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  b.createBlock(&loop.getBefore());
  Value now = w.load(w.gen);
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, now, gen);
  scf::ConditionOp::create(b, loc, same, ValueRange{});
  b.createBlock(&loop.getAfter());
  target.emitSpinBackoff(b, loc);
  scf::YieldOp::create(b, loc);
  b.setInsertionPointAfter(loop);
}

struct GridBarrierPattern : public OpConversionPattern<GridBarrierOp> {
  GridBarrierPattern(const TypeConverter &tc, MLIRContext *ctx,
                     LoweringState &state)
      : OpConversionPattern(tc, ctx), state(state) {}
  LoweringState &state;

  LogicalResult
  matchAndRewrite(GridBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    APInt constOff;
    if (matchPattern(op.getOffset(), m_ConstantInt(&constOff)) &&
        constOff.isNegative())
      return op.emitError() << "the barrier workspace offset is negative ("
                            << constOff.getSExtValue()
                            << "); it indexes the two i32 words (count, "
                               "generation) from the pointer";
    KernelState &ks = state.of(op);
    const TargetInfo &target = *state.target;
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    rewriter.modifyOpInPlace(func, [&] {
      func->setAttr(kGridBarrierAttrName, rewriter.getUnitAttr());
    });

    Value off = adaptor.getOffset();
    if (!off.getType().isInteger(64))
      off = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), off);
    Value one64 =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(1));
    Value genOff = arith::AddIOp::create(rewriter, loc, off, one64);
    Value total = numPrograms(rewriter, loc);

    gpu::BarrierOp::create(rewriter, loc);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
    Value leader = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, ks.lane,
                              zero),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, ks.wave,
                              zero));
    auto ifLeader = scf::IfOp::create(rewriter, loc, leader,
                                      /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(ifLeader.thenBlock());
      OpBuilder &b = rewriter;
      BarrierWords w{b, loc, target.deviceSyncScope(), Value(), Value()};
      w.count = wordPointer(b, loc, adaptor.getPtr(), off);
      w.gen = wordPointer(b, loc, adaptor.getPtr(), genOff);
      Value gen = w.load(w.gen);
      w.fence(LLVM::AtomicOrdering::release);
      Value old = w.add(w.count, 1);
      Value lastIdx = arith::SubIOp::create(b, loc, total, w.i32(1));
      Value last =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, lastIdx);
      auto ifLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/true);
      b.setInsertionPointToStart(ifLast.thenBlock());
      w.store(w.i32(0), w.count);
      w.fence(LLVM::AtomicOrdering::acq_rel);
      w.add(w.gen, 1);
      b.setInsertionPointToStart(ifLast.elseBlock());
      emitSpin(b, loc, w, gen, target);
      b.setInsertionPointAfter(ifLast);
      w.fence(LLVM::AtomicOrdering::acquire);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tessel::populateGridBarrierToSimtPatterns(const TypeConverter &tc,
                                               RewritePatternSet &patterns,
                                               LoweringState &state) {
  patterns.add<GridBarrierPattern>(tc, patterns.getContext(), state);
}
