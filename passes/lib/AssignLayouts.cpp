//===- AssignLayouts.cpp - Choose a distributed layout for every tensor ---===//

#include "tessel/Passes/Passes.h"

#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
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
  /// `defaultVecElems` bounds the contiguous elements per lane of values
  /// that no memory access asks a layout for.
  LayoutAssigner(MLIRContext *ctx, const TargetInfo &info, unsigned numWaves,
                 unsigned defaultVecElems)
      : ctx(ctx), info(info), waveSize(info.waveSize()), numWaves(numWaves),
        defaultVecElems(defaultVecElems) {}

  /// The layouts of a tile.dot: the target's accumulator encoding, and its
  /// operand encodings, which feed the instruction from registers.
  struct DotPlan {
    Attribute acc, a, b;
    /// The instruction reads A and B from shared memory: `a` and `b` are
    /// only preferences (K fastest, as the loads and the staging stores
    /// want them), any layout is staged.
    bool operandsAnyLayout = false;
  };

  /// Splits the kernel's waves over the dot's M and N instruction tiles,
  /// doubling along the dimension with more tiles per wave left; waves
  /// beyond the tiles hold copies.
  /// With `preferN`, N takes the waves while it has tiles left (a result
  /// reduced along M then needs no exchange between waves).
  static std::pair<unsigned, unsigned>
  splitWaves(unsigned waves, int64_t tilesM, int64_t tilesN, bool preferN) {
    unsigned wm = 1, wn = 1;
    while (wm * wn < waves) {
      bool mLeft = tilesM / wm > 1, nLeft = tilesN / wn > 1;
      if (preferN && nLeft)
        wn *= 2;
      else if (mLeft && (!nLeft || tilesM / wm >= tilesN / wn))
        wm *= 2;
      else if (nLeft)
        wn *= 2;
      else
        wm *= 2;
    }
    return {wm, wn};
  }

  /// A wave-group instruction (wgmma) covers the widest N that divides the
  /// dot's; when that leaves fewer tiles than groups of waves, a narrower N
  /// of the same kind gives every group its own tile.
  MatrixInstr narrowForGroups(const MatrixInstr &instr, int64_t m, int64_t n,
                              unsigned groups) {
    MatrixInstr best = instr;
    for (const MatrixInstr &i : info.matrixInstrs(ctx)) {
      if ((m / best.m) * (n / best.n) >= groups)
        break;
      if (i.operandType == instr.operandType && i.m == instr.m &&
          i.k == instr.k && i.wavesPerInstr == instr.wavesPerInstr &&
          i.operandSource == instr.operandSource && i.n < best.n &&
          n % i.n == 0)
        best = i;
    }
    return best;
  }

  FailureOr<DotPlan> planDot(DotOp dot) {
    ArrayRef<int64_t> a = DotOp::operandShape(dot.getA()),
                      b = DotOp::operandShape(dot.getB());
    Type ea = DotOp::operandElementType(dot.getA()),
         eb = DotOp::operandElementType(dot.getB());
    RankedTensorType c = dot.getType();
    std::string why;
    FailureOr<MatrixInstr> instr;
    Attribute acc = c.getEncoding();
    if (acc) { // the author chose the accumulator layout
      instr = info.matrixInstrOf(acc, ea, &why);
    } else {
      instr =
          info.selectMatrixInstr(ea, eb, c.getElementType(), c.getDimSize(0),
                                 c.getDimSize(1), a[1], &why, numWaves);
      if (succeeded(instr)) {
        unsigned groups = numWaves / instr->wavesPerInstr;
        if (instr->wavesPerInstr > 1)
          instr =
              narrowForGroups(*instr, c.getDimSize(0), c.getDimSize(1), groups);
        // A result that is summed (or maxed) along M wants its lanes to
        // hold consecutive M, so the reduction starts in registers, and its
        // waves along N; otherwise each lane holds consecutive N elements
        // (transposed), so a row-major C is stored 16 bytes at a time.
        bool alongM = reducedAlongM(dot.getResult());
        auto [wm, wn] = splitWaves(groups, c.getDimSize(0) / instr->m,
                                   c.getDimSize(1) / instr->n, alongM);
        acc = info.matrixAccEncoding(ctx, *instr, wm, wn,
                                     /*transposed=*/!alongM);
      }
    }
    if (failed(instr))
      return dot.emitError("no matrix instruction for this tile.dot: ") << why;
    // Operands staged into shared memory: each lane holds one widest access
    // of the operand's type (16 fp8 bytes), so that the global loads and
    // the shared stores of the staging are 16 bytes each.
    if (instr->operandSource == MatrixOperandSource::SharedMemory)
      return DotPlan{acc,
                     defaultFor(a, std::max(defaultVecElems, accessElems(ea)),
                                /*fastest=*/1),
                     defaultFor(b, std::max(defaultVecElems, accessElems(eb)),
                                /*fastest=*/0),
                     /*operandsAnyLayout=*/true};
    return DotPlan{acc, info.matrixOperandEncoding(acc, 0, *instr, a[1]),
                   info.matrixOperandEncoding(acc, 1, *instr, a[1])};
  }

  /// Whether a tile.reduce consumes `v` (an [M, N] dot result) along a
  /// dimension made of M only, through elementwise ops, scf.if results and
  /// reshapes.
  static bool reducedAlongM(Value v) {
    SmallVector<std::pair<Value, SmallVector<bool>>> work = {
        {v, SmallVector<bool>{true, false}}};
    DenseSet<Value> seen;
    while (!work.empty()) {
      auto [x, fromM] = work.pop_back_val();
      if (!seen.insert(x).second)
        continue;
      auto shape = cast<RankedTensorType>(x.getType()).getShape();
      for (OpOperand &use : x.getUses()) {
        Operation *user = use.getOwner();
        if (auto reduce = dyn_cast<ReduceOp>(user)) {
          if (fromM[reduce.getAxis()])
            return true;
        } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          if (auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp()))
            work.push_back({ifOp.getResult(use.getOperandNumber()), fromM});
        } else if (auto reshape = dyn_cast<ReshapeOp>(user)) {
          work.push_back(
              {reshape.getResult(),
               reshapedDims(shape, reshape.getType().getShape(), fromM)});
        } else if (isElementwise(user)) {
          for (Value r : user->getResults())
            if (auto t = dyn_cast<RankedTensorType>(r.getType());
                t && t.getShape() == shape)
              work.push_back({r, fromM});
        }
      }
    }
    return false;
  }

  /// For a row-major reshape from `from` to `to`: the result dims whose
  /// elements step only through source dims marked in `marked`.
  static SmallVector<bool> reshapedDims(ArrayRef<int64_t> from,
                                        ArrayRef<int64_t> to,
                                        ArrayRef<bool> marked) {
    // Dim d spans the row-major strides [stride_d, stride_d * size_d).
    auto spans = [](ArrayRef<int64_t> shape) {
      SmallVector<std::pair<int64_t, int64_t>> out(shape.size());
      int64_t stride = 1;
      for (unsigned d = shape.size(); d-- > 0;) {
        out[d] = {stride, stride * shape[d]};
        stride *= shape[d];
      }
      return out;
    };
    auto src = spans(from), dst = spans(to);
    SmallVector<bool> out(to.size(), false);
    for (unsigned i = 0; i < to.size(); ++i) {
      if (dst[i].first == dst[i].second)
        continue;
      bool only = true;
      for (unsigned d = 0; d < from.size(); ++d)
        if (src[d].first < dst[i].second && dst[i].first < src[d].second)
          only &= marked[d];
      out[i] = only;
    }
    return out;
  }

  /// Plans every dot and asks for its layouts on the values around it:
  /// backwards on the operands (so plain loads produce them), on the
  /// accumulator's initial value (through loop-carried values), and forwards
  /// on what consumes the result (elementwise ops, stores and their
  /// offsets), so that none of them needs a conversion.
  LogicalResult planDots(KernelOp kernel) {
    SmallVector<DotOp> dots;
    kernel.walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots) {
      FailureOr<DotPlan> plan = planDot(dot);
      if (failed(plan))
        return failure();
      dotPlans[dot] = *plan;
      hint(dot.getC(), plan->acc);
      hint(dot.getA(), plan->a);
      hint(dot.getB(), plan->b);
      hintUsers(dot.getResult(), plan->acc);
    }
    return success();
  }

  /// Forward half of the dot hints: users of `v` (which will carry `enc`)
  /// that would otherwise convert it.
  void hintUsers(Value v, Attribute enc) {
    auto type = cast<RankedTensorType>(v.getType());
    auto sameShape = [&](Value x) {
      auto t = dyn_cast<RankedTensorType>(x.getType());
      return t && t.getShape() == type.getShape();
    };
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto forward = [&](Value res, Attribute e) {
        if (e && !hints.count(res)) {
          hints[res] = e;
          hintUsers(res, e);
        }
      };
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        if (isa<scf::ForOp, scf::IfOp>(parent))
          forward(parent->getResult(use.getOperandNumber()), enc);
        // The loop-carried value, so that the yield needs no conversion,
        // and what consumes it in the next iteration (an async dot's result
        // is read there, after its dot_wait).
        if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
          Value carried = forOp.getRegionIterArgs()[use.getOperandNumber()];
          bool fresh = !hints.count(carried);
          hint(carried, enc);
          if (fresh && hints.lookup(carried) == enc)
            hintUsers(carried, enc);
        }
        continue;
      }
      if (auto wait = dyn_cast<DotWaitOp>(user)) {
        // A dot_wait passes its operands through.
        forward(wait.getResult(use.getOperandNumber()), enc);
        continue;
      }
      if (auto reshape = dyn_cast<ReshapeOp>(user)) {
        forward(reshape.getResult(), relabelledReshape(reshape, enc));
        continue;
      }
      if (auto reduce = dyn_cast<ReduceOp>(user)) {
        if (isa<RankedTensorType>(reduce.getType()))
          forward(reduce.getResult(),
                  SliceLayoutAttr::get(ctx, reduce.getAxis(), enc));
        continue;
      }
      if (isa<StoreOp>(user)) {
        for (Value operand : user->getOperands())
          if (operand != v && sameShape(operand))
            hint(operand, enc);
        continue;
      }
      if (!isElementwise(user))
        continue;
      for (Value operand : user->getOperands())
        if (operand != v && sameShape(operand))
          hint(operand, enc);
      for (Value res : user->getResults())
        if (sameShape(res) && !hints.count(res)) {
          hints[res] = enc;
          hintUsers(res, enc);
        }
    }
  }

  /// The layout a tensor of this shape gets when nothing else decides:
  /// row-major (or with dimension `fastest` fastest, then the others from
  /// the last), up to `vecElems` contiguous elements per lane (one vector
  /// access) along the fastest dimension, lanes filling the fastest
  /// dimensions and waves the slowest. Leftover lanes and waves replicate.
  BlockedLayoutAttr defaultFor(ArrayRef<int64_t> shape) {
    return defaultFor(shape, defaultVecElems);
  }
  BlockedLayoutAttr defaultFor(ArrayRef<int64_t> shape, unsigned vecElems,
                               int fastest = -1) {
    unsigned rank = shape.size();
    SmallVector<unsigned> size(rank, 1), threads(rank, 1), waves(rank, 1),
        order;
    if (fastest < 0)
      fastest = rank - 1;
    order.push_back(fastest);
    for (unsigned d = rank; d-- > 0;)
      if (int(d) != fastest)
        order.push_back(d);
    int64_t numel = 1;
    for (int64_t s : shape)
      numel *= s;
    int64_t perThread =
        std::max<int64_t>(1, numel / int64_t(waveSize * numWaves));
    size[fastest] =
        std::min<int64_t>({shape[fastest], perThread, int64_t(vecElems)});
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
    // A layout the author wrote is kept, and so is what it is computed from.
    if (!type || type.getEncoding() || hints.count(v))
      return;
    hints[v] = enc;
    // A loop-carried value takes its layout from the loop's initial value.
    // A loop-carried value takes its layout from the loop's initial value;
    // the value yielded for it (a prefetch for the next iteration) is asked
    // for the same, so the loop carries it without a conversion.
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())) {
        if (OpOperand *init = forOp.getTiedLoopInit(arg))
          hint(init->get(), enc);
        if (OpOperand *yielded = forOp.getTiedLoopYieldedValue(arg))
          hint(yielded->get(), enc);
      }
      return;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return;
    // A value an scf.if yields is asked for what is asked of the if's
    // result, so that neither branch converts it (and what the branches
    // compute it from, e.g. a load, is produced in that layout).
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      hint(ifOp.thenYield().getOperand(i), enc);
      if (ifOp.elseBlock())
        hint(ifOp.elseYield().getOperand(i), enc);
      return;
    }
    // Through the shape ops too, so that a dot operand's wish reaches the
    // index arithmetic its offsets are built from before any later wish.
    if (auto bcast = dyn_cast<BroadcastOp>(def))
      return hint(bcast.getSrc(), enc);
    if (auto expand = dyn_cast<ExpandDimsOp>(def))
      return hint(expand.getSrc(),
                  SliceLayoutAttr::get(ctx, expand.getAxis(), enc));
    if (isElementwise(def) || isa<LoadOp>(def))
      for (Value operand : def->getOperands())
        if (auto ot = dyn_cast<RankedTensorType>(operand.getType());
            ot && ot.getShape() == type.getShape())
          hint(operand, enc);
  }

  /// Elements of type `elem` in the target's widest per-lane vector access
  /// (16 bytes: 4 f32, 8 bf16, 16 i8 or fp8).
  unsigned accessElems(Type elem) const {
    unsigned bytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
    return std::max(1u, info.maxVectorBytes() / bytes);
  }

  /// Asks, for the offsets of every load and store and for the stored
  /// values, a layout whose lanes hold one widest vector access of the
  /// accessed element type, as far as the tile allows, where that is more
  /// than the default gives (types narrower than 2 bytes). Where accesses
  /// of different element types share a value, the narrowest type's (the
  /// most elements per lane) wins: wider types then make several
  /// full-width accesses, while the reverse would narrow the narrow type's
  /// accesses.
  void hintAccesses(KernelOp kernel) {
    struct Request {
      Value v;
      unsigned elems;
      int fastest = -1;
    };
    SmallVector<Request> requests;
    auto ask = [&](Value v, Type elem, int fastest = -1) {
      if (isa<RankedTensorType>(v.getType()) &&
          accessElems(elem) > defaultVecElems)
        requests.push_back({v, accessElems(elem), fastest});
    };
    kernel.walk([&](Operation *op) {
      if (auto load = dyn_cast<LoadOp>(op)) {
        // A preshuffled K tile is contiguous in memory along D (dim 0).
        // The mask goes with the offsets: asked first, it does not take the
        // default layout of the broadcast it is usually built by, which
        // would convert it (through shared memory when it depends on a
        // loaded value) to the access's layout.
        Type elem = getElementTypeOrSelf(load.getType());
        int fastest = isPreshuffled(load) ? 0 : -1;
        ask(load.getOffsets(), elem, fastest);
        if (load.getMask())
          ask(load.getMask(), elem, fastest);
      } else if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
        // Runs along the buffer's fastest dimension stay contiguous in
        // shared memory too.
        MemDescType dst = copy.getDst().getType();
        ask(copy.getOffsets(), dst.getElementType(),
            int(dst.getSharedLayout().getOrder()[0]));
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        Type elem = getElementTypeOrSelf(store.getValue().getType());
        ask(store.getOffsets(), elem);
        ask(store.getValue(), elem);
        if (store.getMask())
          ask(store.getMask(), elem);
      }
    });
    llvm::stable_sort(requests, [](const Request &a, const Request &b) {
      return a.elems > b.elems;
    });
    for (const Request &r : requests)
      hint(r.v, defaultFor(cast<RankedTensorType>(r.v.getType()).getShape(),
                           r.elems, r.fastest));
  }

  /// The layout in which `reshape` costs nothing when its source has
  /// `srcEnc`: the source's (register, lane, wave) map with its coordinate
  /// bits relabelled row-major onto the result's dimensions, as a
  /// `#tile.linear`. Given for matrix-instruction sources (mfma, nv_mma,
  /// dot_operand, and slices and linear layouts of them); blocked sources
  /// keep a blocked result, which every lowering (scans included) takes.
  /// Null where it does not apply.
  Attribute relabelledReshape(ReshapeOp reshape, Attribute srcEnc) {
    Attribute base = srcEnc;
    while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(base))
      base = slice.getParent();
    if (!base || isa<BlockedLayoutAttr>(base))
      return {};
    RankedTensorType src = reshape.getSrc().getType();
    FailureOr<DistributedLayout> l = DistributedLayout::get(
        RankedTensorType::get(src.getShape(), src.getElementType(), srcEnc));
    if (failed(l) || !l->getSliceDims().empty())
      return {};
    LinearLayout renamed = l->getLinearLayout();
    for (unsigned d = 0; d < src.getRank(); ++d)
      renamed =
          renamed.renameOutDim(tensorDimName(d), "src" + tensorDimName(d));
    SmallVector<LinearLayout::OutDim> outs;
    for (auto [d, size] : llvm::enumerate(reshape.getType().getShape()))
      outs.push_back({tensorDimName(d), int32_t(size)});
    FailureOr<LinearLayout> relabelled = renamed.reshapeOuts(outs);
    if (failed(relabelled))
      return {};
    return LinearEncodingAttr::get(ctx, *relabelled);
  }

  static bool isPreshuffled(LoadOp load) {
    return load.getDataLayout() == tile::DataLayout::preshuffled;
  }

  /// A preshuffled K tile's layout: `enc` (the matrix operand layout when
  /// the tile feeds a tile.dot) where each lane holds whole 16-byte D runs
  /// (one contiguous load, in operand order), else the default layout with
  /// D fastest; a user that wants another layout then converts.
  Attribute pinPreshuffled(LoadOp load, Attribute enc) {
    auto type = cast<RankedTensorType>(load.getType());
    unsigned run = accessElems(type.getElementType());
    FailureOr<DistributedLayout> l = DistributedLayout::get(
        RankedTensorType::get(type.getShape(), type.getElementType(), enc));
    if (succeeded(l) && l->getFastestDim() == 0 &&
        l->getContiguousElems() % run == 0)
      return enc;
    return defaultFor(type.getShape(), run, /*fastest=*/0);
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
  /// layout than to move there, and so do short chains of elementwise ops,
  /// expand_dims and broadcasts over them (the index arithmetic of offsets
  /// and masks). `depth` bounds the chain.
  static bool isRematerializable(Value v, unsigned depth = 6) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1)
      return false;
    if (isa<SplatOp, RangeOp>(def))
      return true;
    if (auto cst = dyn_cast<arith::ConstantOp>(def))
      return isa<SplatElementsAttr>(cst.getValue());
    if (depth == 0 ||
        !(isElementwise(def) || isa<ExpandDimsOp, BroadcastOp>(def)))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isa<RankedTensorType>(operand.getType()) ||
             isRematerializable(operand, depth - 1);
    });
  }

  /// Recomputes the rematerializable `v` with encoding `enc` at `b`'s
  /// insertion point, operands first.
  Value rematerialize(OpBuilder &b, Value v, Attribute enc) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getEncoding() == enc)
      return v;
    Operation *def = v.getDefiningOp();
    IRMapping map;
    for (Value operand : def->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      Attribute want = enc;
      if (auto e = dyn_cast<ExpandDimsOp>(def))
        want = SliceLayoutAttr::get(ctx, e.getAxis(), enc);
      map.map(operand, rematerialize(b, operand, want));
    }
    Operation *copy = b.clone(*def, map);
    auto newType = RankedTensorType::get(t.getShape(), t.getElementType(), enc);
    copy->getResult(0).setType(newType);
    if (auto cst = dyn_cast<arith::ConstantOp>(copy))
      cst.setValueAttr(
          cast<DenseElementsAttr>(cst.getValue()).reshape(newType));
    return copy->getResult(0);
  }

  /// Makes operand `operand` of `op` carry `enc`. Values that are cheaper
  /// to recompute than to move (see isRematerializable) are recomputed in
  /// that layout; others get a tile.convert_layout.
  /// Replaces the memdesc `operand` of `dot` by its tile loaded in `enc`.
  void loadSharedOperand(DotOp dot, OpOperand &operand, Attribute enc) {
    auto mem = dyn_cast<MemDescType>(operand.get().getType());
    if (!mem)
      return;
    OpBuilder b(dot);
    auto type =
        RankedTensorType::get(mem.getTileShape(), mem.getElementType(), enc);
    operand.set(LocalLoadOp::create(b, dot.getLoc(), type, operand.get()));
  }

  void requireEncoding(Operation *op, OpOperand &operand, Attribute enc) {
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!t || t.getEncoding() == enc)
      return;
    OpBuilder b(op);
    if (isRematerializable(operand.get())) {
      operand.set(rematerialize(b, operand.get(), enc));
      return;
    }
    auto newType = RankedTensorType::get(t.getShape(), t.getElementType(), enc);
    Value c = ConvertLayoutOp::create(b, op->getLoc(), newType, operand.get());
    operand.set(c);
  }

  /// Whether `enc` holds every element of a tensor of `shape`.
  static bool covers(Attribute enc, ArrayRef<int64_t> shape) {
    FailureOr<LinearLayout> l = toLinearLayout(shape, enc);
    return succeeded(l) && l->isSurjective();
  }

  /// Whether `v` has `enc` or is cheap to recompute in it.
  bool cheapIn(Value v, Attribute enc) {
    return encodingOf(v) == enc || isRematerializable(v);
  }

  /// The layout the (single) result of `op` asks for through a hint, when
  /// every tensor operand is cheap to have in it; else `fallback` (the
  /// layout its operands bring). Hints come from the users that would
  /// otherwise convert the result (a tile.dot's operand layouts).
  Attribute preferHint(Operation *op, Attribute fallback) {
    if (op->getNumResults() != 1)
      return fallback;
    Attribute hinted = hints.lookup(op->getResult(0));
    if (!hinted || hinted == fallback)
      return fallback;
    for (Value operand : op->getOperands())
      if (auto t = dyn_cast<RankedTensorType>(operand.getType());
          t &&
          t.getShape() ==
              cast<RankedTensorType>(op->getResult(0).getType()).getShape() &&
          !cheapIn(operand, hinted))
        return fallback;
    return hinted;
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

    if (auto dot = dyn_cast<DotOp>(op)) {
      const DotPlan &plan = dotPlans.find(op)->second;
      // An instruction that reads registers gets an operand in shared
      // memory loaded (tile.local_load) in the layout it reads; one that
      // reads shared memory takes the buffer as it is (the lowering checks
      // its layout).
      if (!plan.operandsAnyLayout) {
        loadSharedOperand(dot, dot.getAMutable(), plan.a);
        loadSharedOperand(dot, dot.getBMutable(), plan.b);
        requireEncoding(op, dot.getAMutable(), plan.a);
        requireEncoding(op, dot.getBMutable(), plan.b);
      }
      requireEncoding(op, dot.getCMutable(), plan.acc);
      setEncoding(dot.getResult(), plan.acc);
      return;
    }
    if (auto wait = dyn_cast<DotWaitOp>(op)) {
      // Each result is its operand, in the same registers.
      for (auto [v, r] : llvm::zip(wait.getValues(), wait.getResults()))
        setEncoding(r, encodingOf(v));
      return;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      if (!reshape.getType().getEncoding())
        if (Attribute enc =
                relabelledReshape(reshape, encodingOf(reshape.getSrc()))) {
          setEncoding(reshape.getResult(), enc);
          return;
        }
      assignResult(op);
      return;
    }
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      if (auto t = dyn_cast<RankedTensorType>(reduce.getType()))
        setEncoding(reduce.getResult(),
                    SliceLayoutAttr::get(ctx, reduce.getAxis(),
                                         encodingOf(reduce.getSrc())));
      return;
    }
    if (auto hist = dyn_cast<HistogramOp>(op)) {
      // The bins go through LDS, so the result takes its own layout; the
      // mask goes with the keys.
      if (hist.getMask() && isa<RankedTensorType>(hist.getMask().getType()))
        requireEncoding(op, hist.getMaskMutable()[0],
                        encodingOf(hist.getKeys()));
      assignResult(op);
      return;
    }
    if (auto count = dyn_cast<PrefixCountOp>(op)) {
      // Each lane counts its own elements: the positions live where the
      // mask does.
      if (Attribute enc = encodingOf(count.getMask())) {
        setEncoding(count.getPositions(), enc);
        return;
      }
      assignResult(op);
      return;
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      // Each lane reads the elements its indices name, so the result lives
      // where the indices do; the source reaches LDS from any layout.
      Attribute enc = encodingOf(gather.getResult());
      if (!enc)
        enc = encodingOf(gather.getIndices());
      requireEncoding(op, gather.getIndicesMutable(), enc);
      setEncoding(gather.getResult(), enc);
      return;
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto slice =
          dyn_cast_or_null<SliceLayoutAttr>(encodingOf(expand.getSrc()));
      Attribute parent;
      Attribute hinted = hints.lookup(expand.getResult());
      if (hinted &&
          cheapIn(expand.getSrc(),
                  SliceLayoutAttr::get(ctx, expand.getAxis(), hinted))) {
        parent = hinted;
        requireEncoding(op, expand.getSrcMutable(),
                        SliceLayoutAttr::get(ctx, expand.getAxis(), parent));
      } else if (slice && slice.getDim() == (unsigned)expand.getAxis()) {
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
      Attribute enc = encodingOf(bcast.getSrc());
      Attribute hinted = hints.lookup(bcast.getResult());
      if (hinted && cheapIn(bcast.getSrc(), hinted))
        enc = hinted;
      // A #tile.linear spans a fixed shape: it may not cover the larger
      // result (blocked and matrix-instruction layouts repeat in registers).
      if (!covers(enc, bcast.getType().getShape()))
        enc = hinted ? hinted : encodingFor(bcast.getResult());
      requireEncoding(op, bcast.getSrcMutable(), enc);
      setEncoding(bcast.getResult(), enc);
      return;
    }
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (!isa<RankedTensorType>(load.getOffsets().getType()))
        return;
      Attribute enc = preferHint(op, encodingOf(load.getOffsets()));
      if (isPreshuffled(load))
        enc = pinPreshuffled(load, enc);
      requireEncoding(op, load.getOffsetsMutable(), enc);
      setEncoding(load.getResult(), enc);
      if (load.getMask())
        requireEncoding(op, load.getMaskMutable()[0], enc);
      if (load.getOther())
        requireEncoding(op, load.getOtherMutable()[0], enc);
      return;
    }
    if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
      // Each lane copies the elements its offsets name; the mask follows.
      if (copy.getMask())
        requireEncoding(op, copy.getMaskMutable()[0],
                        encodingOf(copy.getOffsets()));
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
      if (enc)
        enc = preferHint(op, enc);
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
      Attribute want = cast<RankedTensorType>(result.getType()).getEncoding();
      if (!want)
        want = hints.lookup(result);
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
  const TargetInfo &info;
  unsigned waveSize, numWaves, defaultVecElems;
  DenseMap<Value, Attribute> hints;
  DenseMap<Operation *, DotPlan> dotPlans;
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
  if (BlockedLayoutAttr blocked = blockedOf(type.getEncoding())) {
    int64_t lanes = product(blocked.getThreadsPerWave());
    if (lanes != info.waveSize())
      return op->emitError()
             << "layout of " << type << " spreads over " << lanes
             << " lanes (threadsPerWave), but a wave of " << info.name()
             << " has " << info.waveSize();
    int64_t waves = product(blocked.getWavesPerCTA());
    if (waves != numWaves)
      return op->emitError() << "layout of " << type << " spreads over "
                             << waves << " waves (wavesPerCTA), but the kernel "
                             << "runs " << numWaves << " (num_waves)";
    return success();
  }
  // Matrix-instruction layouts: the instruction fixes the lanes.
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout))
    return success(); // reported by the distribution
  if (layout->getNumLanes() != info.waveSize())
    return op->emitError() << "layout of " << type << " spreads over "
                           << layout->getNumLanes() << " lanes, but a wave of "
                           << info.name() << " has " << info.waveSize();
  if (layout->getNumWaves() != numWaves)
    return op->emitError() << "layout of " << type << " spreads over "
                           << layout->getNumWaves()
                           << " waves, but the kernel runs " << numWaves
                           << " (num_waves)";
  return success();
}

