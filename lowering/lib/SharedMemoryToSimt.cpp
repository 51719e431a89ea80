//===- SharedMemoryToSimt.cpp - Shared-memory tiles to SIMT IR ------------===//
//
// See SharedMemoryToSimt.h for the value mapping and the barrier rules.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryToSimt.h"

#include "ConvertLayout.h"
#include "SimtLoweringState.h"
#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

unsigned elemBytesOf(Type t) {
  return std::max(1u, ldsType(t).getIntOrFloatBitWidth() / 8);
}

/// Bytes between consecutive stages: one tile, rounded up to 16 so that
/// every stage keeps the 16-byte alignment of the buffer.
int64_t stageStride(MemDescType t) {
  return llvm::alignTo(t.getTileElems() * elemBytesOf(t.getElementType()), 16);
}

/// How the lanes of `tensor` reach the elements of the tile `mem`: the
/// tensor's layout composed with the inverse of the shared layout.
FailureOr<ConversionPlan::Side> accessSide(Operation *op,
                                           RankedTensorType tensor,
                                           MemDescType mem,
                                           const TargetInfo &target) {
  std::string err;
  FailureOr<LinearLayout> dist = toLinearLayout(tensor, &err);
  if (failed(dist))
    return op->emitOpError("cannot distribute ") << tensor << ": " << err;
  if (dist->getInDimSize(kLaneDim) != int32_t(target.waveSize()))
    return op->emitOpError("the layout of ")
           << tensor << " spreads over " << dist->getInDimSize(kLaneDim)
           << " lanes; " << target.name() << " has " << target.waveSize();
  FailureOr<LinearLayout> shared =
      toLinearLayout(mem.getTileShape(), mem.getSharedLayout(), &err);
  if (failed(shared))
    return op->emitOpError("cannot lay out ") << mem << ": " << err;
  FailureOr<LinearLayout> toOffset = dist->invertAndCompose(*shared, &err);
  if (failed(toOffset))
    return op->emitOpError("cannot address ")
           << mem << " from " << tensor << ": " << err;
  auto side =
      planLdsAccess(*toOffset, elemBytesOf(mem.getElementType()), target, &err);
  if (failed(side))
    return op->emitOpError("cannot address ") << mem << ": " << err;
  return side;
}

template <typename Op> struct SharedPattern : public OpConversionPattern<Op> {
  SharedPattern(const TypeConverter &tc, MLIRContext *ctx, LoweringState &state)
      : OpConversionPattern<Op>(tc, ctx), state(state) {}
  LoweringState &state;

  /// The tile at byte offset `at` of the kernel's LDS.
  Value view(OpBuilder &b, Operation *op, Value at, MemDescType t) const {
    return state.ldsView(b, op, at, ldsType(t.getElementType()),
                         t.getTileElems());
  }
  Value zeroToken(OpBuilder &b, Location loc) const {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  }
};

/// Stores the registers `in` of `tensor` into the tile at `at`, between
/// two barriers.
LogicalResult storeTile(OpBuilder &b, Operation *op, LoweringState &state,
                        Value in, RankedTensorType tensor, Value at,
                        MemDescType mem) {
  auto side = accessSide(op, tensor, mem, *state.target);
  if (failed(side))
    return failure();
  Location loc = op->getLoc();
  KernelState &ks = state.of(op);
  Value buffer = state.ldsView(b, op, at, ldsType(mem.getElementType()),
                               mem.getTileElems());
  gpu::BarrierOp::create(b, loc);
  emitLdsStore(b, loc, *side, in, ks.lane, ks.wave, buffer);
  gpu::BarrierOp::create(b, loc);
  return success();
}

struct LocalAllocPattern : public SharedPattern<LocalAllocOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelState &ks = state.of(op);
    int64_t offset = ks.ldsLayout ? ks.ldsLayout->offsetOf(op) : -1;
    if (offset < 0 || !ks.ldsBuffer)
      return op.emitError("no LDS was allocated for this buffer");
    Value at = arith::ConstantIndexOp::create(rewriter, op.getLoc(), offset);
    if (Value init = adaptor.getInit())
      if (failed(storeTile(rewriter, op, state, init,
                           cast<RankedTensorType>(op.getInit().getType()), at,
                           op.getType())))
        return failure();
    rewriter.replaceOp(op, at);
    return success();
  }
};

