//===- TileToSimt.cpp - Distribute tile IR over lanes and waves -----------===//
//
// Each tile kernel becomes a gpu.func. A tensor with a blocked or slice
// layout becomes the vector of the elements one lane owns (see
// DistributedLayout); pointers become global memrefs. Cross-lane work goes
// through TargetInfo, cross-wave work through LDS (workgroup attributions
// that are sized before the conversion starts).
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/Passes.h"

#include "AxisInfo.h"
#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_CONVERTTILETOSIMT
#include "tessel/Lowering/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E4M3FNUZType>(t); }

/// The element type used in memory: fp8 is stored as i8.
Type storageType(Type t) {
  if (isFp8(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

/// The element type LDS staging buffers use (i1 is widened to i8).
Type ldsType(Type t) {
  if (t.isInteger(1) || isFp8(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

/// Reinterprets a scalar or vector `v` with element type `to` of the same
/// width (fp8 <-> i8 between registers and memory).
Value bitcastElements(OpBuilder &b, Location loc, Value v, Type to) {
  if (getElementTypeOrSelf(v.getType()) == to)
    return v;
  if (auto vt = dyn_cast<VectorType>(v.getType()))
    return vector::BitCastOp::create(b, loc, VectorType::get(vt.getShape(), to),
                                     v);
  return arith::BitcastOp::create(b, loc, to, v);
}

/// A tile pointer is a global memref of its storage type.
MemRefType memrefFor(PtrType p) {
  MLIRContext *ctx = p.getContext();
  return MemRefType::get(
      {ShapedType::kDynamic}, storageType(p.getPointeeType()), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global));
}

/// Per-kernel state shared by the patterns.
struct KernelState {
  Value lane, wave; // i32
  unsigned numWaves = 1;
  std::unique_ptr<AxisInfoAnalysis> axis;
  /// LDS buffer (a workgroup attribution) of each op that needs one.
  DenseMap<Operation *, unsigned> ldsIndex;
};

struct LoweringState {
  const TargetInfo *target;
  DenseMap<Operation *, KernelState> kernels; // keyed by gpu.func
  KernelState &of(Operation *op) {
    return kernels[op->getParentOfType<gpu::GPUFuncOp>()];
  }
  Value lds(Operation *op) {
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    return func.getWorkgroupAttributions()[kernels[func].ldsIndex.lookup(op)];
  }
};

//===----------------------------------------------------------------------===//
// Small IR helpers
//===----------------------------------------------------------------------===//

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The coordinate part along each dimension that depends on lane and wave:
/// (threadIdx_d * size_d + waveIdx_d * size_d * threads_d) mod S_d, as i32.
SmallVector<Value> laneBase(OpBuilder &b, Location loc,
                            const DistributedLayout &l, Value lane,
                            Value wave) {
  BlockedLayoutAttr p = l.getBlocked();
  SmallVector<Value> base;
  for (unsigned d = 0; d < l.getRank(); ++d) {
    unsigned threads = p.getThreadsPerWave()[d], waves = p.getWavesPerCTA()[d];
    int64_t size = p.getSizePerThread()[d];
    Value sum = i32Const(b, loc, 0);
    if (threads > 1) {
      Value t = arith::ShRUIOp::create(b, loc, lane,
                                       i32Const(b, loc, l.laneBitBase(d)));
      t = arith::AndIOp::create(b, loc, t, i32Const(b, loc, threads - 1));
      sum = arith::MulIOp::create(b, loc, t, i32Const(b, loc, size));
    }
    if (waves > 1) {
      Value w = arith::ShRUIOp::create(b, loc, wave,
                                       i32Const(b, loc, l.waveBitBase(d)));
      w = arith::AndIOp::create(b, loc, w, i32Const(b, loc, waves - 1));
      w = arith::MulIOp::create(b, loc, w, i32Const(b, loc, size * threads));
      sum = arith::AddIOp::create(b, loc, sum, w);
    }
    sum = arith::AndIOp::create(b, loc, sum,
                                i32Const(b, loc, l.getShape()[d] - 1));
    base.push_back(sum);
  }
  return base;
}

/// Row-major linear index (i32) of register slot `slot` of layout `l`,
/// counting only the tensor's own dimensions (slice dims have size 1).
Value linearIndex(OpBuilder &b, Location loc, const DistributedLayout &l,
                  ArrayRef<Value> base, int64_t slot,
                  ArrayRef<int64_t> permutation = {}) {
  SmallVector<int64_t> idx = l.slotIndices(slot);
  SmallVector<Value> coords;
  for (unsigned d = 0; d < l.getRank(); ++d)
    coords.push_back(arith::AddIOp::create(
        b, loc, base[d], i32Const(b, loc, l.regCoord(d, idx[d]))));
  // Optionally reorder coordinates (for transposes) before linearizing.
  SmallVector<int64_t> shape(l.getShape());
  if (!permutation.empty()) {
    SmallVector<Value> c2;
    SmallVector<int64_t> s2;
    for (int64_t p : permutation) {
      c2.push_back(coords[p]);
      s2.push_back(shape[p]);
    }
    coords = c2;
    shape = s2;
  }
  Value lin = i32Const(b, loc, 0);
  for (unsigned d = 0; d < coords.size(); ++d) {
    lin = arith::MulIOp::create(b, loc, lin, i32Const(b, loc, shape[d]));
    lin = arith::AddIOp::create(b, loc, lin, coords[d]);
  }
  return lin;
}

/// Row-major index (i32) of the line through slot `slot` along dimension
/// `skip`: the slot's coordinates in every other dimension, linearized.
/// Elements that a reduction or scan along `skip` combines share it.
Value lineIndex(OpBuilder &b, Location loc, const DistributedLayout &l,
                ArrayRef<Value> base, int64_t slot, unsigned skip) {
  SmallVector<int64_t> idx = l.slotIndices(slot);
  Value lin = i32Const(b, loc, 0);
  for (unsigned d = 0; d < l.getRank(); ++d) {
    if (d == skip)
      continue;
    Value c = arith::AddIOp::create(b, loc, base[d],
                                    i32Const(b, loc, l.regCoord(d, idx[d])));
    lin = arith::MulIOp::create(b, loc, lin, i32Const(b, loc, l.getShape()[d]));
    lin = arith::AddIOp::create(b, loc, lin, c);
  }
  return lin;
}

/// The number of lines along dimension `skip`.
int64_t numLines(const DistributedLayout &l, unsigned skip) {
  int64_t n = 1;
  for (unsigned d = 0; d < l.getRank(); ++d)
    if (d != skip)
      n *= l.getShape()[d];
  return n;
}

/// The layout dimension of tensor axis `axis` (slice dims re-inserted).
unsigned layoutDim(const DistributedLayout &l, unsigned axis) {
  for (unsigned s : l.getSliceDims())
    if (s <= axis)
      ++axis;
  return axis;
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename Op> struct TilePattern : public OpConversionPattern<Op> {
  TilePattern(const TypeConverter &tc, MLIRContext *ctx, LoweringState &state)
      : OpConversionPattern<Op>(tc, ctx), state(state) {}
  LoweringState &state;

  FailureOr<DistributedLayout> layoutOf(Operation *op, Type t) const {
    std::string err;
    auto l = DistributedLayout::get(cast<RankedTensorType>(t), &err);
    if (failed(l))
      op->emitError() << "cannot distribute " << t << ": " << err;
    return l;
  }
};

/// arith and math ops on tensors apply lane by lane to the vectors.
struct ElementwisePattern : public ConversionPattern {
  ElementwisePattern(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return failure();
    auto hasTensor = [](TypeRange types) {
      return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
    };
    if (!hasTensor(op->getOperandTypes()) && !hasTensor(op->getResultTypes()))
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(typeConverter->convertTypes(op->getResultTypes(), resultTypes)))
      return failure();
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (!dense || !dense.isSplat())
        return rewriter.notifyMatchFailure(op, "only splat tensor constants "
                                               "can be distributed");
      auto vt = cast<VectorType>(resultTypes[0]);
      auto value = DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>());
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, vt, value);
      return success();
    }
    OperationState st(op->getLoc(), op->getName(), operands, resultTypes,
                      op->getAttrs());
    Operation *newOp = rewriter.create(st);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

template <typename Op, typename GpuOp>
struct GridIndexPattern : public TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                          gpu::Dimension::z};
    Value idx = GpuOp::create(rewriter, op.getLoc(), dims[op.getAxis()]);
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getI32Type(),
                                                    idx);
    return success();
  }
};