/// Bytes per element of the widest element type that `v` (an integer tile)
/// addresses, when every use of it ends as the offsets or block base of a
/// global or shared access, through integer arithmetic, casts, broadcasts
/// and expand_dims; 0 when some use does anything else.
int64_t addressedElemBytes(Value v, DenseSet<Value> &seen) {
  if (!seen.insert(v).second)
    return 1;
  auto bytesOf = [](Type t) {
    return std::max<int64_t>(
        1, getElementTypeOrSelf(t).getIntOrFloatBitWidth() / 8);
  };
  int64_t widest = 1;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    int64_t b = 0;
    if (auto load = dyn_cast<LoadOp>(user)) {
      if (use.get() == load.getOffsets() || use.get() == load.getBlockBase())
        b = bytesOf(load.getType());
    } else if (auto store = dyn_cast<StoreOp>(user)) {
      if (use.get() == store.getOffsets())
        b = bytesOf(store.getValue().getType());
    } else if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(user)) {
      if (use.get() == copy.getOffsets())
        b = bytesOf(copy.getDst().getType().getElementType());
    } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp,
                   arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, BroadcastOp,
                   ExpandDimsOp>(user)) {
      b = addressedElemBytes(user->getResult(0), seen);
    }
    if (b == 0)
      return 0;
    widest = std::max(widest, b);
  }
  return widest;
}

