//===- TileToSimt.cpp - Distribute tile IR over lanes and waves -----------===//
//
// Each tile kernel becomes a gpu.func. A tensor with a blocked or slice
// layout becomes the vector of the elements one lane owns (see
// DistributedLayout); pointers become global memrefs. Cross-lane work goes
// through TargetInfo, cross-wave work and layout changes through LDS: one
// workgroup buffer per kernel, laid out by the liveness-based LdsAllocation
// before the conversion starts; each op reads its part through a view.
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/Passes.h"

#include "AxisInfo.h"
#include "ConvertLayout.h"
#include "DotToSimt.h"
#include "DotToWgmma.h"
#include "GridBarrierToSimt.h"
#include "LdsAllocator.h"
#include "SharedMemoryToSimt.h"
#include "SimtLoweringState.h"
#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_CONVERTTILETOSIMT
#include "tessel/Lowering/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

Type tessel::storageType(Type t) {
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType>(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

Type tessel::ldsType(Type t) {
  if (t.isInteger(1) || isa<Float8E4M3FNType, Float8E4M3FNUZType>(t))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

Value LoweringState::ldsView(OpBuilder &b, Operation *op, Value at, Type elem,
                             int64_t numElems) {
  auto type =
      MemRefType::get({numElems}, elem, AffineMap(),
                      gpu::AddressSpaceAttr::get(op->getContext(),
                                                 gpu::AddressSpace::Workgroup));
  return memref::ViewOp::create(b, op->getLoc(), type, of(op).ldsBuffer, at,
                                ValueRange{})
      .getResult();
}

FailureOr<Value> LoweringState::lds(OpBuilder &b, Operation *op, Type elem,
                                    int64_t numElems) {
  KernelState &ks = of(op);
  int64_t offset = ks.ldsLayout ? ks.ldsLayout->offsetOf(op) : -1;
  if (offset < 0 || !ks.ldsBuffer)
    return op->emitError("no LDS was allocated for this op");
  Value at = arith::ConstantIndexOp::create(b, op->getLoc(), offset);
  return ldsView(b, op, at, elem, numElems);
}

namespace {

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

unsigned ldsElemBytes(Type t) {
  return std::max(1u, ldsType(t).getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// Small IR helpers
//===----------------------------------------------------------------------===//

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The coordinate part along each dimension that depends on lane and wave,
/// as i32: the layout's lane and wave bit fields of that dimension, placed
/// at their coordinate bits (they are disjoint from the register part).
SmallVector<Value> laneBase(OpBuilder &b, Location loc,
                            const DistributedLayout &l, Value lane,
                            Value wave) {
  SmallVector<Value> base;
  auto addFields = [&](Value sum, Value id,
                       ArrayRef<DistributedLayout::BitField> fields) {
    for (const DistributedLayout::BitField &f : fields) {
      Value v = arith::ShRUIOp::create(b, loc, id, i32Const(b, loc, f.inBit));
      v = arith::AndIOp::create(b, loc, v,
                                i32Const(b, loc, (int64_t(1) << f.width) - 1));
      if (f.outBit)
        v = arith::ShLIOp::create(b, loc, v, i32Const(b, loc, f.outBit));
      sum = sum ? arith::OrIOp::create(b, loc, sum, v).getResult() : v;
    }
    return sum;
  };
  for (unsigned d = 0; d < l.getRank(); ++d) {
    Value sum = addFields(Value(), lane, l.laneFields(d));
    sum = addFields(sum, wave, l.waveFields(d));
    base.push_back(sum ? sum : i32Const(b, loc, 0));
  }
  return base;
}

/// The coordinates (i32) of register slot `slot` of layout `l` in the lane
/// whose lane/wave coordinate parts are `base`: one per dimension of the
/// layout, or with `dropSlices` one per dimension of the tensor.
SmallVector<Value> slotCoords(OpBuilder &b, Location loc,
                              const DistributedLayout &l, ArrayRef<Value> base,
                              int64_t slot, bool dropSlices = false) {
  SmallVector<int64_t> idx = l.slotIndices(slot);
  SmallVector<Value> coords;
  for (unsigned d = 0; d < l.getRank(); ++d)
    if (!dropSlices || !llvm::is_contained(l.getSliceDims(), d))
      coords.push_back(arith::AddIOp::create(
          b, loc, base[d], i32Const(b, loc, l.regCoord(d, idx[d]))));
  return coords;
}

/// Row-major linear index (i32) of `coords` in a tensor of `shape`.
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                ArrayRef<int64_t> shape) {
  Value lin = i32Const(b, loc, 0);
  for (auto [c, n] : llvm::zip(coords, shape)) {
    lin = arith::MulIOp::create(b, loc, lin, i32Const(b, loc, n));
    lin = arith::AddIOp::create(b, loc, lin, c);
  }
  return lin;
}

/// Row-major linear index (i32) of register slot `slot` of layout `l`,
/// counting only the tensor's own dimensions (slice dims have size 1).
Value linearIndex(OpBuilder &b, Location loc, const DistributedLayout &l,
                  ArrayRef<Value> base, int64_t slot,
                  ArrayRef<int64_t> permutation = {}) {
  SmallVector<Value> coords = slotCoords(b, loc, l, base, slot);
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
  return linearize(b, loc, coords, shape);
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

  /// Reductions and scans across lanes move `elem` with the target's lane
  /// moves; other element types are an error that names them.
  LogicalResult checkCrossesLanes(Operation *op, Type elem) const {
    if (state.target->crossesLanes(elem))
      return success();
    return op->emitError()
           << op->getName()
           << " across lanes takes integer or float elements of 32 or 64 "
              "bits, got "
           << elem;
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
    if (src->getEncoding() != dst->getEncoding())
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

/// The plan of a layout change (convert_layout, reshape, transpose); the
/// LDS allocator and the pattern both ask it, so they agree.
FailureOr<ConversionPlan> conversionPlan(Operation *op,
                                         const TargetInfo &target) {
  std::string err;
  auto layouts = conversionLayouts(op, &err);
  if (failed(layouts))
    return op->emitError("cannot convert between these layouts: ") << err;
  Type elem =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  auto plan = planConversion(layouts->first, layouts->second,
                             ldsElemBytes(elem), target, &err);
  if (failed(plan))
    return op->emitError("cannot convert between these layouts: ") << err;
  return plan;
}

/// Moves a tile between two layouts with the cheapest mechanism the layouts
/// allow (ConvertLayout.h): register permutation, shuffles within a wave,
/// or LDS through a swizzled shared layout. Covers layout conversions,
/// reshapes (same row-major order) and transposes.
template <typename Op> struct RelayoutPattern : public TilePattern<Op> {
  using TilePattern<Op>::TilePattern;

  static FailureOr<LdsNeed> ldsNeed(Op op, const TargetInfo &target) {
    auto plan = conversionPlan(op, target);
    if (failed(plan))
      return failure();
    LdsNeed n;
    if (plan->kind == ConversionPlan::Kind::Lds)
      n.bytes = plan->numElems * ldsElemBytes(op.getType().getElementType());
    return n;
  }

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto plan = conversionPlan(op, *this->state.target);
    if (failed(plan))
      return failure();
    Location loc = op.getLoc();
    KernelState &ks = this->state.of(op);
    Value buffer;
    if (plan->kind == ConversionPlan::Kind::Lds) {
      auto view = this->state.lds(
          rewriter, op, ldsType(op.getType().getElementType()), plan->numElems);
      if (failed(view))
        return failure();
      buffer = *view;
    }
    rewriter.replaceOp(op, emitConversion(rewriter, loc, *plan,
                                          adaptor.getSrc(), ks.lane, ks.wave,
                                          buffer, *this->state.target));
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
  // Consecutive slots hold consecutive elements along dimension f.
  int f = l.getFastestDim();
  if (f < 0 || llvm::is_contained(l.getSliceDims(), unsigned(f)) ||
      offsets.rank() == 0)
    return plan;
  // Offsets' axis facts are indexed by tensor dims; map the layout dim.
  unsigned td = f;
  for (unsigned s : l.getSliceDims())
    if (s < unsigned(f))
      --td;
  int64_t inLane = l.getContiguousElems();
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

/// Bytes of one element of `stored` (an element type as memory holds it).
unsigned storedElemBytes(Type stored) {
  return std::max(1u, stored.getIntOrFloatBitWidth() / 8);
}

/// What a tile.load or tile.store on a distributed tensor plans its vector
/// accesses from.
struct AccessSite {
  AxisInfo offsets;
  std::optional<AxisInfo> mask; // absent when unmasked
  unsigned elemBytes;
  unsigned maxVectorBytes;
  unsigned pointerAlign;

  /// The facts of `op`'s offsets and mask (AxisInfo), `stored`'s element
  /// size, the target's vector width and what is known of `ptr`'s
  /// alignment.
  template <typename OpT>
  static AccessSite of(OpT op, Value ptr, Type stored, KernelState &ks,
                       const TargetInfo &target) {
    AccessSite site{ks.axis->get(op.getOffsets()), std::nullopt,
                    storedElemBytes(stored), target.maxVectorBytes(),
                    pointerAlignment(ptr)};
    if (op.getMask())
      site.mask = ks.axis->get(op.getMask());
    return site;
  }
  /// The plan under the mask; with `masked` false, as if there were none
  /// (for the paths that apply the mask another way).
  AccessPlan plan(const DistributedLayout &l, bool masked = true) const {
    return planAccess(l, offsets, masked && mask ? &*mask : nullptr, elemBytes,
                      maxVectorBytes, pointerAlign);
  }
};

} // namespace

/// Alignment in bytes known for the base of `ptr`: what the kernel argument
/// promises with `tile.divisibility` (looking through pointer casts), else
/// 1 (element alignment is added by the caller).
unsigned tessel::pointerAlignment(Value ptr) {
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

namespace {

/// Whether `a` and `b` hold the same values: the same SSA value, or results
/// of the same side-effect-free computation on the same operands (layout
/// assignment may recompute a load's offsets and its mask separately).
bool sameValue(Value a, Value b, unsigned depth = 8) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth == 0 || x->getNumRegions() || y->getNumRegions() ||
      x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getResultTypes() != y->getResultTypes() ||
      x->getNumOperands() != y->getNumOperands() ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber() ||
      !isMemoryEffectFree(x))
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(p, q, depth - 1))
      return false;
  return true;
}

/// The uniform bound of a load mask `offsets < bound` (or `bound >
/// offsets`, unsigned or signed) on the load's own i32 offsets: the mask
/// keeps exactly the elements whose offset lies below the bound. Returns
/// the tile-level scalar bound, or null for any other mask.
Value contiguousBound(LoadOp op) {
  auto cmp = op.getMask() ? op.getMask().getDefiningOp<arith::CmpIOp>()
                          : arith::CmpIOp();
  if (!cmp)
    return {};
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    break;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    std::swap(lhs, rhs);
    break;
  default:
    return {};
  }
  auto splat = rhs.getDefiningOp<SplatOp>();
  if (!sameValue(lhs, op.getOffsets()) || !splat ||
      !getElementTypeOrSelf(lhs.getType()).isInteger(32))
    return {};
  return splat.getSrc();
}

/// Element `s` of the lane's i1 vector `mask`, recomputed from scalars where
/// the mask is a comparison or a combination of comparisons. A guarded
/// access sits in its own block; extracting from a vector computed once
/// would keep every element's lane mask (two SGPRs on AMD) live across all
/// the accesses before it, and the recomputed element is live only up to
/// its own.
Value maskElement(OpBuilder &b, Location loc, Value mask, int64_t s,
                  unsigned depth = 4) {
  auto element = [&](Value v) -> Value {
    if (!isa<VectorType>(v.getType()))
      return v;
    if (auto bc = v.getDefiningOp<vector::BroadcastOp>();
        bc && !isa<VectorType>(bc.getSource().getType()))
      return bc.getSource();
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto d = dyn_cast<SplatElementsAttr>(c.getValue()))
        return arith::ConstantOp::create(
            b, loc, cast<TypedAttr>(d.getSplatValue<Attribute>()));
    return vector::ExtractOp::create(b, loc, v, s);
  };
  Operation *def = mask.getDefiningOp();
  if (depth == 0 || !def || !isa<VectorType>(mask.getType()))
    return element(mask);
  if (auto cmp = dyn_cast<arith::CmpIOp>(def))
    return arith::CmpIOp::create(b, loc, cmp.getPredicate(),
                                 element(cmp.getLhs()), element(cmp.getRhs()));
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
    Value x = maskElement(b, loc, def->getOperand(0), s, depth - 1);
    Value y = maskElement(b, loc, def->getOperand(1), s, depth - 1);
    OperationState st(loc, def->getName());
    st.addOperands({x, y});
    st.addTypes(x.getType());
    return b.create(st)->getResult(0);
  }
  return element(mask);
}

/// Whether the mask of `op` is `x < b` (signed or unsigned; or `b > x`)
/// with x increasing by one over every `w` elements along dimension `d` that
/// one access covers and b the same there, without wrapping: x's runs are at
/// least w long and either aligned to w or non-negative. Along such an
/// access the mask holds for a prefix, so its last element tells whether
/// it holds for all of them.
bool isPrefixMask(LoadOp op, AxisInfoAnalysis &axis, unsigned d, int64_t w) {
  auto cmp = op.getMask() ? op.getMask().getDefiningOp<arith::CmpIOp>()
                          : arith::CmpIOp();
  if (!cmp || !isa<RankedTensorType>(cmp.getLhs().getType()))
    return false;
  Value x = cmp.getLhs(), b = cmp.getRhs();
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
    break;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    std::swap(x, b);
    break;
  default:
    return false;
  }
  AxisInfo xi = axis.get(x), bi = axis.get(b);
  if (d >= xi.rank() || xi.contiguity[d] < w || bi.constancy[d] < w)
    return false;
  return xi.divisibility[d] >= w || axis.isNonNegative(x);
}

/// Whether `v` is absent or a constant tile of zeros (+0.0 or integer 0):
/// what an out-of-range buffer read returns.
bool isZeroOrAbsent(Value v) {
  if (!v)
    return true;
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto splat =
      cst ? dyn_cast<SplatElementsAttr>(cst.getValue()) : SplatElementsAttr();
  if (!splat)
    return false;
  Attribute e = splat.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(e))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(e))
    return i.getValue().isZero();
  return false;
}