struct MemDescIndexPattern : public SharedPattern<MemDescIndexOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value i = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(),
                                         adaptor.getIndex());
    Value stride = arith::ConstantIndexOp::create(
        rewriter, loc, stageStride(op.getSrc().getType()));
    Value off = arith::MulIOp::create(rewriter, loc, i, stride);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getSrc(), off);
    return success();
  }
};

struct LocalStorePattern : public SharedPattern<LocalStoreOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(storeTile(rewriter, op, state, adaptor.getValue(),
                         op.getValue().getType(), adaptor.getDst(),
                         op.getDst().getType())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadPattern : public SharedPattern<LocalLoadOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemDescType mem = op.getSrc().getType();
    auto side = accessSide(op, op.getType(), mem, *state.target);
    if (failed(side))
      return failure();
    auto vt = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!vt)
      return op.emitOpError("cannot distribute ") << op.getType();
    KernelState &ks = state.of(op);
    Value buffer = view(rewriter, op, adaptor.getSrc(), mem);
    rewriter.replaceOp(op, emitLdsLoad(rewriter, op.getLoc(), *side,
                                       vt.getNumElements(),
                                       op.getType().getElementType(), ks.lane,
                                       ks.wave, buffer));
    return success();
  }
};

/// Elements per copy: consecutive registers that are consecutive both in
/// global memory (offsets' contiguity, under a mask constant over them) and
/// in the tile, aligned on both sides, at most the target's vector width.
int64_t copyWidth(const DistributedLayout &l, const ConversionPlan::Side &side,
                  const AxisInfo &offsets, const AxisInfo *mask,
                  unsigned elemBytes, unsigned maxVectorBytes,
                  unsigned pointerAlign) {
  int f = l.getFastestDim();
  if (f < 0 || !l.getSliceDims().empty())
    return 1;
  int64_t w = std::min<int64_t>(l.getContiguousElems(), offsets.contiguity[f]);
  w = std::min<int64_t>(w, int64_t(1) << side.vecBits);
  w = std::min<int64_t>(w, std::max(1u, maxVectorBytes / elemBytes));
  if (mask)
    w = std::min<int64_t>(w, mask->constancy[f]);
  w = int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, w));
  // The first element of each run is divisible by `divisibility`; the base
  // pointer by `pointerAlign` bytes.
  int64_t alignElems = int64_t(1) << llvm::Log2_64(offsets.divisibility[f]);
  int64_t ptrElems = std::max<int64_t>(1, pointerAlign / elemBytes);
  return std::max<int64_t>(1, std::min({w, alignElems, ptrElems}));
}

/// True when the op before `copy` that touches memory is another async
/// copy: the barrier before that one already ordered every earlier read of
/// shared memory, and nothing between them reads it. A tile.dot counts as
/// a read (its operands may be buffers); ops with regions end the search.
/// Once the previous copy is lowered its place holds memory ops, so the
/// answer is then false: the barrier stays.
bool followsAsyncCopy(Operation *copy) {
  for (Operation *p = copy->getPrevNode(); p; p = p->getPrevNode()) {
    if (isa<AsyncCopyGlobalToLocalOp>(p))
      return true;
    if (isa<DotOp>(p) || p->getNumRegions() || !isMemoryEffectFree(p))
      return false;
  }
  return false;
}