struct RangePattern : public TilePattern<RangeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    Location loc = op.getLoc();
    KernelState &ks = state.of(op);
    // The range is along its only tensor dimension; find it in the layout.
    unsigned d = 0;
    while (llvm::is_contained(l->getSliceDims(), d))
      ++d;
    Value base = laneBase(rewriter, loc, *l, ks.lane, ks.wave)[d];
    Type elem = op.getType().getElementType();
    if (!elem.isInteger(32))
      base = arith::ExtSIOp::create(rewriter, loc, elem, base);
    SmallVector<Attribute> offs;
    for (int64_t s = 0; s < l->getNumElems(); ++s)
      offs.push_back(IntegerAttr::get(
          elem, l->regCoord(d, l->slotIndices(s)[d]) + op.getStart()));
    auto vt = VectorType::get({l->getNumElems()}, elem);
    Value cst = arith::ConstantOp::create(rewriter, loc, vt,
                                          DenseElementsAttr::get(vt, offs));
    Value splat = vector::BroadcastOp::create(rewriter, loc, vt, base);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, cst);
    return success();
  }
};

struct SplatPattern : public TilePattern<SplatOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type vt = getTypeConverter()->convertType(op.getType());
    if (!vt)
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vt, adaptor.getSrc());
    return success();
  }
};

struct BroadcastPattern : public TilePattern<BroadcastOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = layoutOf(op, op.getSrc().getType());
    auto dst = layoutOf(op, op.getType());
    if (failed(src) || failed(dst))
      return failure();
    if (src->getBlocked() != dst->getBlocked())
      return op.emitError("broadcast between different layouts; "
                          "tile-assign-layouts keeps them equal");
    SmallVector<int64_t> mask;
    for (int64_t s = 0; s < dst->getNumElems(); ++s) {
      SmallVector<int64_t> idx = dst->slotIndices(s);
      for (unsigned d = 0; d < idx.size(); ++d)
        if (src->getShape()[d] != dst->getShape()[d])
          idx[d] = 0;
      mask.push_back(src->slotOf(idx));
    }
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, adaptor.getSrc(),
                                                   adaptor.getSrc(), mask);
    return success();
  }
};