/// Lowers a load masked by `offsets < bound` to loads from a fat raw buffer
/// (amdgpu.fat_raw_buffer_cast of the kernel buffer, validBytes = the
/// bound): they become buffer loads whose hardware range check
/// (num_records) zeroes out-of-range dwords, so the mask costs no branch
/// and no select. CDNA checks multi-dword buffer loads per dword: a dword
/// is read only when all its bytes lie below num_records. For elements
/// narrower than a dword whose bound is not known to end on a dword,
/// validBytes is rounded up to the next dword and the bytes of the last
/// dword past the bound are cleared with one AND per dword. num_records and
/// the buffer offsets are 32-bit, so the bound's bytes must stay below
/// 4 GiB (as the i32 offsets of 1-byte elements always do). tryLower gives
/// nothing when the load does not qualify, and the predicated path applies.
struct BoundedBufferLoad {
  Value buffer;     // the kernel buffer as a fat raw buffer, cut at the bound
  Value boundBytes; // i32: bound * element bytes, the exact limit
  bool clearTail = false;
  unsigned elemBytes = 1, alignBytes = 1;

  /// `bound` is the (converted) i32 bound in elements; `boundDivisibility`
  /// the largest power of two known to divide it.
  static std::optional<BoundedBufferLoad> tryLower(OpBuilder &b, Location loc,
                                                   Value mem, Value bound,
                                                   int64_t boundDivisibility,
                                                   const AccessPlan &plan,
                                                   unsigned elemBytes) {
    // Whole dwords per access, aligned: each dword of an access is then a
    // dword of the buffer, and the per-dword range check is exact.
    int64_t accessBytes = plan.width * elemBytes;
    if (accessBytes % 4 != 0 || plan.alignBytes < 4)
      return std::nullopt;
    BoundedBufferLoad r;
    r.elemBytes = elemBytes;
    r.alignBytes = plan.alignBytes;
    r.clearTail = elemBytes < 4 && (boundDivisibility * elemBytes) % 4 != 0;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    // A negative bound keeps nothing.
    Value n = arith::MaxSIOp::create(
        b, loc, bound, arith::ConstantIntOp::create(b, loc, i32, 0));
    r.boundBytes = arith::MulIOp::create(
        b, loc, n, arith::ConstantIntOp::create(b, loc, i32, elemBytes));
    Value valid = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, n),
        arith::ConstantIntOp::create(b, loc, i64, elemBytes));
    if (r.clearTail) // up to the end of the dword that holds the bound
      valid = arith::AndIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, valid,
                                arith::ConstantIntOp::create(b, loc, i64, 3)),
          arith::ConstantIntOp::create(b, loc, i64, ~int64_t(3)));
    r.buffer = amdgpu::FatRawBufferCastOp::create(
        b, loc, mem, valid, /*cacheSwizzleStride=*/Value(),
        /*boundsCheck=*/b.getBoolAttr(true), /*resetOffset=*/b.getUnitAttr());
    return r;
  }

  /// Loads `chunk` (stored elements) at element offset `off` (i32).
  Value load(OpBuilder &b, Location loc, Value off, VectorType chunk) const {
    auto ld = vector::LoadOp::create(b, loc, chunk, buffer,
                                     ValueRange{toIndex(b, loc, off)});
    ld.setAlignment(alignBytes);
    Value v = ld;
    if (!clearTail)
      return v;
    // Byte mask of each dword: its bytes below the bound. Dwords wholly
    // past the bound already read 0, so 1..4 bytes are kept.
    Type i32 = b.getI32Type();
    int64_t dwords = chunk.getNumElements() * elemBytes / 4;
    auto dv = VectorType::get({dwords}, i32);
    Value start = arith::MulIOp::create(
        b, loc, off, arith::ConstantIntOp::create(b, loc, i32, elemBytes));
    Value left = arith::SubIOp::create(b, loc, boundBytes, start);
    SmallVector<int32_t> steps;
    for (int64_t j = 0; j < dwords; ++j)
      steps.push_back(4 * j);
    Value rel = arith::SubIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, dv, left),
        arith::ConstantOp::create(b, loc, dv, b.getI32VectorAttr(steps)));
    auto splat = [&](int32_t x) -> Value {
      return arith::ConstantOp::create(b, loc, dv,
                                       DenseElementsAttr::get(dv, x));
    };
    Value kept = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, rel, splat(1)), splat(4));
    Value shift = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, splat(4), kept), splat(8));
    Value mask = arith::ShRUIOp::create(b, loc, splat(-1), shift);
    Value words = vector::BitCastOp::create(b, loc, dv, v);
    words = arith::AndIOp::create(b, loc, words, mask);
    return vector::BitCastOp::create(b, loc, chunk, words);
  }
};

