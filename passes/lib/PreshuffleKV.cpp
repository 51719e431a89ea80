//===- PreshuffleKV.cpp - Address K tiles of a preshuffled KV cache -------===//
//
// A tile.load of a preshuffled block with a `block_base` takes plain
// in-block offsets o*128 + d; this pass replaces them by the byte offsets of
// the preshuffled layout (Passes.td, TilePreshuffleKV).
//
// The permutation runs in i32: the in-block offsets are below a block's
// value bytes (block_size * 128), so their low 32 bits are the offsets, and
// add, mul, shl and the bitwise ops give the same low 32 bits in either
// width. The 64-bit block base is added once, at the end. Where the offsets
// are a row part (a multiple of 128) plus a D part (below 128), the two are
// permuted separately, each where it is defined: the D part is usually
// loop-invariant and its permutation then stays out of the loop.
//
//===----------------------------------------------------------------------===//

#include "tessel/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tessel {
#define GEN_PASS_DEF_TILEPRESHUFFLEKV
#include "tessel/Passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// The bit fields of a plain in-block offset o*128 + d that the
/// preshuffled layout [o/16][d/16][o%16][d%16] moves: d/16 (bits 4-6) goes
/// to bits 8-10, o%16 (bits 7-10) to bits 4-7.
constexpr int64_t kMovedBits = 0x7f0;
constexpr int64_t kDGroupBits = 0x70;
constexpr int64_t kDGroupShift = 4;
constexpr int64_t kRowInGroupBits = 0xf0; // o%16 after a shift right by 3
constexpr int64_t kRowInGroupShift = 3;
constexpr int64_t kRowBits = 7; // o starts at bit 7: o*128
constexpr int64_t kDLimit = 128;

Type withI32(Type t) {
  auto i32 = IntegerType::get(t.getContext(), 32);
  if (auto tt = dyn_cast<RankedTensorType>(t))
    return tt.clone(i32);
  return i32;
}

bool isI32(Value v) { return getElementTypeOrSelf(v.getType()).isInteger(32); }

std::optional<int64_t> constantOf(Value v) {
  Attribute a;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    a = c.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt();
  if (auto d = dyn_cast_or_null<DenseIntElementsAttr>(a); d && d.isSplat())
    return d.getSplatValue<APInt>().getSExtValue();
  return std::nullopt;
}

/// Ops that only place a value's elements (no arithmetic on them).
bool isPlacement(Operation *op) {
  return isa_and_nonnull<SplatOp, BroadcastOp, ExpandDimsOp>(op);
}

/// log2 of the largest power of two known to divide every element of `v`
/// (capped at 32).
int64_t pow2Factor(Value v, unsigned depth = 16) {
  if (auto c = constantOf(v))
    return *c == 0 ? 32 : std::min<int64_t>(32, llvm::countr_zero(uint64_t(*c)));
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0)
    return 0;
  auto f = [&](unsigned i) { return pow2Factor(def->getOperand(i), depth - 1); };
  if (isPlacement(def) || isa<arith::ExtSIOp, arith::ExtUIOp>(def))
    return f(0);
  if (isa<arith::MulIOp>(def))
    return std::min<int64_t>(32, f(0) + f(1));
  if (isa<arith::ShLIOp>(def))
    if (auto s = constantOf(def->getOperand(1)); s && *s >= 0 && *s < 32)
      return std::min<int64_t>(32, f(0) + *s);
  if (isa<arith::AddIOp, arith::SubIOp, arith::OrIOp>(def))
    return std::min(f(0), f(1));
  if (isa<arith::AndIOp>(def))
    return std::max(f(0), f(1));
  return 0;
}

/// Whether every element of `v` lies in [0, limit).
bool knownBelow(Value v, int64_t limit, unsigned depth = 16) {
  if (auto c = constantOf(v))
    return *c >= 0 && *c < limit;
  Operation *def = v.getDefiningOp();
  if (!def || depth == 0)
    return false;
  if (auto r = dyn_cast<RangeOp>(def))
    return int64_t(r.getStart()) >= 0 && int64_t(r.getEnd()) <= limit;
  if (isPlacement(def) || isa<arith::ExtSIOp, arith::ExtUIOp>(def))
    return knownBelow(def->getOperand(0), limit, depth - 1);
  if (isa<arith::AndIOp>(def))
    return knownBelow(def->getOperand(0), limit, depth - 1) ||
           knownBelow(def->getOperand(1), limit, depth - 1);
  return false;
}