struct ExpandDimsPattern : public TilePattern<ExpandDimsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = layoutOf(op, op.getSrc().getType());
    auto dst = layoutOf(op, op.getType());
    if (failed(src) || failed(dst))
      return failure();
    if (!(*src == *dst))
      return op.emitError("expand_dims source must be the slice of the "
                          "result's layout along the new axis");
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// Moves a tile between two layouts through LDS: every lane writes its
/// elements at their row-major position, then reads the ones it needs.
/// Covers layout conversions, reshapes (same linear order) and transposes.
template <typename Op> struct LdsRelayoutPattern : public TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = this->layoutOf(op, op.getSrc().getType());
    auto dst = this->layoutOf(op, op.getType());
    if (failed(src) || failed(dst))
      return failure();
    Value in = adaptor.getSrc();
    if constexpr (!std::is_same_v<Op, TransposeOp>) {
      if (*src == *dst && src->getShape() == dst->getShape()) {
        rewriter.replaceOp(op, in);
        return success();
      }
    }
    Location loc = op.getLoc();
    KernelState &ks = this->state.of(op);
    Value lds = this->state.lds(op);
    Type elem = op.getType().getElementType();
    Type stored = ldsType(elem);
    auto toStored = [&](Value v) -> Value {
      if (elem.isInteger(1))
        return arith::ExtUIOp::create(rewriter, loc, stored, v);
      if (stored != elem)
        return arith::BitcastOp::create(rewriter, loc, stored, v);
      return v;
    };
    auto fromStored = [&](Value v) -> Value {
      if (elem.isInteger(1))
        return arith::TruncIOp::create(rewriter, loc, elem, v);
      if (stored != elem)
        return arith::BitcastOp::create(rewriter, loc, elem, v);
      return v;
    };
    // Earlier readers of this buffer (in a loop) must be done.
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> srcBase =
        laneBase(rewriter, loc, *src, ks.lane, ks.wave);
    for (int64_t s = 0; s < src->getNumElems(); ++s) {
      Value lin = linearIndex(rewriter, loc, *src, srcBase, s);
      Value v = vector::ExtractOp::create(rewriter, loc, in, s);
      memref::StoreOp::create(rewriter, loc, toStored(v), lds,
                              ValueRange{toIndex(rewriter, loc, lin)});
    }
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<int64_t> perm;
    if constexpr (std::is_same_v<Op, TransposeOp>) {
      // Destination dim i is source dim order[i]: read at the source's
      // row-major position, i.e. linearize dst coords in inverse order.
      ArrayRef<int32_t> order = op.getOrder();
      perm.assign(order.size(), 0);
      for (unsigned i = 0; i < order.size(); ++i)
        perm[order[i]] = i;
    }
    SmallVector<Value> dstBase =
        laneBase(rewriter, loc, *dst, ks.lane, ks.wave);
    SmallVector<Value> elems;
    for (int64_t s = 0; s < dst->getNumElems(); ++s) {
      Value lin = linearIndex(rewriter, loc, *dst, dstBase, s, perm);
      Value v = memref::LoadOp::create(rewriter, loc, lds,
                                       ValueRange{toIndex(rewriter, loc, lin)});
      elems.push_back(fromStored(v));
    }
    auto vt = VectorType::get({dst->getNumElems()}, elem);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vt, elems);
    return success();
  }
};

struct PtrCastPattern : public TilePattern<PtrCastOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(PtrCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto dstType =
        cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    unsigned bytes = dstType.getElementTypeBitWidth() / 8;
    Value zero = indexConst(rewriter, loc, 0);
    Value size = memref::DimOp::create(rewriter, loc, adaptor.getSrc(), zero);
    size = arith::DivUIOp::create(rewriter, loc, size,
                                  indexConst(rewriter, loc, bytes));
    rewriter.replaceOpWithNewOp<memref::ViewOp>(op, dstType, adaptor.getSrc(),
                                                zero, ValueRange{size});
    return success();
  }
};

/// Shared logic of loads and stores: which slots go together in one vector
/// access.
struct AccessPlan {
  int64_t width = 1; // elements per access
  unsigned alignBytes = 0;
};

AccessPlan planAccess(const DistributedLayout &l, const AxisInfo &offsets,
                      const AxisInfo *mask, unsigned elemBytes,
                      unsigned maxVectorBytes, unsigned pointerAlign) {
  AccessPlan plan;
  unsigned rank = l.getRank();
  unsigned f = l.getBlocked().getOrder()[0];
  // Offsets' axis facts are indexed by tensor dims; map the layout dim.
  unsigned td = f;
  for (unsigned s : l.getSliceDims())
    if (s < f)
      --td;
  if (llvm::is_contained(l.getSliceDims(), f) || offsets.rank() == 0)
    return plan;
  (void)rank;
  int64_t inLane =
      std::min<int64_t>(l.getBlocked().getSizePerThread()[f], l.getShape()[f]);
  int64_t w = std::min<int64_t>(inLane, offsets.contiguity[td]);
  w = std::min<int64_t>(w, std::max(1u, maxVectorBytes / elemBytes));
  if (mask)
    w = std::min<int64_t>(w, mask->constancy[td]);
  w = int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, w));
  plan.width = w;
  int64_t divElems = std::min<int64_t>(offsets.divisibility[td], w);
  unsigned align = elemBytes * (int64_t(1) << llvm::Log2_64(divElems));
  // The base is at least element-aligned.
  align = std::min(align, std::max(pointerAlign, elemBytes));
  plan.alignBytes = std::max(align, elemBytes);
  return plan;
}

/// Alignment in bytes known for the base of `ptr`: what the kernel argument
/// promises with `tile.divisibility` (looking through pointer casts), else
/// 1 (element alignment is added by the caller).
unsigned pointerAlignment(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (!isa<memref::ViewOp, UnrealizedConversionCastOp>(def))
      return 1;
    ptr = def->getOperand(0);
  }
  if (auto arg = dyn_cast<BlockArgument>(ptr))
    if (auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
      if (arg.getArgNumber() < func.getNumArguments())
        if (auto d = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                        "tile.divisibility"))
          return d.getInt();
  return 1;
}