struct LoadPattern : public TilePattern<LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getBlockBase())
      return op.emitOpError("'block_base' is still present: run "
                            "tile-preshuffle-kv before convert-tile-to-simt");
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
    AccessSite site =
        AccessSite::of(op, adaptor.getPtr(), stored, ks, *state.target);
    AccessPlan plan = site.plan(*l);
    auto vt = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value other = adaptor.getOther();
    unsigned elemBytes = site.elemBytes;
    // A mask `offsets < bound` becomes the range of a bounds-checked
    // buffer, where the target has one; the vector width then follows the
    // offsets alone.
    std::optional<BoundedBufferLoad> bounded;
    if (Value bound = contiguousBound(op);
        bound && state.target->supportsBoundedBufferLoads() &&
        isZeroOrAbsent(op.getOther())) {
      AccessPlan wide = site.plan(*l, /*masked=*/false);
      bounded = BoundedBufferLoad::tryLower(
          rewriter, loc, mem, rewriter.getRemappedValue(bound),
          ks.axis->get(bound).divisibility[0], wide, elemBytes);
      if (bounded)
        plan = wide;
    }
    // A mask that holds for a prefix of each access (`i < n` on contiguous
    // i) need not narrow the access: the full-width load runs where the
    // access's last element is kept, the per-element path only at the end.
    if (!bounded && adaptor.getMask()) {
      AccessPlan wide = site.plan(*l, /*masked=*/false);
      if (wide.width > plan.width &&
          isPrefixMask(op, *ks.axis, accessDim(*l), wide.width)) {
        auto vt =
            cast<VectorType>(getTypeConverter()->convertType(op.getType()));
        rewriter.replaceOp(op, prefixMaskedLoad(rewriter, loc, adaptor, *l,
                                                wide, stored, elem, vt));
        return success();
      }
    }
    int64_t w = plan.width;
    auto chunkType = VectorType::get({w}, elem);
    auto loadChunk = [&](OpBuilder &b, Value idx) -> Value {
      if (w == 1) {
        // Natural alignment, stated: without it LLVM's default data layout
        // gives an i64 4 bytes and splits the load in two.
        auto load = memref::LoadOp::create(b, loc, mem, ValueRange{idx});
        load.setAlignment(uint64_t(std::max(plan.alignBytes, elemBytes)));
        return fromStored(load);
      }
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
      Value chunk;
      if (bounded) {
        chunk = fromStored(
            bounded->load(rewriter, loc, off, VectorType::get({w}, stored)));
        for (int64_t j = 0; j < w; ++j)
          elems.push_back(vector::ExtractOp::create(rewriter, loc, chunk, j));
        continue;
      }
      Value idx = toIndex(rewriter, loc, off);
      if (adaptor.getMask()) {
        Value m = maskElement(rewriter, loc, adaptor.getMask(), s);
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

private:
  /// The tensor dimension along which a lane's consecutive slots lie.
  static unsigned accessDim(const DistributedLayout &l) {
    int f = l.getFastestDim();
    if (f < 0)
      return ~0u;
    unsigned td = f;
    for (unsigned s : l.getSliceDims())
      if (s < unsigned(f))
        --td;
    return td;
  }

  /// The load with `plan.width`-element accesses under a prefix mask
  /// (isPrefixMask): per access, one vector load where its last element is
  /// kept, else one predicated load per element.
  Value prefixMaskedLoad(ConversionPatternRewriter &rewriter, Location loc,
                         OpAdaptor adaptor, const DistributedLayout &l,
                         const AccessPlan &plan, Type stored, Type elem,
                         VectorType vt) const {
    int64_t w = plan.width;
    unsigned elemBytes = storedElemBytes(stored);
    Value mem = adaptor.getPtr(), mask = adaptor.getMask(),
          offsets = adaptor.getOffsets(), other = adaptor.getOther();
    auto chunkType = VectorType::get({w}, elem);
    auto fromStored = [&](OpBuilder &b, Value v) {
      return bitcastElements(b, loc, v, elem);
    };
    auto elemAt = [&](OpBuilder &b, int64_t slot) -> Value {
      Value m = maskElement(b, loc, mask, slot);
      Value idx =
          toIndex(b, loc, vector::ExtractOp::create(b, loc, offsets, slot));
      auto ifOp = scf::IfOp::create(
          b, loc, m,
          [&](OpBuilder &t, Location) {
            auto ld = memref::LoadOp::create(t, loc, mem, ValueRange{idx});
            ld.setAlignment(uint64_t(elemBytes));
            scf::YieldOp::create(t, loc, fromStored(t, ld));
          },
          [&](OpBuilder &e, Location) {
            Value v =
                other
                    ? vector::ExtractOp::create(e, loc, other, slot).getResult()
                    : arith::ConstantOp::create(e, loc, e.getZeroAttr(elem))
                          .getResult();
            scf::YieldOp::create(e, loc, v);
          });
      return ifOp.getResult(0);
    };
    SmallVector<Value> elems;
    elems.reserve(l.getNumElems());
    for (int64_t s = 0; s < l.getNumElems(); s += w) {
      Value last = maskElement(rewriter, loc, mask, s + w - 1);
      Value idx = toIndex(rewriter, loc,
                          vector::ExtractOp::create(rewriter, loc, offsets, s));
      auto ifOp = scf::IfOp::create(
          rewriter, loc, last,
          [&](OpBuilder &t, Location) {
            auto ld = vector::LoadOp::create(
                t, loc, VectorType::get({w}, stored), mem, ValueRange{idx});
            ld.setAlignment(plan.alignBytes);
            scf::YieldOp::create(t, loc, fromStored(t, ld));
          },
          [&](OpBuilder &e, Location) {
            SmallVector<Value> part;
            for (int64_t j = 0; j < w; ++j)
              part.push_back(elemAt(e, s + j));
            Value v = vector::FromElementsOp::create(e, loc, chunkType, part);
            scf::YieldOp::create(e, loc, v);
          });
      for (int64_t j = 0; j < w; ++j)
        elems.push_back(
            vector::ExtractOp::create(rewriter, loc, ifOp.getResult(0), j));
    }
    return vector::FromElementsOp::create(rewriter, loc, vt, elems);
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
    AccessSite site = AccessSite::of(op, adaptor.getPtr(), stored, state.of(op),
                                     *state.target);
    AccessPlan plan = site.plan(*l);
    int64_t w = plan.width;
    // In a loop the per-element masks compete with the loop's live state:
    // recompute each next to its store there (maskElement). Elsewhere the
    // mask stays one vector, computed where the kernel computes it.
    bool inLoop = op->getParentOfType<scf::ForOp>() ||
                  op->getParentOfType<scf::WhileOp>();
    // Replicated elements (layout larger than the tile) would be stored by
    // several lanes; they store the same value, which is harmless.
    for (int64_t s = 0; s < l->getNumElems(); s += w) {
      Value off =
          vector::ExtractOp::create(rewriter, loc, adaptor.getOffsets(), s);
      Value idx = toIndex(rewriter, loc, off);
      Value mask = !adaptor.getMask() ? Value()
                   : inLoop ? maskElement(rewriter, loc, adaptor.getMask(), s)
                            : vector::ExtractOp::create(rewriter, loc,
                                                        adaptor.getMask(), s)
                                  .getResult();
      guarded(mask, [&](OpBuilder &b) {
        if (w == 1) {
          Value v = vector::ExtractOp::create(b, loc, adaptor.getValue(), s);
          auto store = memref::StoreOp::create(b, loc, toStored(b, v), mem,
                                               ValueRange{idx});
          store.setAlignment(
              uint64_t(std::max(plan.alignBytes, site.elemBytes)));
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
    // A shared-memory tile: its LDS words (ds_* / atom.shared atomics),
    // between barriers as for tile.local_store.
    Value mem = adaptor.getPtr();
    auto tile = dyn_cast<MemDescType>(op.getPtr().getType());
    if (tile) {
      mem =
          state.ldsView(rewriter, op, mem, ldsType(elem), tile.getTileElems());
      gpu::BarrierOp::create(rewriter, loc);
    }
    auto one = [&](OpBuilder &b, Value off, Value v, Value mask) -> Value {
      Value idx = toIndex(b, loc, off);
      auto doIt = [&](OpBuilder &bb) -> Value {
        return memref::AtomicRMWOp::create(bb, loc, *kind, v, mem,
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
      Value old = one(rewriter, adaptor.getOffsets(), adaptor.getValue(),
                      adaptor.getMask());
      if (tile)
        gpu::BarrierOp::create(rewriter, loc);
      rewriter.replaceOp(op, old);
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
    if (tile)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), olds);
    return success();
  }
};

/// tile.atomic_cas per element: a generic atomic RMW whose body keeps the
/// old value unless it equals `cmp` (a compare-and-swap loop on AMD and
/// NVIDIA); the op returns the old value.
struct AtomicCASPattern : public TilePattern<AtomicCASOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto one = [&](OpBuilder &b, Value off, Value cmp, Value v) -> Value {
      auto rmw = memref::GenericAtomicRMWOp::create(
          b, loc, adaptor.getPtr(), ValueRange{toIndex(b, loc, off)});
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(rmw.getBody());
      Value old = rmw.getCurrentValue();
      Value same = isa<FloatType>(old.getType())
                       ? arith::CmpFOp::create(
                             b, loc, arith::CmpFPredicate::OEQ, old, cmp)
                             .getResult()
                       : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               old, cmp)
                             .getResult();
      memref::AtomicYieldOp::create(
          b, loc, arith::SelectOp::create(b, loc, same, v, old));
      return rmw.getResult();
    };
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, one(rewriter, adaptor.getOffsets(),
                                 adaptor.getCmp(), adaptor.getValue()));
      return success();
    }
    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    SmallVector<Value> olds;
    for (int64_t s = 0; s < l->getNumElems(); ++s) {
      auto at = [&](Value v) -> Value {
        return vector::ExtractOp::create(rewriter, loc, v, s);
      };
      olds.push_back(one(rewriter, at(adaptor.getOffsets()),
                         at(adaptor.getCmp()), at(adaptor.getValue())));
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
  case tile::CombineKind::umax:
    return tessel::CombineKind::UMax;
  case tile::CombineKind::umin:
    return tessel::CombineKind::UMin;
  }
  llvm_unreachable("unknown combine kind");
}

/// A reduction across lanes and waves whose partial results meet in shared
/// memory (TargetInfo::laneReduceScratchBytes): shuffles combine the lowest
/// `shuffleBits` lane bits along the axis, every lane writes its remaining
/// partial results to LDS laid out as [partials][outputs], groups of
/// adjacent lanes sum each output's partials into [outputs] after them, and
/// every lane reads its outputs back.
struct SharedReducePlan {
  unsigned shuffleBits = 0;
  int64_t partials = 0, numOut = 0;
  int64_t elems() const { return (partials + 1) * numOut; }
};

/// The plan with the fewest shuffles whose partials fit the target's
/// budget; none where the target prefers shuffles, the waves do not split
/// the axis (no LDS exchange to replace) or the outputs are not a power of
/// two.
std::optional<SharedReducePlan> planSharedReduce(const DistributedLayout &l,
                                                 unsigned k, Type elem,
                                                 const TargetInfo &target) {
  unsigned budget = target.laneReduceScratchBytes();
  unsigned laneBits = l.distinctLaneBits(k), waveBits = l.distinctWaveBits(k);
  if (!budget || !waveBits || !target.crossesLanes(elem) ||
      !l.hasContiguousLaneBits(k) || !l.hasContiguousWaveBits(k))
    return std::nullopt;
  SharedReducePlan p;
  p.numOut = numLines(l, k);
  if (!llvm::isPowerOf2_64(p.numOut))
    return std::nullopt;
  for (unsigned s = 0; s <= laneBits; ++s) {
    p.shuffleBits = s;
    p.partials = int64_t(1) << (laneBits - s + waveBits);
    if (p.elems() * ldsElemBytes(elem) <= budget)
      return p;
  }
  return std::nullopt;
}

struct ReducePattern : public TilePattern<ReduceOp> {
  using TilePattern::TilePattern;

  /// [2^waveBits][lines] partial results when waves split the axis, or the
  /// shared-memory plan's [partials + 1][lines].
  static FailureOr<LdsNeed> ldsNeed(ReduceOp op, const TargetInfo &target) {
    std::string err;
    auto l = DistributedLayout::get(op.getSrc().getType(), &err);
    if (failed(l))
      return op.emitError("cannot distribute ")
             << op.getSrc().getType() << ": " << err;
    unsigned k = layoutDim(*l, op.getAxis());
    unsigned wb = l->distinctWaveBits(k);
    Type elem = op.getSrc().getType().getElementType();
    LdsNeed n;
    if (auto plan = planSharedReduce(*l, k, elem, target))
      n.bytes = plan->elems() * ldsElemBytes(elem);
    else if (wb)
      n.bytes = (int64_t(1) << wb) * numLines(*l, k) * ldsElemBytes(elem);
    return n;
  }

  /// Steps 2 and 3 of a planned reduction (see SharedReducePlan): replaces
  /// each of `acc` (the lane's partial result for output slot `outSlots[i]`)
  /// by the output's total.
  LogicalResult reduceInShared(ConversionPatternRewriter &rewriter, ReduceOp op,
                               const DistributedLayout &src, unsigned k,
                               const SharedReducePlan &plan,
                               ArrayRef<int64_t> outSlots,
                               SmallVector<Value> &acc) const {
    Location loc = op.getLoc();
    Type elem = op.getSrc().getType().getElementType();
    tessel::CombineKind kind = toCombine(op.getKind());
    KernelState &ks = state.of(op);
    const TargetInfo &target = *state.target;
    unsigned laneBits = src.distinctLaneBits(k);
    unsigned waveBits = src.distinctWaveBits(k);
    unsigned restBits = laneBits - plan.shuffleBits;
    if (plan.shuffleBits)
      for (Value &a : acc)
        a = target.emitLaneGroupReduce(rewriter, loc, a, kind,
                                       src.laneBitBase(k), plan.shuffleBits);
    auto view = state.lds(rewriter, op, elem, plan.elems());
    if (failed(view))
      return failure();
    Value lds = *view;
    auto ldsAt = [&](Value i32Index) {
      return toIndex(rewriter, loc, i32Index);
    };
    auto add = [&](Value x, Value y) {
      return arith::AddIOp::create(rewriter, loc, x, y).getResult();
    };
    auto mul = [&](Value x, int64_t c) {
      return arith::MulIOp::create(rewriter, loc, x, i32Const(rewriter, loc, c))
          .getResult();
    };
    // Phase A: partial (wave bits, remaining lane bits) of each output.
    Value waveK =
        emitLaneBitField(rewriter, loc, ks.wave, src.waveBitBase(k), waveBits);
    Value part = mul(waveK, int64_t(1) << restBits);
    if (restBits)
      part = add(part, emitLaneBitField(rewriter, loc, ks.lane,
                                        src.laneBitBase(k) + plan.shuffleBits,
                                        restBits));
    Value partBase = mul(part, plan.numOut);
    SmallVector<Value> base = laneBase(rewriter, loc, src, ks.lane, ks.wave);
    SmallVector<Value> lins;
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [s, a] : llvm::zip(outSlots, acc)) {
      lins.push_back(lineIndex(rewriter, loc, src, base, s, k));
      memref::StoreOp::create(rewriter, loc, a, lds,
                              ValueRange{ldsAt(add(partBase, lins.back()))});
    }
    gpu::BarrierOp::create(rewriter, loc);
    // Phase B: `group` adjacent lanes per output, each summing `per`
    // partials, then a shuffle within the group; outputs past the last
    // (threads left over) repeat earlier ones and store the same totals.
    int64_t waveSize = target.waveSize();
    int64_t threads = waveSize * ks.numWaves;
    int64_t group =
        std::min<int64_t>({plan.partials, waveSize,
                           int64_t(llvm::bit_floor(uint64_t(
                               std::max<int64_t>(1, threads / plan.numOut))))});
    int64_t per = plan.partials / group;
    int64_t outsPerPass = threads / group;
    Value tid = add(mul(ks.wave, waveSize), ks.lane);
    Value h = arith::AndIOp::create(rewriter, loc, ks.lane,
                                    i32Const(rewriter, loc, group - 1));
    Value slotOut = arith::DivUIOp::create(rewriter, loc, tid,
                                           i32Const(rewriter, loc, group));
    Value firstPart = mul(h, per);
    Value finalBase = i32Const(rewriter, loc, plan.partials * plan.numOut);
    for (int64_t pass = 0; pass * outsPerPass < plan.numOut; ++pass) {
      Value o = arith::AndIOp::create(
          rewriter, loc,
          add(slotOut, i32Const(rewriter, loc, pass * outsPerPass)),
          i32Const(rewriter, loc, plan.numOut - 1));
      Value total;
      for (int64_t j = 0; j < per; ++j) {
        Value p = add(firstPart, i32Const(rewriter, loc, j));
        Value v = memref::LoadOp::create(
            rewriter, loc, lds, ValueRange{ldsAt(add(mul(p, plan.numOut), o))});
        total = total ? emitCombine(rewriter, loc, kind, total, v) : v;
      }
      if (group > 1)
        total = target.emitLaneGroupReduce(rewriter, loc, total, kind, 0,
                                           llvm::Log2_64(group));
      memref::StoreOp::create(rewriter, loc, total, lds,
                              ValueRange{ldsAt(add(finalBase, o))});
    }
    gpu::BarrierOp::create(rewriter, loc);
    // Phase C: every lane reads its outputs.
    for (auto [a, lin] : llvm::zip(acc, lins))
      a = memref::LoadOp::create(rewriter, loc, lds,
                                 ValueRange{ldsAt(add(finalBase, lin))});
    gpu::BarrierOp::create(rewriter, loc);
    return success();
  }
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
    if (!src->hasContiguousLaneBits(k) || !src->hasContiguousWaveBits(k))
      return op.emitError("reduction along a dimension whose lanes or waves "
                          "are not one contiguous bit field of the lane or "
                          "wave id is not supported");
    if ((laneBits || waveBits) && failed(checkCrossesLanes(op, elem)))
      return failure();
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
    // 2 and 3 through shared memory, where the target prefers it.
    if (auto plan = planSharedReduce(*src, k, elem, *state.target)) {
      if (failed(reduceInShared(rewriter, op, *src, k, *plan, outSlots, acc)))
        return failure();
      laneBits = waveBits = 0;
    }
    // 2. Across the lanes that hold distinct coordinates along k.
    if (laneBits)
      for (Value &a : acc)
        a = state.target->emitLaneGroupReduce(rewriter, loc, a, kind,
                                              src->laneBitBase(k), laneBits);
    // 3. Across waves, through LDS laid out as [2^waveBits][numel of result].
    if (waveBits) {
      auto view = state.lds(rewriter, op, elem,
                            (int64_t(1) << waveBits) * numLines(*src, k));
      if (failed(view))
        return failure();
      Value lds = *view;
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

/// The waves' totals of one scan line, read from `lds` where wave w's total
/// is at w * stride + offset, combined: {over the waves before this one
/// (after it when `rev`; `identity` when there are none), over all waves}.
/// Lane j of every group of 2^waveBits lanes loads wave j's total (wave
/// 2^waveBits - 1 - j's when `rev`), one lane-group scan combines them and
/// two shuffles read this wave's share and the total. A serial sum would
/// select on one "wave w comes first" mask per wave: LLVM hoists those
/// loop-invariant masks into SGPR pairs, which spill in kernels that run
/// several scans. Every lane must read the same line's totals (`offset`
/// alike in all lanes). Returns nulls when the waves outnumber the lanes.
static std::pair<Value, Value>
combineWaveTotals(OpBuilder &b, Location loc, const TargetInfo &target,
                  tessel::CombineKind kind, Value identity, Value lds,
                  Value lane, Value waveK, unsigned waveBits, int64_t stride,
                  Value offset, bool rev) {
  const int64_t n = int64_t(1) << waveBits;
  if (n > int64_t(target.waveSize()))
    return {};
  Value last = i32Const(b, loc, n - 1);
  Value j = arith::AndIOp::create(b, loc, lane, last);
  if (rev)
    j = arith::SubIOp::create(b, loc, last, j);
  Value at = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, j, i32Const(b, loc, stride)),
      offset);
  Value t = memref::LoadOp::create(
      b, loc, lds,
      ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), at)});
  Value incl = target.emitLaneGroupInclusiveScan(b, loc, t, kind, 0, waveBits);
  Value all = target.emitLaneShuffle(b, loc, incl, last);
  // The waves that come first: waveK of them, or 2^waveBits - 1 - waveK.
  Value count = rev ? Value(arith::SubIOp::create(b, loc, last, waveK)) : waveK;
  Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                     i32Const(b, loc, 0));
  Value src = arith::SelectOp::create(
      b, loc, none, i32Const(b, loc, 0),
      arith::SubIOp::create(b, loc, count, i32Const(b, loc, 1)));
  Value before = arith::SelectOp::create(
      b, loc, none, identity, target.emitLaneShuffle(b, loc, incl, src));
  return {before, all};
}

