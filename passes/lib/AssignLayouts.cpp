//===- AssignLayouts.cpp - Choose a distributed layout for every tensor ---===//

#include "tessel/Passes/Passes.h"

#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tessel/Passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// Elementwise: arith and math ops, which apply lane by lane.
bool isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->getNumRegions() == 0;
}

class LayoutAssigner {
public:
  LayoutAssigner(MLIRContext *ctx, unsigned waveSize, unsigned numWaves,
                 unsigned vecElems)
      : ctx(ctx), waveSize(waveSize), numWaves(numWaves), vecElems(vecElems) {}

  /// The layout a tensor of this shape gets when nothing else decides:
  /// row-major, up to one vector access of contiguous elements per lane
  /// along the last dimension, lanes filling the fastest dimensions and
  /// waves the slowest. Leftover lanes and waves replicate.
  BlockedLayoutAttr defaultFor(ArrayRef<int64_t> shape) {
    unsigned rank = shape.size();
    SmallVector<unsigned> size(rank, 1), threads(rank, 1), waves(rank, 1),
        order;
    for (unsigned d = rank; d-- > 0;)
      order.push_back(d);
    int64_t numel = 1;
    for (int64_t s : shape)
      numel *= s;
    int64_t perThread =
        std::max<int64_t>(1, numel / int64_t(waveSize * numWaves));
    size[rank - 1] =
        std::min<int64_t>({shape[rank - 1], perThread, int64_t(vecElems)});
    unsigned lanesLeft = waveSize;
    for (unsigned d : order) {
      int64_t t = std::min<int64_t>(lanesLeft,
                                    std::max<int64_t>(1, shape[d] / size[d]));
      threads[d] = t;
      lanesLeft /= t;
    }
    threads[order.back()] *= lanesLeft;
    unsigned wavesLeft = numWaves;
    for (unsigned d : llvm::reverse(order)) {
      int64_t cover = int64_t(size[d]) * threads[d];
      int64_t w =
          std::min<int64_t>(wavesLeft, std::max<int64_t>(1, shape[d] / cover));
      waves[d] = w;
      wavesLeft /= w;
    }
    waves[order.back()] *= wavesLeft;
    return BlockedLayoutAttr::get(ctx, size, threads, waves, order);
  }