/// Builds the i32 form of in-block offsets and their permutation, each op
/// next to the value it is computed from.
class Rewriter {
public:
  explicit Rewriter(MLIRContext *ctx) : b(ctx) {}

  /// The load being rewritten: ops that combine values defined in different
  /// places go right before it, where all of them are available.
  Operation *load = nullptr;

  /// The low 32 bits of `v` (i32 elements of its shape).
  Value narrow(Value v) {
    if (isI32(v))
      return v;
    if (Value done = narrowed.lookup(v))
      return done;
    Value r = narrowUncached(v);
    narrowed[v] = r;
    return r;
  }

  /// P(v) for i32 offsets `v`.
  Value permute(Value v) {
    if (Value done = permuted.lookup(v))
      return done;
    Value r = permuteUncached(v);
    permuted[v] = r;
    return r;
  }

  /// `base` + zext(p). The permuted offsets are non-negative parts that sum
  /// below 2^31, so zext distributes over their sum: a part placed like the
  /// base (per token, broadcast over D) is added to it before the
  /// placement, once per token instead of once per element.
  Value addBase(Location loc, Value base, Value p) {
    if (auto add = p.getDefiningOp<arith::AddIOp>())
      for (unsigned i = 0; i < 2; ++i)
        if (samePlacement(base, add->getOperand(i)))
          return addBase(loc, addBase(loc, base, add->getOperand(i)),
                         add->getOperand(1 - i));
    if (samePlacement(base, p)) {
      Operation *x = base.getDefiningOp();
      Value inner =
          addBase(loc, x->getOperand(0), p.getDefiningOp()->getOperand(0));
      return rebuild(x, inner, base.getType());
    }
    b.setInsertionPoint(load);
    Value wide = arith::ExtUIOp::create(b, loc, base.getType(), p);
    return arith::AddIOp::create(b, loc, base, wide);
  }

private:
  Value cst(Location loc, Type t, int64_t v) {
    if (auto tt = dyn_cast<RankedTensorType>(t))
      return arith::ConstantOp::create(
          b, loc, tt,
          DenseElementsAttr::get(
              tt, APInt(tt.getElementTypeBitWidth(), v, /*isSigned=*/true)));
    return arith::ConstantIntOp::create(b, loc, t, v);
  }