/// Register-resident scan (DESIGN.md 3.3): a sequential scan of each lane's
/// run of elements, a scan of the runs' totals across the lanes along the
/// axis (DPP / shuffles through TargetInfo), one LDS exchange of the waves'
/// totals, and a fix-up in registers. Elements along the axis are ordered
/// register repeat, then wave, then lane, then position in the lane's run.
struct ScanPattern : public TilePattern<ScanOp> {
  using TilePattern::TilePattern;

  /// [waves along the axis][lines][register repeats along the axis] of
  /// wave totals.
  static int64_t ldsElems(const DistributedLayout &l, unsigned k) {
    unsigned wb = l.distinctWaveBits(k);
    // Non-blocked scans are refused when they are lowered.
    if (!wb || !l.getBlocked())
      return 0;
    int64_t inLane = std::min<int64_t>(l.getBlocked().getSizePerThread()[k],
                                       l.getShape()[k]);
    return (int64_t(1) << wb) * numLines(l, k) * (l.getElemsAlong(k) / inLane);
  }

  static FailureOr<LdsNeed> ldsNeed(ScanOp op, const TargetInfo &) {
    std::string err;
    auto l = DistributedLayout::get(op.getSrc().getType(), &err);
    if (failed(l))
      return op.emitError("cannot distribute ")
             << op.getSrc().getType() << ": " << err;
    LdsNeed n;
    n.bytes = ldsElems(*l, layoutDim(*l, op.getAxis())) *
              ldsElemBytes(op.getSrc().getType().getElementType());
    return n;
  }
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto l = layoutOf(op, op.getType());
    if (failed(l))
      return failure();
    // The order of a line's elements below (repeat, wave, lane, run) is the
    // blocked layout's.
    if (!l->getBlocked())
      return op.emitError("scans need a blocked layout (or a slice of one); "
                          "convert the tile first");
    unsigned k = layoutDim(*l, op.getAxis());
    Type elem = op.getType().getElementType();
    tessel::CombineKind kind = toCombine(op.getKind());
    unsigned laneBits = l->distinctLaneBits(k);
    unsigned waveBits = l->distinctWaveBits(k);
    const TargetInfo &target = *state.target;
    if ((laneBits || waveBits) && failed(checkCrossesLanes(op, elem)))
      return failure();
    KernelState &ks = state.of(op);
    Value in = adaptor.getSrc();
    Value identity = emitIdentity(rewriter, loc, elem, kind);
    int64_t inLane = std::min<int64_t>(l->getBlocked().getSizePerThread()[k],
                                       l->getShape()[k]);
    int64_t reps = l->getElemsAlong(k) / inLane;
    // A reverse scan is the forward one in mirrored order: every level of
    // the axis (repeat, wave, lane, run) is walked from its far end.
    bool rev = op.getReverse();
    auto along = [&](int64_t r, int64_t w) {
      return rev ? (reps - 1 - r) * inLane + (inLane - 1 - w) : r * inLane + w;
    };
    // Lane-group helpers, shared by every line. `mirror` is the lane whose
    // position in the group is the far end's counterpart of this lane's.
    Value laneField, prevLane, lastLane, mirror, firstField;
    if (laneBits) {
      unsigned fb = l->laneBitBase(k);
      int64_t mask = (int64_t(1) << laneBits) - 1;
      laneField = emitLaneBitField(rewriter, loc, ks.lane, fb, laneBits);
      Value from = ks.lane;
      if (rev) {
        mirror = arith::XOrIOp::create(rewriter, loc, ks.lane,
                                       i32Const(rewriter, loc, mask << fb));
        from = mirror;
      }
      prevLane = arith::SubIOp::create(rewriter, loc, from,
                                       i32Const(rewriter, loc, 1 << fb));
      lastLane = arith::OrIOp::create(rewriter, loc, ks.lane,
                                      i32Const(rewriter, loc, mask << fb));
      firstField = i32Const(rewriter, loc, rev ? mask : 0);
    }
    Value waveK;
    SmallVector<Value> base;
    Value lds;
    if (waveBits) {
      waveK =
          emitLaneBitField(rewriter, loc, ks.wave, l->waveBitBase(k), waveBits);
      base = laneBase(rewriter, loc, *l, ks.lane, ks.wave);
      auto view = state.lds(rewriter, op, elem, ldsElems(*l, k));
      if (failed(view))
        return failure();
      lds = *view;
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
          idx[k] = along(r, w);
          Value x =
              vector::ExtractOp::create(rewriter, loc, in, l->slotOf(idx));
          acc = acc ? emitCombine(rewriter, loc, kind, acc, x) : x;
          run.push_back(acc);
        }
        line.local.push_back(run);
        Value total = run.back();
        if (laneBits) {
          if (rev)
            total = target.emitLaneShuffle(rewriter, loc, total, mirror);
          Value incl = target.emitLaneGroupInclusiveScan(
              rewriter, loc, total, kind, l->laneBitBase(k), laneBits);
          Value prev = target.emitLaneShuffle(rewriter, loc, incl, prevLane);
          Value first = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, laneField, firstField);
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
        Value offset = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, line.lineIdx,
                                  i32Const(rewriter, loc, reps)),
            i32Const(rewriter, loc, r));
        // The lanes of one lane group must read one line's totals.
        auto [before, all] =
            lines == 1
                ? combineWaveTotals(rewriter, loc, target, kind, identity, lds,
                                    ks.lane, waveK, waveBits, reps, offset, rev)
                : std::pair<Value, Value>();
        if (before) {
          line.carry.push_back(emitCombine(rewriter, loc, kind, c, before));
          c = emitCombine(rewriter, loc, kind, c, all);
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
          Value before = arith::CmpIOp::create(
              rewriter, loc,
              rev ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult,
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
          idx[k] = along(r, w);
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

/// tile.prefix_count without a scan: per register of a lane's run, a
/// ballot of the wave; a lane's position is the ballots' bits below it
/// (TargetInfo's count, v_mbcnt on AMD), the true elements before it in its
/// run, and the carry of the earlier register repeats and waves, whose
/// totals go through LDS once. Elements along the axis are ordered register
/// repeat, then wave, then lane, then position in the lane's run.
struct PrefixCountPattern : public TilePattern<PrefixCountOp> {
  using TilePattern::TilePattern;

  /// Register repeats along the axis, or 0 without a blocked layout.
  static int64_t repeats(const DistributedLayout &l, unsigned k) {
    if (!l.getBlocked())
      return 0;
    return l.getElemsAlong(k) / runLength(l, k);
  }
  static int64_t runLength(const DistributedLayout &l, unsigned k) {
    return std::min<int64_t>(l.getBlocked().getSizePerThread()[k],
                             l.getShape()[k]);
  }

  static FailureOr<LdsNeed> ldsNeed(PrefixCountOp op, const TargetInfo &) {
    std::string err;
    auto l = DistributedLayout::get(op.getMask().getType(), &err);
    if (failed(l))
      return op.emitError("cannot distribute ")
             << op.getMask().getType() << ": " << err;
    unsigned k = layoutDim(*l, 0);
    LdsNeed n;
    if (unsigned wb = l->distinctWaveBits(k))
      n.bytes = (int64_t(1) << wb) * repeats(*l, k) * 4;
    return n;
  }

  LogicalResult
  matchAndRewrite(PrefixCountOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType maskType = op.getMask().getType();
    auto l = layoutOf(op, maskType);
    if (failed(l))
      return failure();
    const TargetInfo &target = *state.target;
    unsigned k = layoutDim(*l, 0);
    // The ballot's bit order is the lane order: every lane of the wave must
    // hold its own elements, lane bits from bit 0 up.
    if (!l->getBlocked() || l->laneBitBase(k) != 0 ||
        l->distinctLaneBits(k) != llvm::Log2_32(target.waveSize()) ||
        numLines(*l, k) != 1)
      return op.emitError("tile.prefix_count needs a blocked layout in which "
                          "each of the ")
             << target.waveSize()
             << " lanes of a wave holds its own elements; got " << maskType;
    KernelState &ks = state.of(op);
    Type i32 = rewriter.getI32Type();
    auto add = [&](Value x, Value y) -> Value {
      return arith::AddIOp::create(rewriter, loc, x, y);
    };
    int64_t run = runLength(*l, k), reps = repeats(*l, k);
    SmallVector<int64_t> idx = l->slotIndices(0);
    auto slot = [&](int64_t r, int64_t w) {
      idx[k] = r * run + w;
      return l->slotOf(idx);
    };

    // In the wave: [rep] lanes-below counts and wave totals, [rep][pos]
    // true elements before the position in the lane's run.
    Value zero = i32Const(rewriter, loc, 0);
    SmallVector<Value> below(reps, zero), waveTotal(reps, zero);
    SmallVector<SmallVector<Value>> inRun(reps);
    for (int64_t r = 0; r < reps; ++r) {
      Value before = zero;
      for (int64_t w = 0; w < run; ++w) {
        Value bit = vector::ExtractOp::create(rewriter, loc, adaptor.getMask(),
                                              slot(r, w));
        Value ballot = target.emitWaveBallot(rewriter, loc, bit);
        below[r] =
            target.emitCountBelow(rewriter, loc, ballot, ks.lane, below[r]);
        waveTotal[r] = add(waveTotal[r],
                           arith::TruncIOp::create(
                               rewriter, loc, i32,
                               math::CtPopOp::create(rewriter, loc, ballot)));
        inRun[r].push_back(before);
        before = add(before, arith::ExtUIOp::create(rewriter, loc, i32, bit));
      }
    }

    // Carry into each repeat: the totals of the earlier repeats (all waves)
    // and of this repeat's earlier waves.
    SmallVector<Value> carry;
    Value total = zero;
    unsigned waveBits = l->distinctWaveBits(k);
    if (!waveBits) {
      for (int64_t r = 0; r < reps; ++r) {
        carry.push_back(total);
        total = add(total, waveTotal[r]);
      }
    } else {
      auto view = state.lds(rewriter, op, i32, (int64_t(1) << waveBits) * reps);
      if (failed(view))
        return failure();
      Value lds = *view;
      Value waveK =
          emitLaneBitField(rewriter, loc, ks.wave, l->waveBitBase(k), waveBits);
      Value mineAt = arith::MulIOp::create(rewriter, loc, waveK,
                                           i32Const(rewriter, loc, reps));
      // Earlier readers of the buffer (in a loop) must be done.
      gpu::BarrierOp::create(rewriter, loc);
      for (int64_t r = 0; r < reps; ++r) {
        Value at = add(mineAt, i32Const(rewriter, loc, r));
        memref::StoreOp::create(rewriter, loc, waveTotal[r], lds,
                                ValueRange{toIndex(rewriter, loc, at)});
      }
      gpu::BarrierOp::create(rewriter, loc);
      for (int64_t r = 0; r < reps; ++r) {
        auto [before, all] = combineWaveTotals(
            rewriter, loc, target, tessel::CombineKind::Add, zero, lds, ks.lane,
            waveK, waveBits, reps, i32Const(rewriter, loc, r),
            /*rev=*/false);
        if (before) {
          carry.push_back(add(total, before));
          total = add(total, all);
          continue;
        }
        Value mine = total;
        for (int64_t w = 0; w < (int64_t(1) << waveBits); ++w) {
          Value t = memref::LoadOp::create(
              rewriter, loc, lds,
              ValueRange{toIndex(rewriter, loc,
                                 i32Const(rewriter, loc, w * reps + r))});
          Value earlier =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                    i32Const(rewriter, loc, w), waveK);
          mine = arith::SelectOp::create(rewriter, loc, earlier, add(mine, t),
                                         mine);
          total = add(total, t);
        }
        carry.push_back(mine);
      }
      gpu::BarrierOp::create(rewriter, loc);
    }

    SmallVector<Value> out(l->getNumElems());
    for (int64_t r = 0; r < reps; ++r) {
      Value base = add(carry[r], below[r]);
      for (int64_t w = 0; w < run; ++w)
        out[slot(r, w)] = add(base, inRun[r][w]);
    }
    Value positions = vector::FromElementsOp::create(
        rewriter, loc,
        cast<VectorType>(
            getTypeConverter()->convertType(op.getPositions().getType())),
        out);
    rewriter.replaceOp(op, ValueRange{positions, total});
    return success();
  }
};

/// A scalar between its register type and its LDS type (ldsType): i1 and
/// i8 by extension and truncation, other types of one width by bitcast.
Value castLdsScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, v);
  if (to.isInteger(1))
    return arith::TruncIOp::create(b, loc, to, v);
  return arith::BitcastOp::create(b, loc, to, v);
}