  /// Asks for `enc` on `v` and on the same-shaped tensors it is computed
  /// from, so that e.g. the operand of an expand_dims is produced directly
  /// in the slice layout it needs.
  void hint(Value v, Attribute enc) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || hints.count(v))
      return;
    hints[v] = enc;
    Operation *def = v.getDefiningOp();
    if (!def)
      return;
    if (isElementwise(def) || isa<LoadOp>(def))
      for (Value operand : def->getOperands())
        if (auto ot = dyn_cast<RankedTensorType>(operand.getType());
            ot && ot.getShape() == type.getShape())
          hint(operand, enc);
  }

  Attribute encodingFor(Value v) {
    if (Attribute h = hints.lookup(v))
      return h;
    return defaultFor(cast<RankedTensorType>(v.getType()).getShape());
  }

  static Attribute encodingOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getEncoding();
  }

  static void setEncoding(Value v, Attribute enc) {
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(RankedTensorType::get(t.getShape(), t.getElementType(), enc));
  }

  /// Splat constants, splats and ranges cost less to recompute in another
  /// layout than to move there.
  static bool isRematerializable(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (isa<SplatOp, RangeOp>(def))
      return true;
    auto cst = dyn_cast<arith::ConstantOp>(def);
    return cst && isa<SplatElementsAttr>(cst.getValue());
  }

  /// Makes operand `operand` of `op` carry `enc`. Values that are cheaper
  /// to recompute than to move (splat constants, splats, ranges) are
  /// recomputed in that layout; others get a tile.convert_layout.
  void requireEncoding(Operation *op, OpOperand &operand, Attribute enc) {
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!t || t.getEncoding() == enc)
      return;
    OpBuilder b(op);
    auto newType = RankedTensorType::get(t.getShape(), t.getElementType(), enc);
    Operation *def = operand.get().getDefiningOp();
    if (isRematerializable(operand.get())) {
      Operation *copy = b.clone(*def);
      copy->getResult(0).setType(newType);
      if (auto cst = dyn_cast<arith::ConstantOp>(copy))
        cst.setValueAttr(
            cast<DenseElementsAttr>(cst.getValue()).reshape(newType));
      operand.set(copy->getResult(0));
      return;
    }
    Value c = ConvertLayoutOp::create(b, op->getLoc(), newType, operand.get());
    operand.set(c);
  }

  void assignResult(Operation *op) {
    for (OpResult r : op->getResults()) {
      if (!isa<RankedTensorType>(r.getType()))
        continue;
      if (auto t = cast<RankedTensorType>(r.getType()); t.getEncoding())
        continue; // the author chose it
      setEncoding(r, encodingFor(r));
    }
  }

  void process(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      process(&op);
  }

  void process(Operation *op) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, res] :
           llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                     forOp.getResults()))
        if (isa<RankedTensorType>(init.getType())) {
          arg.setType(init.getType());
          res.setType(init.getType());
        }
      process(*forOp.getBody());
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      for (OpOperand &operand : yield->getOpOperands())
        if (isa<RankedTensorType>(operand.get().getType()))
          requireEncoding(
              yield, operand,
              encodingOf(
                  forOp.getRegionIterArgs()[operand.getOperandNumber()]));
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      process(*ifOp.thenBlock());
      for (auto [res, v] :
           llvm::zip(ifOp.getResults(), ifOp.thenYield().getOperands()))
        if (isa<RankedTensorType>(v.getType()))
          res.setType(v.getType());
      if (ifOp.elseBlock()) {
        process(*ifOp.elseBlock());
        for (OpOperand &operand : ifOp.elseYield()->getOpOperands())
          if (isa<RankedTensorType>(operand.get().getType()))
            requireEncoding(
                ifOp.elseYield(), operand,
                encodingOf(ifOp.getResult(operand.getOperandNumber())));
      }
      return;
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        process(block);

    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      if (auto t = dyn_cast<RankedTensorType>(reduce.getType()))
        setEncoding(reduce.getResult(),
                    SliceLayoutAttr::get(ctx, reduce.getAxis(),
                                         encodingOf(reduce.getSrc())));
      return;
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto slice =
          dyn_cast_or_null<SliceLayoutAttr>(encodingOf(expand.getSrc()));
      Attribute parent;
      if (slice && slice.getDim() == (unsigned)expand.getAxis()) {
        parent = slice.getParent();
      } else {
        parent = encodingFor(expand.getResult());
        requireEncoding(op, expand.getSrcMutable(),
                        SliceLayoutAttr::get(ctx, expand.getAxis(), parent));
      }
      setEncoding(expand.getResult(), parent);
      return;
    }
    if (auto bcast = dyn_cast<BroadcastOp>(op)) {
      setEncoding(bcast.getResult(), encodingOf(bcast.getSrc()));
      return;
    }
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (!isa<RankedTensorType>(load.getOffsets().getType()))
        return;
      Attribute enc = encodingOf(load.getOffsets());
      setEncoding(load.getResult(), enc);
      if (load.getMask())
        requireEncoding(op, load.getMaskMutable()[0], enc);
      if (load.getOther())
        requireEncoding(op, load.getOtherMutable()[0], enc);
      return;
    }
    if (isa<StoreOp, AtomicRMWOp, AtomicCASOp>(op)) {
      Value offsets = op->getOperand(isa<StoreOp>(op) ? 2 : 1);
      if (!isa<RankedTensorType>(offsets.getType()))
        return;
      // Follow the stored value's layout when the offsets are cheap to
      // recompute in it (a reduction result stored at tile.range offsets),
      // else the offsets' layout.
      Attribute enc = encodingOf(offsets);
      if (isa<StoreOp>(op) && isRematerializable(offsets))
        enc = encodingOf(op->getOperand(0));
      for (OpOperand &operand : op->getOpOperands())
        requireEncoding(op, operand, enc);
      for (OpResult r : op->getResults())
        setEncoding(r, enc);
      return;
    }
    if (isElementwise(op)) {
      Attribute enc;
      for (Value v : op->getOperands())
        if (auto t = dyn_cast<RankedTensorType>(v.getType());
            t && t.getEncoding()) {
          enc = t.getEncoding();
          break;
        }
      if (!enc) { // constants
        assignResult(op);
        if (auto cst = dyn_cast<arith::ConstantOp>(op))
          if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
            cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
        return;
      }
      for (OpOperand &operand : op->getOpOperands())
        requireEncoding(op, operand, enc);
      for (OpResult r : op->getResults())
        if (isa<RankedTensorType>(r.getType()))
          setEncoding(r, enc);
      return;
    }
    assignResult(op);
  }

  /// Shape-changing ops want their sources in a matching layout: a
  /// broadcast's source in the result's layout, an expand_dims source in the
  /// slice of it. Users are visited before producers, so a wish travels
  /// back through chains of them.
  void collectHints(KernelOp kernel) {
    SmallVector<Operation *> ops;
    kernel.walk([&](Operation *op) {
      if (isa<ExpandDimsOp, BroadcastOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops)) {
      Value result = op->getResult(0);
      Attribute want = hints.lookup(result);
      if (!want)
        want = defaultFor(cast<RankedTensorType>(result.getType()).getShape());
      if (auto e = dyn_cast<ExpandDimsOp>(op))
        hint(e.getSrc(), SliceLayoutAttr::get(ctx, e.getAxis(), want));
      else
        hint(op->getOperand(0), want);
    }
  }

private:
  MLIRContext *ctx;
  unsigned waveSize, numWaves, vecElems;
  DenseMap<Value, Attribute> hints;
};