struct AsyncCopyPattern : public SharedPattern<AsyncCopyGlobalToLocalOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType mem = op.getDst().getType();
    RankedTensorType offType = op.getOffsets().getType();
    if (Value m = op.getMask())
      if (cast<RankedTensorType>(m.getType()).getEncoding() !=
          offType.getEncoding())
        return op.emitOpError("mask and offsets must have the same layout");
    std::string err;
    auto l = DistributedLayout::get(offType, &err);
    if (failed(l))
      return op.emitOpError("cannot distribute ") << offType << ": " << err;
    auto side = accessSide(op, offType, mem, *state.target);
    if (failed(side))
      return failure();
    KernelState &ks = state.of(op);
    AxisInfo offInfo = ks.axis->get(op.getOffsets());
    std::optional<AxisInfo> maskInfo;
    if (op.getMask())
      maskInfo = ks.axis->get(op.getMask());
    unsigned elemBytes = elemBytesOf(mem.getElementType());
    int64_t w = copyWidth(*l, *side, offInfo, maskInfo ? &*maskInfo : nullptr,
                          elemBytes, state.target->maxVectorBytes(),
                          pointerAlignment(adaptor.getPtr()));

    // Earlier reads of the destination finish before it is overwritten.
    if (!followsAsyncCopy(op))
      gpu::BarrierOp::create(rewriter, loc);
    Value buffer = view(rewriter, op, adaptor.getDst(), mem);
    Value base = emitLdsSideBase(rewriter, loc, *side, ks.lane, ks.wave);
    for (int64_t s = 0; s < l->getNumElems(); s += w) {
      if (s & side->dupRegMask)
        continue;
      Value off =
          vector::ExtractOp::create(rewriter, loc, adaptor.getOffsets(), s);
      Value srcIdx = arith::IndexCastOp::create(rewriter, loc,
                                                rewriter.getIndexType(), off);
      Value dstIdx = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          emitLdsSlotOffset(rewriter, loc, *side, base, s));
      Value pred;
      if (adaptor.getMask())
        pred = vector::ExtractOp::create(rewriter, loc, adaptor.getMask(), s);
      state.target->emitAsyncCopy(rewriter, loc, adaptor.getPtr(), srcIdx,
                                  buffer, dstIdx, w, pred);
    }
    rewriter.replaceOp(op, zeroToken(rewriter, loc));
    return success();
  }
};

constexpr int64_t kBarrierBytes = 8;

/// The shared-memory address (i32) of the barrier that fill `fill` (i32) of
/// the ring at LDS offset `at` completes on, and the parity of its phase.
std::pair<Value, Value> barrierOfFill(OpBuilder &b, Operation *op,
                                      LoweringState &state, Value at,
                                      AsyncBarrierType type, Value fill) {
  Location loc = op->getLoc();
  Value view = state.ldsView(b, op, at, b.getI64Type(), type.getStages());
  Value base = arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view));
  auto i32c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  Value stages = i32c(type.getStages());
  Value stage = arith::RemUIOp::create(b, loc, fill, stages);
  Value addr = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, stage, i32c(kBarrierBytes)));
  Value round = arith::DivUIOp::create(b, loc, fill, stages);
  Value parity = arith::AndIOp::create(b, loc, round, i32c(1));
  return {addr, parity};
}

struct AsyncBarrierAllocPattern : public SharedPattern<AsyncBarrierAllocOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(AsyncBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelState &ks = state.of(op);
    int64_t offset = ks.ldsLayout ? ks.ldsLayout->offsetOf(op) : -1;
    if (offset < 0 || !ks.ldsBuffer)
      return op.emitError("no LDS was allocated for these barriers");
    Value at = arith::ConstantIndexOp::create(rewriter, loc, offset);
    const TargetInfo &target = *state.target;
    if (target.hasAsyncCopyBarriers()) {
      // Lane 0 of wave 0 initialises every barrier of the ring.
      Value zero =
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0);
      Value tid = arith::OrIOp::create(rewriter, loc, ks.lane, ks.wave);
      Value lead = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq, tid, zero);
      unsigned arrivals = ks.numWaves * target.waveSize();
      AsyncBarrierType type = op.getType();
      scf::IfOp::create(rewriter, loc, lead, [&](OpBuilder &b, Location) {
        for (unsigned s = 0; s < type.getStages(); ++s) {
          Value fill = arith::ConstantIntOp::create(b, loc, b.getI32Type(), s);
          auto [addr, parity] = barrierOfFill(b, op, state, at, type, fill);
          target.emitAsyncBarrierInit(b, loc, addr, arrivals);
        }
        scf::YieldOp::create(b, loc);
      });
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, at);
    return success();
  }
};