/// tile.gather through LDS: every lane writes the source elements it holds
/// at their row-major index (copies write equal values), then reads, for
/// each result element, the source element its index names. An index out
/// of range reads 0 and touches no memory beyond the copy. A gather in a
/// loop whose source comes from outside it (a search over a fixed table)
/// writes the copy once, before the outermost such loop, which keeps the
/// copy for its whole run: each iteration then only reads, with no
/// barrier.
struct GatherPattern : public TilePattern<GatherOp> {
  using TilePattern::TilePattern;

  /// The outermost loop around `op` that does not define `src`, or null.
  static Operation *invariantLoop(Operation *op, Value src) {
    Operation *def = src.getParentBlock()->getParentOp();
    Operation *outer = nullptr;
    for (Operation *p = op->getParentOp(); p && !isa<KernelOp>(p);
         p = p->getParentOp()) {
      if (p == def || p->isProperAncestor(def))
        break;
      if (isa<scf::ForOp, scf::WhileOp>(p))
        outer = p;
    }
    return outer;
  }

  static FailureOr<LdsNeed> ldsNeed(GatherOp op, const TargetInfo &) {
    RankedTensorType src = op.getSrc().getType();
    LdsNeed n;
    n.bytes = src.getNumElements() * ldsElemBytes(src.getElementType());
    n.liveOver = invariantLoop(op, op.getSrc());
    return n;
  }

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    auto src = layoutOf(op, srcType);
    auto dst = layoutOf(op, op.getType());
    auto idx = layoutOf(op, op.getIndices().getType());
    if (failed(src) || failed(dst) || failed(idx))
      return failure();
    if (!(*dst == *idx))
      return op.emitError("gather result must have the layout of its "
                          "indices; tile-assign-layouts gives it that");
    Type elem = srcType.getElementType();
    Type memElem = ldsType(elem);
    // The copy goes before the loop the allocator kept it live over (see
    // ldsNeed), where the converted source is defined outside that loop.
    Operation *loop = invariantLoop(op, op.getSrc());
    Value srcVec = adaptor.getSrc();
    if (loop && loop->isAncestor(srcVec.getParentBlock()->getParentOp()))
      return op.emitError("internal: the gather's converted source is "
                          "defined inside the loop it is staged before");
    OpBuilder::InsertionGuard guard(rewriter);
    if (loop)
      rewriter.setInsertionPoint(loop);
    auto view = state.lds(rewriter, op, memElem, srcType.getNumElements());
    if (failed(view))
      return failure();
    Value lds = *view;
    KernelState &ks = state.of(op);
    // Earlier readers of this space must be done before it is overwritten.
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> srcBase =
        laneBase(rewriter, loc, *src, ks.lane, ks.wave);
    for (int64_t s = 0; s < src->getNumElems(); ++s) {
      Value at = linearIndex(rewriter, loc, *src, srcBase, s);
      Value v = vector::ExtractOp::create(rewriter, loc, srcVec, s);
      memref::StoreOp::create(rewriter, loc,
                              castLdsScalar(rewriter, loc, v, memElem), lds,
                              ValueRange{toIndex(rewriter, loc, at)});
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.setInsertionPoint(op);

    unsigned axis = op.getAxis();
    int64_t extent = srcType.getDimSize(axis);
    Value zero = arith::ConstantOp::create(rewriter, loc, memElem,
                                           rewriter.getZeroAttr(memElem));
    SmallVector<Value> dstBase =
        laneBase(rewriter, loc, *dst, ks.lane, ks.wave);
    SmallVector<Value> out;
    for (int64_t s = 0; s < dst->getNumElems(); ++s) {
      SmallVector<Value> coords =
          slotCoords(rewriter, loc, *dst, dstBase, s, /*dropSlices=*/true);
      Value i =
          vector::ExtractOp::create(rewriter, loc, adaptor.getIndices(), s);
      // Unsigned: a negative index is out of range too.
      Value inRange =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, i,
                                i32Const(rewriter, loc, extent));
      coords[axis] = arith::SelectOp::create(rewriter, loc, inRange, i,
                                             i32Const(rewriter, loc, 0));
      Value at = linearize(rewriter, loc, coords, srcType.getShape());
      Value v = memref::LoadOp::create(rewriter, loc, lds,
                                       ValueRange{toIndex(rewriter, loc, at)});
      v = arith::SelectOp::create(rewriter, loc, inRange, v, zero);
      out.push_back(castLdsScalar(rewriter, loc, v, elem));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), out);
    return success();
  }
};