struct LoadPattern : public TilePattern<LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getType());
    Type stored = storageType(elem);
    Value mem = adaptor.getPtr();
    auto fromStored = [&](Value v) {
      return bitcastElements(rewriter, loc, v, elem);
    };

    if (!isa<RankedTensorType>(op.getType())) {
      Value idx = toIndex(rewriter, loc, adaptor.getOffsets());
      auto loadScalar = [&](OpBuilder &b) -> Value {
        return fromStored(memref::LoadOp::create(b, loc, mem, ValueRange{idx}));
      };
      if (!adaptor.getMask()) {
        rewriter.replaceOp(op, loadScalar(rewriter));
        return success();
      }
      Value other = adaptor.getOther()
                        ? adaptor.getOther()
                        : arith::ConstantOp::create(rewriter, loc,
                                                    rewriter.getZeroAttr(elem))
                              .getResult();
      auto ifOp = scf::IfOp::create(
          rewriter, loc, adaptor.getMask(),
          [&](OpBuilder &b, Location) {
            scf::YieldOp::create(b, loc, loadScalar(b));
          },
          [&](OpBuilder &b, Location) { scf::YieldOp::create(b, loc, other); });
      rewriter.replaceOp(op, ifOp.getResult(0));
      return success();
    }

    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    KernelState &ks = state.of(op);
    AxisInfo offInfo = ks.axis->get(op.getOffsets());
    std::optional<AxisInfo> maskInfo;
    if (op.getMask())
      maskInfo = ks.axis->get(op.getMask());
    AccessPlan plan = planAccess(
        *l, offInfo, maskInfo ? &*maskInfo : nullptr, std::max(1u, stored.getIntOrFloatBitWidth() / 8),
        state.target->maxVectorBytes(), pointerAlignment(adaptor.getPtr()));
    auto vt = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value other = adaptor.getOther();
    int64_t w = plan.width;
    auto chunkType = VectorType::get({w}, elem);
    auto loadChunk = [&](OpBuilder &b, Value idx) -> Value {
      if (w == 1)
        return fromStored(memref::LoadOp::create(b, loc, mem, ValueRange{idx}));
      auto load = vector::LoadOp::create(b, loc, VectorType::get({w}, stored),
                                         mem, ValueRange{idx});
      load.setAlignment(plan.alignBytes);
      return fromStored(load);
    };
    // Masked-off elements take `other` (or zero).
    Value zero;
    if (adaptor.getMask() && !other)
      zero = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(w == 1 ? elem : Type(chunkType)));
    auto fallback = [&](OpBuilder &b, int64_t s) -> Value {
      if (!other)
        return zero;
      if (w == 1)
        return vector::ExtractOp::create(b, loc, other, s);
      return vector::ExtractStridedSliceOp::create(
          b, loc, other, ArrayRef<int64_t>{s}, ArrayRef<int64_t>{w},
          ArrayRef<int64_t>{1});
    };
    // The lane's elements are gathered as scalars and assembled once: a
    // chain of insertions into the whole vector would grow the IR (and the
    // LLVM shuffles it becomes) with the square of the elements per lane.
    SmallVector<Value> elems;
    elems.reserve(l->getNumElems());
    for (int64_t s = 0; s < l->getNumElems(); s += w) {
      Value off =
          vector::ExtractOp::create(rewriter, loc, adaptor.getOffsets(), s);
      Value idx = toIndex(rewriter, loc, off);
      Value chunk;
      if (adaptor.getMask()) {
        Value m =
            vector::ExtractOp::create(rewriter, loc, adaptor.getMask(), s);
        auto ifOp = scf::IfOp::create(
            rewriter, loc, m,
            [&](OpBuilder &b, Location) {
              scf::YieldOp::create(b, loc, loadChunk(b, idx));
            },
            [&](OpBuilder &b, Location) {
              scf::YieldOp::create(b, loc, fallback(b, s));
            });
        chunk = ifOp.getResult(0);
      } else {
        chunk = loadChunk(rewriter, idx);
      }
      if (w == 1) {
        elems.push_back(chunk);
        continue;
      }
      for (int64_t j = 0; j < w; ++j)
        elems.push_back(vector::ExtractOp::create(rewriter, loc, chunk, j));
    }
    Value result = vector::FromElementsOp::create(rewriter, loc, vt, elems);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StorePattern : public TilePattern<StoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getValue().getType());
    Type stored = storageType(elem);
    Value mem = adaptor.getPtr();
    auto toStored = [&](OpBuilder &b, Value v) {
      return bitcastElements(b, loc, v, stored);
    };
    auto guarded = [&](Value mask, function_ref<void(OpBuilder &)> body) {
      if (!mask) {
        body(rewriter);
        return;
      }
      scf::IfOp::create(rewriter, loc, mask, [&](OpBuilder &b, Location) {
        body(b);
        scf::YieldOp::create(b, loc);
      });
    };

    if (!isa<RankedTensorType>(op.getValue().getType())) {
      Value idx = toIndex(rewriter, loc, adaptor.getOffsets());
      guarded(adaptor.getMask(), [&](OpBuilder &b) {
        memref::StoreOp::create(b, loc, toStored(b, adaptor.getValue()), mem,
                                ValueRange{idx});
      });
      rewriter.eraseOp(op);
      return success();
    }

    auto l = layoutOf(op, op.getValue().getType());
    if (failed(l))
      return failure();
    KernelState &ks = state.of(op);
    AxisInfo offInfo = ks.axis->get(op.getOffsets());
    std::optional<AxisInfo> maskInfo;
    if (op.getMask())
      maskInfo = ks.axis->get(op.getMask());
    AccessPlan plan = planAccess(
        *l, offInfo, maskInfo ? &*maskInfo : nullptr,
        std::max(1u, stored.getIntOrFloatBitWidth() / 8),
        state.target->maxVectorBytes(), pointerAlignment(adaptor.getPtr()));
    int64_t w = plan.width;
    // Replicated elements (layout larger than the tile) would be stored by
    // several lanes; they store the same value, which is harmless.
    for (int64_t s = 0; s < l->getNumElems(); s += w) {
      Value off =
          vector::ExtractOp::create(rewriter, loc, adaptor.getOffsets(), s);
      Value idx = toIndex(rewriter, loc, off);
      Value mask =
          adaptor.getMask()
              ? vector::ExtractOp::create(rewriter, loc, adaptor.getMask(), s)
                    .getResult()
              : Value();
      guarded(mask, [&](OpBuilder &b) {
        if (w == 1) {
          Value v = vector::ExtractOp::create(b, loc, adaptor.getValue(), s);
          memref::StoreOp::create(b, loc, toStored(b, v), mem, ValueRange{idx});
          return;
        }
        Value chunk = vector::ExtractStridedSliceOp::create(
            b, loc, adaptor.getValue(), ArrayRef<int64_t>{s},
            ArrayRef<int64_t>{w}, ArrayRef<int64_t>{1});
        auto store = vector::StoreOp::create(b, loc, toStored(b, chunk), mem,
                                             ValueRange{idx});
        store.setAlignment(plan.alignBytes);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

std::optional<arith::AtomicRMWKind> atomicKind(AtomicKind k, Type elem) {
  bool f = isa<FloatType>(elem);
  switch (k) {
  case AtomicKind::add:
    return f ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case AtomicKind::max:
    return f ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs;
  case AtomicKind::min:
    return f ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins;
  case AtomicKind::umax:
    return arith::AtomicRMWKind::maxu;
  case AtomicKind::umin:
    return arith::AtomicRMWKind::minu;
  case AtomicKind::and_:
    return arith::AtomicRMWKind::andi;
  case AtomicKind::or_:
    return arith::AtomicRMWKind::ori;
  case AtomicKind::xchg:
    return arith::AtomicRMWKind::assign;
  }
  return std::nullopt;
}

struct AtomicRMWPattern : public TilePattern<AtomicRMWOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getType());
    auto kind = atomicKind(op.getKind(), elem);
    if (!kind)
      return failure();
    auto one = [&](OpBuilder &b, Value off, Value v, Value mask) -> Value {
      Value idx = toIndex(b, loc, off);
      auto doIt = [&](OpBuilder &bb) -> Value {
        return memref::AtomicRMWOp::create(bb, loc, *kind, v, adaptor.getPtr(),
                                           ValueRange{idx});
      };
      if (!mask)
        return doIt(b);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
      return scf::IfOp::create(
                 b, loc, mask,
                 [&](OpBuilder &bb, Location) {
                   scf::YieldOp::create(bb, loc, doIt(bb));
                 },
                 [&](OpBuilder &bb, Location) {
                   scf::YieldOp::create(bb, loc, zero);
                 })
          .getResult(0);
    };
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, one(rewriter, adaptor.getOffsets(),
                                 adaptor.getValue(), adaptor.getMask()));
      return success();
    }
    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    SmallVector<Value> olds;
    for (int64_t s = 0; s < l->getNumElems(); ++s) {
      Value off =
          vector::ExtractOp::create(rewriter, loc, adaptor.getOffsets(), s);
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getValue(), s);
      Value m =
          adaptor.getMask()
              ? vector::ExtractOp::create(rewriter, loc, adaptor.getMask(), s)
                    .getResult()
              : Value();
      olds.push_back(one(rewriter, off, v, m));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), olds);
    return success();
  }
};

