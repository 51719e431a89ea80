//===- GridBarrierToSimt.cpp - tile.grid_barrier to SIMT IR ---------------===//
//
// Lane 0 of wave 0 of every workgroup runs, between two workgroup barriers:
//
//   fence release                                    (the workgroup's writes
//                                                     before the arrival)
//   inc = program 0 ? 2^31 - (programs - 1) : 1
//   old = atomic add(ptr[offset], inc)               relaxed, device scope
//   while (load(ptr[offset]) ^ old) < 2^31: backoff  until the top bit flips
//   fence acquire
//
// The increments of one barrier sum to 2^31: the word's low 31 bits come
// back to what they were (0) and its top bit flips only when the last
// program arrives, so every arrival's `old` holds the bit from before the
// barrier, and a program that runs ahead into the next barrier cannot flip
// it back before the slow ones have seen it. One atomic and the spin are
// on the critical path (no read before the arrival, no release by the last
// arriver), and the word needs no reset between barriers, launches or
// graph replays.
//
// The atomics are relaxed `llvm` atomics on a pointer to the workspace,
// ordered by explicit fences: LLVM's NVPTX back end drops the ordering of
// an `atomicrmw` (it prints a relaxed `atom`), while fences become
// `fence.acq_rel.gpu`, and memref.atomic_rmw would be system scope
// acq_rel, which on AMD writes back the whole L2 on every spin.
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

/// Device-scope relaxed atomics and fences on the barrier's word.
struct BarrierWords {
  OpBuilder &b;
  Location loc;
  StringRef scope;
  Value word; // !llvm.ptr<1>

  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value load(Value p) {
    return LLVM::LoadOp::create(b, loc, b.getI32Type(), p, /*alignment=*/4,
                                false, false, false, false,
                                LLVM::AtomicOrdering::monotonic, scope);
  }
  Value add(Value p, Value v) {
    return LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, p, v,
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

/// Whether this is program (0, 0, 0).
Value isFirstProgram(OpBuilder &b, Location loc) {
  Value first;
  for (gpu::Dimension d :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    Value id = gpu::BlockIdOp::create(b, loc, d);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value is =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, id, zero);
    first = first ? arith::AndIOp::create(b, loc, first, is).getResult() : is;
  }
  return first;
}

/// The spin: reload the word, with a backoff, while its top bit is the one
/// in `old` (the barrier has not completed).
void emitSpin(OpBuilder &b, Location loc, BarrierWords &w, Value old,
              const TargetInfo &target) {
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  b.createBlock(&loop.getBefore());
  Value now = w.load(w.word);
  Value diff = arith::XOrIOp::create(b, loc, now, old);
  Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, diff,
                                     w.i32(INT32_MIN));
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
                            << "); it indexes the barrier's i32 word from the "
                               "pointer";
    KernelState &ks = state.of(op);
    const TargetInfo &target = *state.target;
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    rewriter.modifyOpInPlace(func, [&] {
      func->setAttr(kGridBarrierAttrName, rewriter.getUnitAttr());
    });

    Value off = adaptor.getOffset();
    if (!off.getType().isInteger(64))
      off = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), off);
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
      BarrierWords w{b, loc, target.deviceSyncScope(), Value()};
      w.word = wordPointer(b, loc, adaptor.getPtr(), off);
      w.fence(LLVM::AtomicOrdering::release);
      // 2^31 - (programs - 1), as i32 bits.
      Value master =
          arith::SubIOp::create(b, loc, w.i32(INT32_MIN),
                                arith::SubIOp::create(b, loc, total, w.i32(1)));
      Value inc = arith::SelectOp::create(b, loc, isFirstProgram(b, loc),
                                          master, w.i32(1));
      Value old = w.add(w.word, inc);
      emitSpin(b, loc, w, old, target);
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