/// Adds keys to LDS bins with atomics. Where the target can, the lanes of a
/// wave that hit one bin combine first, so that only the lowest of them adds
/// their count: one atomic per distinct bin of the wave instead of one per
/// lane.
class BinCounter {
public:
  BinCounter(const TargetInfo &target, KernelState &ks)
      : target(target), ks(ks) {}

  /// Adds one to `lds[key]` for every element of `keysVec` (laid out as
  /// `keys`, of element type `keyType`) in [0, bins) where `maskVec` (or
  /// null) holds; each element is counted by one copy only.
  void addKeys(OpBuilder &b, Location loc, const DistributedLayout &keys,
               Type keyType, Value keysVec, Value maskVec, int64_t bins,
               Value lds) const {
    Type i32 = b.getI32Type();
    Value limit = arith::ConstantIntOp::create(b, loc, keyType, bins);
    Value owner = copyOwner(b, loc, keys);
    for (int64_t s = 0; s < keys.getNumElems(); ++s) {
      Value key = vector::ExtractOp::create(b, loc, keysVec, s);
      // Unsigned: negative keys are out of range too.
      Value valid =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, limit);
      if (maskVec)
        valid = arith::AndIOp::create(
            b, loc, valid, vector::ExtractOp::create(b, loc, maskVec, s));
      if (owner)
        valid = arith::AndIOp::create(b, loc, valid, owner);
      // In range, so the bin fits i32; out-of-range keys are never used.
      Value bin = key;
      if (keyType.getIntOrFloatBitWidth() > 32)
        bin = arith::TruncIOp::create(b, loc, i32, key);
      else if (keyType.getIntOrFloatBitWidth() < 32)
        bin = arith::ExtUIOp::create(b, loc, i32, key);
      bin = arith::SelectOp::create(b, loc, valid, bin, i32Const(b, loc, 0));
      emitAdd(b, loc, lds, bin, valid);
    }
  }