  /// Whether `a` and `c` come from the same placement of equally shaped
  /// sources.
  static bool samePlacement(Value a, Value c) {
    Operation *x = a.getDefiningOp(), *y = c.getDefiningOp();
    return isPlacement(x) && isPlacement(y) && x->getName() == y->getName() &&
           x->getAttrDictionary() == y->getAttrDictionary() &&
           cast<ShapedType>(a.getType()).getShape() ==
               cast<ShapedType>(c.getType()).getShape() &&
           shapeOf(x->getOperand(0)) == shapeOf(y->getOperand(0));
  }
  static SmallVector<int64_t> shapeOf(Value v) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      return SmallVector<int64_t>(t.getShape());
    return {};
  }

  /// `op` (a placement op) applied to `src` instead, giving `type` with
  /// src's element type.
  Value rebuild(Operation *op, Value src, Type type) {
    b.setInsertionPointAfterValue(src);
    Type elem = getElementTypeOrSelf(src.getType());
    auto t = cast<RankedTensorType>(type).clone(elem);
    Location loc = op->getLoc();
    if (isa<SplatOp>(op))
      return SplatOp::create(b, loc, t, src);
    if (isa<BroadcastOp>(op))
      return BroadcastOp::create(b, loc, t, src);
    return ExpandDimsOp::create(b, loc, t, src,
                                cast<ExpandDimsOp>(op).getAxis());
  }

  Value narrowUncached(Value v) {
    Operation *def = v.getDefiningOp();
    Location loc = def ? def->getLoc() : v.getLoc();
    Type t = withI32(v.getType());
    if (auto c = constantOf(v)) {
      b.setInsertionPointAfterValue(v);
      return cst(loc, t, int64_t(int32_t(*c)));
    }
    if (isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(def) &&
        isI32(def->getOperand(0)))
      return def->getOperand(0);
    if (isPlacement(def))
      return rebuild(def, narrow(def->getOperand(0)), v.getType());
    bool shiftOk = true;
    if (isa_and_nonnull<arith::ShLIOp>(def)) {
      auto s = constantOf(def->getOperand(1));
      shiftOk = s && *s >= 0 && *s < 32;
    }
    if (isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp,
                        arith::AndIOp, arith::OrIOp, arith::XOrIOp,
                        arith::ShLIOp>(def) &&
        shiftOk) {
      Value x = narrow(def->getOperand(0)), y = narrow(def->getOperand(1));
      b.setInsertionPointAfter(def);
      OperationState st(loc, def->getName());
      st.addOperands({x, y});
      st.addTypes(t);
      return b.create(st)->getResult(0);
    }
    b.setInsertionPointAfterValue(v);
    return arith::TruncIOp::create(b, loc, t, v);
  }

  Value permuteUncached(Value v) {
    Operation *def = v.getDefiningOp();
    if (isPlacement(def))
      return rebuild(def, permute(def->getOperand(0)), v.getType());
    // Row part (o*128) plus D part (d < 128): permuted separately.
    if (isa_and_nonnull<arith::AddIOp>(def))
      for (unsigned i = 0; i < 2; ++i) {
        Value row = def->getOperand(i), d = def->getOperand(1 - i);
        if (pow2Factor(row) >= kRowBits && knownBelow(d, kDLimit)) {
          Value pr = permute(row), pd = permute(d);
          b.setInsertionPoint(load);
          return arith::AddIOp::create(b, def->getLoc(), pr, pd);
        }
      }
    Location loc = def ? def->getLoc() : v.getLoc();
    b.setInsertionPointAfterValue(v);
    Type t = v.getType();
    if (pow2Factor(v) >= kRowBits) // o*128: (o & ~15) << 7 | (o & 15) << 4
      return arith::AddIOp::create(
          b, loc, arith::AndIOp::create(b, loc, v, cst(loc, t, ~kMovedBits)),
          rowInGroup(loc, v));
    if (knownBelow(v, kDLimit)) // d: d%16 | (d/16) << 8
      return arith::AddIOp::create(
          b, loc, arith::AndIOp::create(b, loc, v, cst(loc, t, 15)),
          dGroup(loc, v));
    Value kept = arith::AndIOp::create(b, loc, v, cst(loc, t, ~kMovedBits));
    Value p = arith::AddIOp::create(b, loc, kept, dGroup(loc, v));
    return arith::AddIOp::create(b, loc, p, rowInGroup(loc, v));
  }

  /// (v & 0x70) << 4: d/16 moved above o%16.
  Value dGroup(Location loc, Value v) {
    Type t = v.getType();
    return arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, v, cst(loc, t, kDGroupBits)),
        cst(loc, t, kDGroupShift));
  }
  /// (v >> 3) & 0xf0: o%16 moved to bits 4-7.
  Value rowInGroup(Location loc, Value v) {
    Type t = v.getType();
    return arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, v, cst(loc, t, kRowInGroupShift)),
        cst(loc, t, kRowInGroupBits));
  }

  OpBuilder b;
  llvm::DenseMap<Value, Value> narrowed, permuted;
};

struct PreshuffleKVPass
    : public tessel::impl::TilePreshuffleKVBase<PreshuffleKVPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<LoadOp> loads;
    getOperation()->walk([&](LoadOp op) {
      if (op.getBlockBase() &&
          op.getDataLayout() == tile::DataLayout::preshuffled)
        loads.push_back(op);
    });
    for (LoadOp op : loads) {
      // One rewriter per load: what it places right before a load dominates
      // that load only.
      Rewriter rw(&getContext());
      rw.load = op;
      Value p = rw.permute(rw.narrow(op.getOffsets()));
      Value addr = rw.addBase(op.getLoc(), op.getBlockBase(), p);
      op.getOffsetsMutable().assign(addr);
      op.getBlockBaseMutable().clear();
    }
  }
};

} // namespace