tessel::CombineKind toCombine(tile::CombineKind k) {
  switch (k) {
  case tile::CombineKind::add:
    return tessel::CombineKind::Add;
  case tile::CombineKind::max:
    return tessel::CombineKind::Max;
  case tile::CombineKind::min:
    return tessel::CombineKind::Min;
  }
  llvm_unreachable("unknown combine kind");
}

struct ReducePattern : public TilePattern<ReduceOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto src = layoutOf(op, op.getSrc().getType());
    if (failed(src))
      return failure();
    unsigned k = layoutDim(*src, op.getAxis());
    Type elem = op.getSrc().getType().getElementType();
    tessel::CombineKind kind = toCombine(op.getKind());
    unsigned laneBits = src->distinctLaneBits(k);
    unsigned waveBits = src->distinctWaveBits(k);
    if ((laneBits || waveBits) && elem.getIntOrFloatBitWidth() != 32)
      return op.emitError("reductions across lanes support 32-bit elements; "
                          "got ")
             << elem;
    KernelState &ks = state.of(op);

    // 1. In registers: fold the slots along k.
    SmallVector<int64_t> outSlots; // representative source slot per output
    SmallVector<Value> acc;
    for (int64_t s = 0; s < src->getNumElems(); ++s) {
      SmallVector<int64_t> idx = src->slotIndices(s);
      if (idx[k] != 0)
        continue;
      Value a = vector::ExtractOp::create(rewriter, loc, adaptor.getSrc(), s);
      for (int64_t i = 1; i < src->getElemsAlong(k); ++i) {
        idx[k] = i;
        Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getSrc(),
                                            src->slotOf(idx));
        a = emitCombine(rewriter, loc, kind, a, v);
      }
      outSlots.push_back(s);
      acc.push_back(a);
    }
    // 2. Across the lanes that hold distinct coordinates along k.
    if (laneBits)
      for (Value &a : acc)
        a = state.target->emitLaneGroupReduce(rewriter, loc, a, kind,
                                              src->laneBitBase(k), laneBits);
    // 3. Across waves, through LDS laid out as [2^waveBits][numel of result].
    if (waveBits) {
      Value lds = state.lds(op);
      SmallVector<Value> base = laneBase(rewriter, loc, *src, ks.lane, ks.wave);
      Value waveK = emitLaneBitField(rewriter, loc, ks.wave,
                                     src->waveBitBase(k), waveBits);
      // Row-major index of the output element, with k's coordinate dropped.
      auto outIndex = [&](int64_t s) {
        return lineIndex(rewriter, loc, *src, base, s, k);
      };
      int64_t numOut = numLines(*src, k);
      gpu::BarrierOp::create(rewriter, loc);
      SmallVector<Value> lins;
      for (auto [s, a] : llvm::zip(outSlots, acc)) {
        Value lin = outIndex(s);
        lins.push_back(lin);
        Value at = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, waveK,
                                  i32Const(rewriter, loc, numOut)),
            lin);
        memref::StoreOp::create(rewriter, loc, a, lds,
                                ValueRange{toIndex(rewriter, loc, at)});
      }
      gpu::BarrierOp::create(rewriter, loc);
      for (auto [a, lin] : llvm::zip(acc, lins)) {
        Value total;
        for (int64_t w = 0; w < (1 << waveBits); ++w) {
          Value at = arith::AddIOp::create(rewriter, loc, lin,
                                           i32Const(rewriter, loc, w * numOut));
          Value v = memref::LoadOp::create(
              rewriter, loc, lds, ValueRange{toIndex(rewriter, loc, at)});
          total = total ? emitCombine(rewriter, loc, kind, total, v) : v;
        }
        a = total;
      }
      gpu::BarrierOp::create(rewriter, loc);
    }
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, acc.front());
      return success();
    }
    // Output slots follow the source order with k collapsed, which is the
    // order of the slice layout's registers.
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), acc);
    return success();
  }
};