private:
  const TargetInfo &target;
  KernelState &ks;

  /// Keys that lanes or waves hold as copies (a tensor smaller than the
  /// workgroup) are counted by one copy only: the lanes and waves whose
  /// copy bits are all zero. Null when every element has one holder.
  Value copyOwner(OpBuilder &b, Location loc,
                  const DistributedLayout &keys) const {
    Value owner;
    auto addOwner = [&](Value id, int64_t copyBits) {
      if (!copyBits)
        return;
      Value bits =
          arith::AndIOp::create(b, loc, id, i32Const(b, loc, copyBits));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          bits, i32Const(b, loc, 0));
      owner = owner ? arith::AndIOp::create(b, loc, owner, first) : first;
    };
    addOwner(ks.lane, keys.getLaneBroadcastMask());
    addOwner(ks.wave, keys.getWaveBroadcastMask());
    return owner;
  }

  /// Adds to `lds[bin]`, where `pred` holds, the number of lanes of the i64
  /// lane mask `peers` (one where `peers` is null).
  static void emitGuardedAdd(OpBuilder &b, Location loc, Value lds, Value bin,
                             Value pred, Value peers) {
    scf::IfOp::create(b, loc, pred, [&](OpBuilder &bb, Location) {
      Value count =
          peers ? arith::TruncIOp::create(bb, loc, bb.getI32Type(),
                                          math::CtPopOp::create(bb, loc, peers))
                : i32Const(bb, loc, 1);
      memref::AtomicRMWOp::create(bb, loc, arith::AtomicRMWKind::addi, count,
                                  lds, ValueRange{toIndex(bb, loc, bin)});
      scf::YieldOp::create(bb, loc);
    });
  }

  /// Adds one to `lds[bin]` for this lane when `valid` holds.
  void emitAdd(OpBuilder &b, Location loc, Value lds, Value bin,
               Value valid) const {
    if (target.hasMatchAny())
      return emitMatchAnyAdd(b, loc, lds, bin, valid);
    if (target.hasActiveBallot())
      return emitBallotLoopAdd(b, loc, lds, bin, valid);
    emitGuardedAdd(b, loc, lds, bin, valid, Value());
  }

  /// Match-any: every lane learns the lanes holding its bin in one vote,
  /// and the lowest valid one adds their count, with no loop. Invalid lanes
  /// vote with -1, which no bin is (the bins fit in LDS), so they match
  /// only each other and add nothing. Every lane of the wave votes: the
  /// histogram ops are reached by the whole workgroup (workgroup-uniform
  /// control flow), and nothing here branches before the vote.
  void emitMatchAnyAdd(OpBuilder &b, Location loc, Value lds, Value bin,
                       Value valid) const {
    unsigned lanes = target.waveSize();
    Value wave = arith::ConstantIntOp::create(
        b, loc, b.getI64Type(), lanes >= 64 ? ~0ull : (1ull << lanes) - 1);
    Value vote =
        arith::SelectOp::create(b, loc, valid, bin, i32Const(b, loc, -1));
    Value peers = target.emitMatchAny(b, loc, vote, wave);
    Value below = target.emitCountBelow(b, loc, peers, emitLaneId(b, loc),
                                        i32Const(b, loc, 0));
    Value lowest = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         below, i32Const(b, loc, 0));
    Value leader = arith::AndIOp::create(b, loc, valid, lowest);
    emitGuardedAdd(b, loc, lds, bin, leader, peers);
  }

  /// Active ballot: the lowest pending lane names its bin, its peers are
  /// counted from the ballot, the lowest peer adds the count, and the peers
  /// leave the loop (one trip per distinct bin of the wave).
  void emitBallotLoopAdd(OpBuilder &b, Location loc, Value lds, Value bin,
                         Value valid) const {
    Type i1 = b.getI1Type(), i64 = b.getI64Type();
    auto loop = scf::WhileOp::create(b, loc, TypeRange{i1}, ValueRange{valid});
    Block *before = b.createBlock(&loop.getBefore(), {}, {i1}, {loc});
    scf::ConditionOp::create(b, loc, before->getArgument(0),
                             ValueRange{before->getArgument(0)});
    b.createBlock(&loop.getAfter(), {}, {i1}, {loc});
    // Only pending lanes are active here.
    Value lead = target.emitReadFirstActiveLane(b, loc, bin);
    Value peer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bin, lead);
    Value peers = target.emitActiveBallot(b, loc, peer);
    Value lane = arith::ExtUIOp::create(b, loc, i64, emitLaneId(b, loc));
    Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
    Value below = arith::SubIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, one, lane), one);
    Value lowest =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::AndIOp::create(b, loc, peers, below),
                              arith::ConstantIntOp::create(b, loc, i64, 0));
    Value leader = arith::AndIOp::create(b, loc, peer, lowest);
    emitGuardedAdd(b, loc, lds, bin, leader, peers);
    Value pending = arith::XOrIOp::create(
        b, loc, peer, arith::ConstantIntOp::create(b, loc, i1, 1));
    scf::YieldOp::create(b, loc, ValueRange{pending});
    b.setInsertionPointAfter(loop);
  }
};