/// The blocked layout under a blocked or slice encoding, or null.
BlockedLayoutAttr blockedOf(Attribute enc) {
  while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(enc))
    enc = slice.getParent();
  return dyn_cast_or_null<BlockedLayoutAttr>(enc);
}

int64_t product(ArrayRef<unsigned> values) {
  int64_t p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

/// A layout spreads a tile over exactly the lanes of a wave and the waves
/// of the program; any other count computes on lanes or waves that do not
/// exist, or leaves some out.
LogicalResult checkLayoutFitsTarget(Operation *op, RankedTensorType type,
                                    const TargetInfo &info, int64_t numWaves) {
  BlockedLayoutAttr blocked = blockedOf(type.getEncoding());
  if (!blocked)
    return success();
  int64_t lanes = product(blocked.getThreadsPerWave());
  if (lanes != info.waveSize())
    return op->emitError() << "layout of " << type << " spreads over " << lanes
                           << " lanes (threadsPerWave), but a wave of "
                           << info.name() << " has " << info.waveSize();
  int64_t waves = product(blocked.getWavesPerCTA());
  if (waves != numWaves)
    return op->emitError() << "layout of " << type << " spreads over " << waves
                           << " waves (wavesPerCTA), but the kernel runs "
                           << numWaves << " (num_waves)";
  return success();
}

/// Rejects a tile value that needs more 32-bit registers per lane than the
/// target has: elements per lane x bytes per element / 4, each value on its
/// own. LLVM would otherwise spend minutes spilling it, or run out of
/// memory.
LogicalResult checkRegisterFootprint(Operation *op, RankedTensorType type,
                                     const TargetInfo &info) {
  if (!blockedOf(type.getEncoding()))
    return success();
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout))
    return success(); // reported by the distribution
  int64_t bytes =
      std::max<int64_t>(1, llvm::divideCeil(type.getElementTypeBitWidth(), 8));
  int64_t registers = llvm::divideCeil(layout->getNumElems() * bytes, 4);
  if (registers <= info.registersPerLane())
    return success();
  return op->emitError() << "tile " << type << " needs " << registers
                         << " 32-bit registers per lane ("
                         << layout->getNumElems() << " elements x " << bytes
                         << " bytes), but " << info.name() << " has "
                         << info.registersPerLane()
                         << "; use a smaller tile or more waves (num_waves)";
}

/// Checks every tile value of `kernel` (results and block arguments) once
/// layouts are assigned.
LogicalResult
checkTiles(KernelOp kernel,
           function_ref<LogicalResult(Operation *, RankedTensorType)> check) {
  WalkResult result = kernel.walk([&](Operation *op) {
    auto visit = [&](Type t) {
      auto type = dyn_cast<RankedTensorType>(t);
      return !type || succeeded(check(op, type));
    };
    for (Type t : op->getResultTypes())
      if (!visit(t))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          if (!visit(t))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct AssignLayoutsPass
    : public tessel::impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::unique_ptr<TargetInfo> info =
        claimModuleTarget(getOperation(), target, getArgument());
    if (!info)
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      if (failed(assign(kernel, *info)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult assign(KernelOp kernel, const TargetInfo &info) {
    int64_t numWaves = 1;
    if (auto knobs = kernel->getAttrOfType<DictionaryAttr>("tessel.knobs"))
      if (auto w = knobs.getAs<IntegerAttr>("num_waves"))
        numWaves = w.getInt();
    if (numWaves <= 0 || !llvm::isPowerOf2_64(numWaves) ||
        numWaves * info.waveSize() > info.maxWorkgroupSize())
      return kernel.emitError()
             << "num_waves = " << numWaves << " is not supported on "
             << info.name() << ": it must be a power of two with num_waves * "
             << info.waveSize() << " <= " << info.maxWorkgroupSize();
    // Distribution splits dimensions over power-of-two lane and wave counts.
    WalkResult shapes = kernel.walk([&](Operation *op) {
      for (Value v : op->getResults())
        if (auto t = dyn_cast<RankedTensorType>(v.getType()))
          for (int64_t s : t.getShape())
            if (s <= 0 || !llvm::isPowerOf2_64(s)) {
              op->emitError()
                  << "tile shape " << t << " has a dimension of " << s
                  << "; tiles must have power-of-two dimensions";
              return WalkResult::interrupt();
            }
      return WalkResult::advance();
    });
    if (shapes.wasInterrupted())
      return failure();
    kernel->setAttr(
        "tessel.num_waves",
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 32), numWaves));
    // Eight elements per lane: 16 bytes of bf16, the widest vector access.
    LayoutAssigner assigner(kernel.getContext(), info.waveSize(), numWaves,
                            info.maxVectorBytes() / 2);
    assigner.collectHints(kernel);
    assigner.process(kernel.getBody().front());
    return checkTiles(kernel, [&](Operation *op, RankedTensorType type) {
      if (failed(checkLayoutFitsTarget(op, type, info, numWaves)))
        return failure();
      return checkRegisterFootprint(op, type, info);
    });
  }
};

} // namespace