struct AsyncCommitGroupPattern : public SharedPattern<AsyncCommitGroupOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (Value bar = op.getBarrier()) {
      auto [addr, parity] = barrierOfFill(
          rewriter, op, state, adaptor.getBarrier(),
          cast<AsyncBarrierType>(bar.getType()), adaptor.getFill());
      state.target->emitAsyncBarrierArrive(rewriter, loc, addr);
    } else {
      state.target->emitAsyncCommitGroup(rewriter, loc);
    }
    rewriter.replaceOp(op, zeroToken(rewriter, loc));
    return success();
  }
};

struct AsyncWaitPattern : public SharedPattern<AsyncWaitOp> {
  using SharedPattern::SharedPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (Value bar = op.getBarrier()) {
      // The barrier's phase makes every lane's copies visible to this one.
      auto [addr, parity] = barrierOfFill(
          rewriter, op, state, adaptor.getBarrier(),
          cast<AsyncBarrierType>(bar.getType()), adaptor.getFill());
      state.target->emitAsyncBarrierWait(rewriter, loc, addr, parity);
    } else {
      state.target->emitAsyncWait(rewriter, loc, *op.getNum());
      // Every lane's copies become visible to the others.
      gpu::BarrierOp::create(rewriter, loc);
    }
    rewriter.replaceOp(op, zeroToken(rewriter, loc));
    return success();
  }
};

} // namespace

namespace {

/// The memdesc values that are `alloc`'s buffer or a view of it: stages and
/// loop-carried copies.
SmallVector<Value> bufferValues(LocalAllocOp alloc) {
  SmallVector<Value> out{alloc.getResult()};
  for (unsigned i = 0; i < out.size(); ++i)
    for (OpOperand &use : out[i].getUses()) {
      Operation *user = use.getOwner();
      auto add = [&](Value v) {
        if (!llvm::is_contained(out, v))
          out.push_back(v);
      };
      if (auto idx = dyn_cast<MemDescIndexOp>(user))
        add(idx.getResult());
      else if (auto forOp = dyn_cast<scf::ForOp>(user)) {
        if (OpOperand *init = &use;
            init->getOperandNumber() >= forOp.getNumControlOperands()) {
          unsigned k = init->getOperandNumber() - forOp.getNumControlOperands();
          add(forOp.getRegionIterArgs()[k]);
          add(forOp.getResult(k));
        }
      } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        if (auto forOp = dyn_cast<scf::ForOp>(yield->getParentOp()))
          add(forOp.getResult(use.getOperandNumber()));
      }
    }
  return out;
}

/// The tensor types that access the buffer: what local_store, local_load,
/// async copies and the alloc's initial value hold in registers.
SmallVector<RankedTensorType> accessTypes(LocalAllocOp alloc,
                                          ArrayRef<Value> values) {
  SmallVector<RankedTensorType> out;
  if (Value init = alloc.getInit())
    out.push_back(cast<RankedTensorType>(init.getType()));
  for (Value v : values)
    for (Operation *user : v.getUsers()) {
      if (auto st = dyn_cast<LocalStoreOp>(user))
        out.push_back(st.getValue().getType());
      else if (auto ld = dyn_cast<LocalLoadOp>(user))
        out.push_back(ld.getType());
      else if (auto cp = dyn_cast<AsyncCopyGlobalToLocalOp>(user))
        out.push_back(cp.getOffsets().getType());
    }
  return out;
}