/// tile.histogram into LDS bins: the workgroup zeroes the bins, every lane
/// adds its keys with LDS atomics (BinCounter), and each lane reads back the
/// bins its result slots hold, with a barrier between each step.
struct HistogramPattern : public TilePattern<HistogramOp> {
  using TilePattern::TilePattern;

  static FailureOr<LdsNeed> ldsNeed(HistogramOp op, const TargetInfo &) {
    LdsNeed n;
    n.bytes = op.getType().getNumElements() * 4;
    return n;
  }

  LogicalResult
  matchAndRewrite(HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto keys = layoutOf(op, op.getKeys().getType());
    auto res = layoutOf(op, op.getType());
    if (failed(keys) || failed(res))
      return failure();
    int64_t bins = op.getType().getNumElements();
    Type i32 = rewriter.getI32Type();
    auto view = state.lds(rewriter, op, i32, bins);
    if (failed(view))
      return failure();
    Value lds = *view;
    KernelState &ks = state.of(op);
    int64_t lanes = int64_t(ks.numWaves) * state.target->waveSize();
    Value tid = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(
            rewriter, loc, ks.wave,
            i32Const(rewriter, loc, state.target->waveSize())),
        ks.lane);
    // Earlier readers of this space must be done before it is zeroed.
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t first = 0; first < bins; first += lanes) {
      Value at = arith::AddIOp::create(rewriter, loc, tid,
                                       i32Const(rewriter, loc, first));
      auto store = [&](OpBuilder &b) {
        memref::StoreOp::create(b, loc, i32Const(b, loc, 0), lds,
                                ValueRange{toIndex(b, loc, at)});
      };
      if (first + lanes <= bins) {
        store(rewriter);
        continue;
      }
      Value inside =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, at,
                                i32Const(rewriter, loc, bins));
      scf::IfOp::create(rewriter, loc, inside, [&](OpBuilder &b, Location) {
        store(b);
        scf::YieldOp::create(b, loc);
      });
    }
    gpu::BarrierOp::create(rewriter, loc);

    BinCounter(*state.target, ks)
        .addKeys(rewriter, loc, *keys, op.getKeys().getType().getElementType(),
                 adaptor.getKeys(), adaptor.getMask(), bins, lds);
    gpu::BarrierOp::create(rewriter, loc);

    SmallVector<Value> base = laneBase(rewriter, loc, *res, ks.lane, ks.wave);
    SmallVector<Value> out;
    for (int64_t s = 0; s < res->getNumElems(); ++s) {
      Value at = linearIndex(rewriter, loc, *res, base, s);
      out.push_back(memref::LoadOp::create(
          rewriter, loc, lds, ValueRange{toIndex(rewriter, loc, at)}));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(op.getType()), out);
    return success();
  }
};

/// tile.histogram_add: only the atomics into the bins' LDS words, with no
/// barrier (the adds commute; readers wait at a tile.barrier).
struct HistogramAddPattern : public TilePattern<HistogramAddOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(HistogramAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto keys = layoutOf(op, op.getKeys().getType());
    if (failed(keys))
      return failure();
    int64_t bins = op.getBins().getType().getTileElems();
    Value lds = state.ldsView(rewriter, op, adaptor.getBins(),
                              rewriter.getI32Type(), bins);
    BinCounter(*state.target, state.of(op))
        .addKeys(rewriter, op.getLoc(), *keys,
                 op.getKeys().getType().getElementType(), adaptor.getKeys(),
                 adaptor.getMask(), bins, lds);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.barrier: the workgroup barrier.
struct BarrierPattern : public TilePattern<BarrierOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

/// LDS each op needs, from the pattern that lowers it.
FailureOr<LdsNeed> ldsNeed(Operation *op, const TargetInfo &target) {
  return llvm::TypeSwitch<Operation *, FailureOr<LdsNeed>>(op)
      .Case([&](ConvertLayoutOp o) {
        return RelayoutPattern<ConvertLayoutOp>::ldsNeed(o, target);
      })
      .Case([&](ReshapeOp o) {
        return RelayoutPattern<ReshapeOp>::ldsNeed(o, target);
      })
      .Case([&](TransposeOp o) {
        return RelayoutPattern<TransposeOp>::ldsNeed(o, target);
      })
      .Case([&](ReduceOp o) { return ReducePattern::ldsNeed(o, target); })
      .Case([&](ScanOp o) { return ScanPattern::ldsNeed(o, target); })
      .Case([&](PrefixCountOp o) {
        return PrefixCountPattern::ldsNeed(o, target);
      })
      .Case([&](GatherOp o) { return GatherPattern::ldsNeed(o, target); })
      .Case([&](HistogramOp o) { return HistogramPattern::ldsNeed(o, target); })
      .Case([&](DotOp o) { return dotStagingNeed(o, target); })
      .Default([&](Operation *o) { return sharedMemoryLdsNeed(o, target); });
}

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
      if (failed(chooseSharedSwizzles(kernel, *info)) ||
          failed(outline(kernel, *info, state)))
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
    populateSharedMemoryTypeConversions(tc);
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
                       ROCDL::ROCDLDialect, NVVM::NVVMDialect,
                       LLVM::LLVMDialect, nvgpu::NVGPUDialect>();
    auto legalTypes = [&](Operation *op) { return tc.isLegal(op); };
    ct.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        legalTypes);

    RewritePatternSet patterns(ctx);
    patterns.add<ElementwisePattern>(tc, ctx);
    patterns.add<GridIndexPattern<ProgramIdOp, gpu::BlockIdOp>,
                 GridIndexPattern<NumProgramsOp, gpu::GridDimOp>, RangePattern,
                 SplatPattern, BroadcastPattern, ExpandDimsPattern,
                 RelayoutPattern<ConvertLayoutOp>, RelayoutPattern<ReshapeOp>,
                 RelayoutPattern<TransposeOp>, PtrCastPattern, LoadPattern,
                 StorePattern, AtomicRMWPattern, ReducePattern, ScanPattern,
                 PrefixCountPattern, GatherPattern, HistogramPattern,
                 HistogramAddPattern, BarrierPattern, AtomicCASPattern>(tc, ctx,
                                                                        state);
    populateDotToSimtPatterns(tc, patterns, *info);
    populateSharedMemoryToSimtPatterns(tc, patterns, state);
    populateGridBarrierToSimtPatterns(tc, patterns, state);
    DotStagingContext staging;
    staging.lds = [&state](OpBuilder &b, Operation *op, int64_t bytes) {
      return state.lds(b, op, b.getI8Type(), bytes);
    };
    staging.view = [&state](OpBuilder &b, Operation *op, Value at) {
      return state.ldsView(b, op, at, b.getI8Type(), 1);
    };
    staging.ids = [&state](Operation *op) {
      KernelState &ks = state.of(op);
      return std::make_pair(ks.lane, ks.wave);
    };
    populateDotToWgmmaPatterns(tc, patterns, *info, std::move(staging));
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

    // One LDS buffer for the kernel, laid out by liveness.
    auto layout = LdsAllocation::compute(
        func, info, [&](Operation *op) { return ldsNeed(op, info); },
        isSharedMemoryView);
    if (failed(layout))
      return failure();
    if (layout->totalBytes() > 0) {
      auto workgroup =
          gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
      ks.ldsBuffer = func.addWorkgroupAttribution(
          MemRefType::get({layout->totalBytes()}, b.getI8Type(), AffineMap(),
                          workgroup),
          loc);
      // 16-byte accesses need a 16-byte aligned base; swizzled matrix
      // operands an aligned swizzle pattern.
      unsigned align = 16;
      for (const LdsBuffer &buf : layout->buffers())
        align = std::max(align, buf.align);
      func.setWorkgroupAttributionAttr(0, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(align));
    }
    ks.ldsLayout = std::move(*layout);
    kernel.erase();
    state.kernels[func] = std::move(ks);
    return success();
  }
};

} // namespace