/// Register-resident scan (DESIGN.md 3.3): a sequential scan of each lane's
/// run of elements, a scan of the runs' totals across the lanes along the
/// axis (DPP / shuffles through TargetInfo), one LDS exchange of the waves'
/// totals, and a fix-up in registers. Elements along the axis are ordered
/// register repeat, then wave, then lane, then position in the lane's run.
struct ScanPattern : public TilePattern<ScanOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getReverse())
      return op.emitError("reverse scans are not lowered yet; scan a "
                          "reversed tile instead");
    Location loc = op.getLoc();
    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    unsigned k = layoutDim(*l, op.getAxis());
    Type elem = op.getType().getElementType();
    tessel::CombineKind kind = toCombine(op.getKind());
    unsigned laneBits = l->distinctLaneBits(k);
    unsigned waveBits = l->distinctWaveBits(k);
    if ((laneBits || waveBits) && elem.getIntOrFloatBitWidth() != 32)
      return op.emitError("scans across lanes support 32-bit elements; got ")
             << elem;
    const TargetInfo &target = *state.target;
    KernelState &ks = state.of(op);
    Value in = adaptor.getSrc();
    Value identity = emitIdentity(rewriter, loc, elem, kind);
    int64_t inLane = std::min<int64_t>(l->getBlocked().getSizePerThread()[k],
                                       l->getShape()[k]);
    int64_t reps = l->getElemsAlong(k) / inLane;
    // Lane-group helpers, shared by every line.
    Value laneField, prevLane, lastLane;
    if (laneBits) {
      unsigned fb = l->laneBitBase(k);
      int64_t mask = (int64_t(1) << laneBits) - 1;
      laneField = emitLaneBitField(rewriter, loc, ks.lane, fb, laneBits);
      prevLane = arith::SubIOp::create(rewriter, loc, ks.lane,
                                       i32Const(rewriter, loc, 1 << fb));
      lastLane = arith::OrIOp::create(rewriter, loc, ks.lane,
                                      i32Const(rewriter, loc, mask << fb));
    }
    Value waveK;
    SmallVector<Value> base;
    Value lds;
    if (waveBits) {
      waveK =
          emitLaneBitField(rewriter, loc, ks.wave, l->waveBitBase(k), waveBits);
      base = laneBase(rewriter, loc, *l, ks.lane, ks.wave);
      lds = state.lds(op);
      // Earlier readers of the buffer (in a loop) must be done.
      gpu::BarrierOp::create(rewriter, loc);
    }
    int64_t lines = numLines(*l, k);

    struct Line {
      int64_t slot0;
      SmallVector<SmallVector<Value>> local; // [rep][pos]: in-lane prefix
      SmallVector<Value> laneExcl, segTotal, carry;
      Value lineIdx;
    };
    std::vector<Line> todo;
    for (int64_t s = 0; s < l->getNumElems(); ++s) {
      SmallVector<int64_t> idx = l->slotIndices(s);
      if (idx[k] != 0)
        continue;
      Line line;
      line.slot0 = s;
      for (int64_t r = 0; r < reps; ++r) {
        SmallVector<Value> run;
        Value acc;
        for (int64_t w = 0; w < inLane; ++w) {
          idx[k] = r * inLane + w;
          Value x =
              vector::ExtractOp::create(rewriter, loc, in, l->slotOf(idx));
          acc = acc ? emitCombine(rewriter, loc, kind, acc, x) : x;
          run.push_back(acc);
        }
        line.local.push_back(run);
        Value total = run.back();
        if (laneBits) {
          Value incl = target.emitLaneGroupInclusiveScan(
              rewriter, loc, total, kind, l->laneBitBase(k), laneBits);
          Value prev = target.emitLaneShuffle(rewriter, loc, incl, prevLane);
          Value first =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    laneField, i32Const(rewriter, loc, 0));
          line.laneExcl.push_back(
              arith::SelectOp::create(rewriter, loc, first, identity, prev));
          line.segTotal.push_back(
              target.emitLaneShuffle(rewriter, loc, incl, lastLane));
        } else {
          line.laneExcl.push_back(identity);
          line.segTotal.push_back(total);
        }
      }
      if (waveBits) {
        line.lineIdx = lineIndex(rewriter, loc, *l, base, s, k);
        Value at0 = arith::MulIOp::create(
            rewriter, loc,
            arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(rewriter, loc, waveK,
                                      i32Const(rewriter, loc, lines)),
                line.lineIdx),
            i32Const(rewriter, loc, reps));
        for (int64_t r = 0; r < reps; ++r) {
          Value at = arith::AddIOp::create(rewriter, loc, at0,
                                           i32Const(rewriter, loc, r));
          memref::StoreOp::create(rewriter, loc, line.segTotal[r], lds,
                                  ValueRange{toIndex(rewriter, loc, at)});
        }
      }
      todo.push_back(std::move(line));
    }

    // Carry into each register repeat: the totals of the earlier repeats
    // (all waves) and of the earlier waves of this repeat.
    if (waveBits)
      gpu::BarrierOp::create(rewriter, loc);
    for (Line &line : todo) {
      Value c = identity;
      for (int64_t r = 0; r < reps; ++r) {
        if (!waveBits) {
          line.carry.push_back(c);
          c = emitCombine(rewriter, loc, kind, c, line.segTotal[r]);
          continue;
        }
        Value mine = c;
        for (int64_t w = 0; w < (int64_t(1) << waveBits); ++w) {
          Value at = arith::AddIOp::create(
              rewriter, loc,
              arith::MulIOp::create(
                  rewriter, loc,
                  arith::AddIOp::create(rewriter, loc,
                                        i32Const(rewriter, loc, w * lines),
                                        line.lineIdx),
                  i32Const(rewriter, loc, reps)),
              i32Const(rewriter, loc, r));
          Value t = memref::LoadOp::create(
              rewriter, loc, lds, ValueRange{toIndex(rewriter, loc, at)});
          Value before =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                    i32Const(rewriter, loc, w), waveK);
          mine = arith::SelectOp::create(
              rewriter, loc, before, emitCombine(rewriter, loc, kind, mine, t),
              mine);
          c = emitCombine(rewriter, loc, kind, c, t);
        }
        line.carry.push_back(mine);
      }
    }
    if (waveBits)
      gpu::BarrierOp::create(rewriter, loc);

    // Fix-up in registers.
    SmallVector<Value> out(l->getNumElems());
    for (Line &line : todo) {
      SmallVector<int64_t> idx = l->slotIndices(line.slot0);
      for (int64_t r = 0; r < reps; ++r) {
        Value pre =
            emitCombine(rewriter, loc, kind, line.carry[r], line.laneExcl[r]);
        for (int64_t w = 0; w < inLane; ++w) {
          idx[k] = r * inLane + w;
          Value v;
          if (!op.getExclusive())
            v = emitCombine(rewriter, loc, kind, pre, line.local[r][w]);
          else
            v = w == 0 ? pre
                       : emitCombine(rewriter, loc, kind, pre,
                                     line.local[r][w - 1]);
          out[l->slotOf(idx)] = v;
        }
      }
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), out);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTileToSimtPass
    : public tessel::impl::ConvertTileToSimtBase<ConvertTileToSimtPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::unique_ptr<TargetInfo> info =
        claimModuleTarget(module, target, getArgument());
    if (!info)
      return signalPassFailure();
    LoweringState state;
    state.target = info.get();

    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    for (KernelOp kernel : kernels)
      if (failed(outline(kernel, *info, state)))
        return signalPassFailure();

    TypeConverter tc;
    tc.addConversion([](Type t) { return t; });
    tc.addConversion([](RankedTensorType t) -> std::optional<Type> {
      auto l = DistributedLayout::get(t);
      if (failed(l))
        return std::nullopt;
      return VectorType::get({l->getNumElems()}, t.getElementType());
    });
    tc.addConversion([](PtrType p) -> Type { return memrefFor(p); });
    auto materialize = [](OpBuilder &b, Type t, ValueRange in,
                          Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, t, in).getResult(0);
    };
    tc.addSourceMaterialization(materialize);
    tc.addTargetMaterialization(materialize);

    ConversionTarget ct(*ctx);
    ct.addIllegalDialect<TileDialect>();
    ct.addLegalDialect<gpu::GPUDialect, vector::VectorDialect,
                       memref::MemRefDialect, amdgpu::AMDGPUDialect,
                       ROCDL::ROCDLDialect>();
    auto legalTypes = [&](Operation *op) { return tc.isLegal(op); };
    ct.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        legalTypes);

    RewritePatternSet patterns(ctx);
    patterns.add<ElementwisePattern>(tc, ctx);
    patterns
        .add<GridIndexPattern<ProgramIdOp, gpu::BlockIdOp>,
             GridIndexPattern<NumProgramsOp, gpu::GridDimOp>, RangePattern,
             SplatPattern, BroadcastPattern, ExpandDimsPattern,
             LdsRelayoutPattern<ConvertLayoutOp>, LdsRelayoutPattern<ReshapeOp>,
             LdsRelayoutPattern<TransposeOp>, PtrCastPattern, LoadPattern,
             StorePattern, AtomicRMWPattern, ReducePattern, ScanPattern>(
            tc, ctx, state);
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, ct);
    if (failed(applyPartialConversion(module, ct, std::move(patterns))))
      return signalPassFailure();
  }

  /// Creates gpu.module @name { gpu.func @name(...) kernel } around the
  /// kernel's body, with the launch attributes, lane/wave ids and LDS.
  LogicalResult outline(KernelOp kernel, const TargetInfo &info,
                        LoweringState &state) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    OpBuilder b(kernel);
    auto knobs = kernel->getAttrOfType<DictionaryAttr>("tessel.knobs");
    unsigned numWaves = 1;
    if (auto w = kernel->getAttrOfType<IntegerAttr>("tessel.num_waves"))
      numWaves = w.getInt();
    KernelState ks;
    ks.numWaves = numWaves;

    auto gpuModule = gpu::GPUModuleOp::create(b, loc, kernel.getSymName());
    b.setInsertionPointToStart(gpuModule.getBody());
    // Pointer arguments become global memrefs here rather than through a
    // signature conversion, which would not keep the workgroup attributions
    // that share the entry block.
    SmallVector<Type> argTypes;
    for (Type t : kernel.getArgumentTypes())
      argTypes.push_back(isa<PtrType>(t) ? memrefFor(cast<PtrType>(t)) : t);
    auto func = gpu::GPUFuncOp::create(b, loc, kernel.getSymName(),
                                       b.getFunctionType(argTypes, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    int32_t blockSize = numWaves * info.waveSize();
    func.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {blockSize, 1, 1}));
    func->setAttr("tessel.target", StringAttr::get(ctx, info.name()));
    if (knobs) {
      func->setAttr("tessel.knobs", knobs);
      if (auto wpe = knobs.getAs<IntegerAttr>("waves_per_eu"))
        func->setAttr(
            "tessel.waves_per_eu",
            IntegerAttr::get(IntegerType::get(ctx, 32), wpe.getInt()));
    }
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (auto attrs = kernel.getArgAttrDict(i))
        func.setArgAttrs(i, attrs);

    // Move the body; gpu.func came with an empty entry block of its own.
    Block *entry = &func.getBody().front();
    Block *body = &kernel.getBody().front();
    entry->getOperations().splice(entry->end(), body->getOperations());
    b.setInsertionPointToStart(entry);
    for (auto [from, to] :
         llvm::zip(body->getArguments(), entry->getArguments())) {
      Value v = to;
      if (from.getType() != to.getType())
        v = UnrealizedConversionCastOp::create(b, loc, from.getType(), to)
                .getResult(0);
      from.replaceAllUsesWith(v);
    }
    auto ret = cast<ReturnOp>(entry->getTerminator());
    b.setInsertionPoint(ret);
    gpu::ReturnOp::create(b, ret.getLoc());
    ret.erase();

    ks.axis = std::make_unique<AxisInfoAnalysis>(
        cast<FunctionOpInterface>(func.getOperation()));

    // Lane and wave ids, once per kernel.
    b.setInsertionPointToStart(entry);
    Value tid = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    ks.lane = arith::AndIOp::create(b, loc, tid,
                                    i32Const(b, loc, info.waveSize() - 1));
    ks.wave = arith::ShRUIOp::create(
        b, loc, tid, i32Const(b, loc, llvm::Log2_32(info.waveSize())));

    // LDS for layout moves and cross-wave reductions.
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    LogicalResult ok = success();
    func.walk([&](Operation *op) {
      int64_t elems = 0;
      Type elem;
      if (isa<ConvertLayoutOp, ReshapeOp, TransposeOp>(op)) {
        auto st = cast<RankedTensorType>(op->getOperand(0).getType());
        auto dt = cast<RankedTensorType>(op->getResult(0).getType());
        auto sl = DistributedLayout::get(st), dl = DistributedLayout::get(dt);
        if (failed(sl) || failed(dl)) {
          ok = op->emitError("tensor without a distributable layout; run "
                             "tile-assign-layouts first");
          return;
        }
        if (!isa<TransposeOp>(op) && *sl == *dl)
          return;
        elems = st.getNumElements();
        elem = ldsType(st.getElementType());
      } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
        auto l = DistributedLayout::get(reduce.getSrc().getType());
        if (failed(l)) {
          ok = op->emitError("tensor without a distributable layout; run "
                             "tile-assign-layouts first");
          return;
        }
        unsigned k = layoutDim(*l, reduce.getAxis());
        unsigned wb = l->distinctWaveBits(k);
        if (!wb)
          return;
        elems = (int64_t(1) << wb) * numLines(*l, k);
        elem = reduce.getSrc().getType().getElementType();
      } else if (auto scan = dyn_cast<ScanOp>(op)) {
        auto l = DistributedLayout::get(scan.getSrc().getType());
        if (failed(l)) {
          ok = op->emitError("tensor without a distributable layout; run "
                             "tile-assign-layouts first");
          return;
        }
        unsigned k = layoutDim(*l, scan.getAxis());
        unsigned wb = l->distinctWaveBits(k);
        if (!wb)
          return;
        // [waves along k][lines][register repeats along k] of wave totals.
        int64_t inLane = std::min<int64_t>(
            l->getBlocked().getSizePerThread()[k], l->getShape()[k]);
        elems = (int64_t(1) << wb) * numLines(*l, k) *
                (l->getElemsAlong(k) / inLane);
        elem = scan.getSrc().getType().getElementType();
      } else {
        return;
      }
      ks.ldsIndex[op] = func.getNumWorkgroupAttributions();
      func.addWorkgroupAttribution(
          MemRefType::get({elems}, elem, AffineMap(), workgroup), op->getLoc());
    });
    if (failed(ok))
      return failure();
    kernel.erase();
    state.kernels[func] = std::move(ks);
    return success();
  }
};

} // namespace