LogicalResult chooseSwizzle(LocalAllocOp alloc, const TargetInfo &target) {
  MemDescType type = alloc.getType();
  SharedLayoutAttr open = type.getSharedLayout();
  SmallVector<Value> values = bufferValues(alloc);
  SmallVector<RankedTensorType> accesses = accessTypes(alloc, values);
  ArrayRef<int64_t> tile = type.getTileShape();
  ArrayRef<unsigned> order = open.getOrder();
  int64_t rowVecs = std::max<int64_t>(
      1, tile[order[0]] / std::min<int64_t>(open.getVec(), tile[order[0]]));
  int64_t rows = order.size() > 1 ? tile[order[1]] : 1;

  SharedLayoutAttr best;
  int64_t bestCost = 0;
  for (int64_t maxPhase = 1; maxPhase <= rowVecs; maxPhase *= 2)
    for (int64_t perPhase = 1; perPhase <= std::max<int64_t>(1, rows);
         perPhase *= 2) {
      if (maxPhase == 1 && perPhase > 1)
        break; // no swizzle: perPhase changes nothing
      auto cand = SharedLayoutAttr::get(alloc.getContext(), open.getVec(),
                                        perPhase, maxPhase, order);
      auto stage = MemDescType::get(alloc.getContext(), tile,
                                    type.getElementType(), cand);
      int64_t cost = 0;
      for (RankedTensorType t : accesses) {
        auto side = accessSide(alloc, t, stage, target);
        if (failed(side))
          return failure();
        cost += side->accesses * side->conflictWays;
      }
      if (!best || cost < bestCost) {
        best = cand;
        bestCost = cost;
      }
    }
  for (Value v : values) {
    auto t = cast<MemDescType>(v.getType());
    v.setType(MemDescType::get(alloc.getContext(), t.getShape(),
                               t.getElementType(), best));
  }
  return success();
}

} // namespace

LogicalResult tessel::chooseSharedSwizzles(Operation *root,
                                           const TargetInfo &target) {
  WalkResult r = root->walk([&](LocalAllocOp alloc) {
    if (alloc.getType().getSharedLayout().getMaxPhase() != 0)
      return WalkResult::advance();
    return failed(chooseSwizzle(alloc, target)) ? WalkResult::interrupt()
                                                : WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

FailureOr<LdsNeed> tessel::sharedMemoryLdsNeed(Operation *op,
                                               const TargetInfo &) {
  if (auto bars = dyn_cast<AsyncBarrierAllocOp>(op)) {
    LdsNeed n;
    n.bytes = bars.getType().getStages() * kBarrierBytes;
    n.align = kBarrierBytes;
    n.untilKernelEnd = true;
    return n;
  }
  auto alloc = dyn_cast<LocalAllocOp>(op);
  if (!alloc)
    return LdsNeed();
  MemDescType t = alloc.getType();
  LdsNeed n;
  n.bytes = t.getNumStages() * stageStride(t);
  n.align = 16;
  // A matrix instruction that reads the buffer applies the swizzle to the
  // address bits: the pattern (perPhase * maxPhase rows) must start on a
  // multiple of its size.
  SharedLayoutAttr s = t.getSharedLayout();
  ArrayRef<int64_t> tile = t.getTileShape();
  int64_t period = int64_t(s.getPerPhase()) * s.getMaxPhase() *
                   tile[s.getOrder()[0]] * elemBytesOf(t.getElementType());
  for (Value v : bufferValues(alloc))
    for (Operation *user : v.getUsers())
      if (isa<DotOp>(user) && llvm::isPowerOf2_64(period))
        n.align = std::max<int64_t>(n.align, period);
  n.outlivesOp = true;
  return n;
}

bool tessel::isSharedMemoryView(Value v) {
  // A token of an async copy stands for writes still in flight to the
  // buffer: the buffer lives until the commit / wait that consumes it.
  return isa<MemDescType, AsyncTokenType, AsyncBarrierType>(v.getType());
}

void tessel::populateSharedMemoryTypeConversions(TypeConverter &tc) {
  tc.addConversion(
      [](MemDescType t) -> Type { return IndexType::get(t.getContext()); });
  tc.addConversion([](AsyncBarrierType t) -> Type {
    return IndexType::get(t.getContext());
  });
  tc.addConversion([](AsyncTokenType t) -> Type {
    return IntegerType::get(t.getContext(), 32);
  });
}

void tessel::populateSharedMemoryToSimtPatterns(const TypeConverter &tc,
                                                RewritePatternSet &patterns,
                                                LoweringState &state) {
  patterns.add<LocalAllocPattern, MemDescIndexPattern, LocalStorePattern,
               LocalLoadPattern, AsyncCopyPattern, AsyncBarrierAllocPattern,
               AsyncCommitGroupPattern, AsyncWaitPattern>(
      tc, patterns.getContext(), state);
}