/// Whether the integer tile `v` is computed from program ids, ranges,
/// constants and scalars alone (no tile of loaded or loop-carried data): only
/// then does the lowering address a contiguous run by its first element.
bool computedAddresses(Value v, DenseSet<Value> &seen) {
  if (!isa<RankedTensorType>(v.getType()) || !seen.insert(v).second)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def ||
      !isa<RangeOp, SplatOp, BroadcastOp, ExpandDimsOp, arith::ConstantOp,
           arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp,
           arith::ShRUIOp, arith::ShRSIOp, arith::AndIOp, arith::OrIOp,
           arith::DivUIOp, arith::RemUIOp, arith::MinSIOp, arith::MaxSIOp,
           arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return false;
  for (Value operand : def->getOperands())
    if (!computedAddresses(operand, seen))
      return false;
  return true;
}

/// Rejects a tile value that needs more 32-bit registers per lane than the
/// target has: elements per lane x bytes per element / 4, each value on its
/// own. A tile that only addresses memory and is computed (not loaded)
/// costs one offset per vector access (the lowering addresses a run by its
/// first element), not one per element. LLVM would otherwise spend minutes
/// spilling it, or run out of memory.
LogicalResult checkRegisterFootprint(Operation *op, RankedTensorType type,
                                     Value value, const TargetInfo &info) {
  FailureOr<DistributedLayout> layout = DistributedLayout::get(type);
  if (failed(layout))
    return success(); // reported by the distribution
  int64_t bytes =
      std::max<int64_t>(1, llvm::divideCeil(type.getElementTypeBitWidth(), 8));
  int64_t values = layout->getNumElems();
  const char *what = "elements";
  if (value && type.getElementType().isInteger() && value.getNumUses() > 0) {
    DenseSet<Value> seen, computed;
    int64_t elemBytes = addressedElemBytes(value, seen);
    if (elemBytes && computedAddresses(value, computed)) {
      int64_t run = std::min<int64_t>(
          layout->getContiguousElems(),
          std::max<int64_t>(1, info.maxVectorBytes() / elemBytes));
      values = llvm::divideCeil(values, std::max<int64_t>(run, 1));
      what = "vector accesses";
    }
  }
  int64_t registers = llvm::divideCeil(values * bytes, 4);
  if (registers <= info.registersPerLane())
    return success();
  return op->emitError() << "tile " << type << " needs " << registers
                         << " 32-bit registers per lane (" << values << " "
                         << what << " x " << bytes << " bytes), but "
                         << info.name() << " has " << info.registersPerLane()
                         << "; use a smaller tile or more waves (num_waves)";
}

/// The op a diagnostic about `op`'s values is reported at: `op` itself, or,
/// when folding erased its location (canonicalize uniques constants at an
/// unknown location), its first located user, else its kernel.
Operation *locatedOp(Operation *op) {
  if (!isa<UnknownLoc>(op->getLoc()))
    return op;
  for (Operation *user : op->getUsers())
    if (!isa<UnknownLoc>(user->getLoc()))
      return user;
  if (auto kernel = op->getParentOfType<KernelOp>())
    return kernel;
  return op;
}

/// Checks every tile value of `kernel` (results and block arguments) once
/// layouts are assigned.
LogicalResult checkTiles(
    KernelOp kernel,
    function_ref<LogicalResult(Operation *, RankedTensorType, Value)> check) {
  WalkResult result = kernel.walk([&](Operation *op) {
    auto visit = [&](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      return !type || succeeded(check(locatedOp(op), type, v));
    };
    for (Value v : op->getResults())
      if (!visit(v))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value v : block.getArguments())
          if (!visit(v))
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
    // Up to 16 bytes of a 2-byte type per lane by default (two 16-byte
    // accesses of f32); loads and stores of 1-byte types ask for 16 of
    // their own (hintAccesses).
    LayoutAssigner assigner(kernel.getContext(), info, numWaves,
                            info.maxVectorBytes() / 2);
    if (failed(assigner.planDots(kernel)))
      return failure();
    assigner.hintAccesses(kernel);
    assigner.collectHints(kernel);
    assigner.process(kernel.getBody().front());
    return checkTiles(
        kernel, [&](Operation *op, RankedTensorType type, Value v) {
          if (failed(checkLayoutFitsTarget(op, type, info, numWaves)))
            return failure();
          return checkRegisterFootprint(op, type, v, info);
        });
  }
};

} // namespace
