//===- AxisInfo.cpp - Contiguity and divisibility of tile values ----------===//

#include "AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

static int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(kMaxDivisibility,
                           int64_t(1) << llvm::countr_zero(uint64_t(v)));
}

/// Scalars are treated as tensors of shape [1].
static SmallVector<int64_t> shapeOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return SmallVector<int64_t>(t.getShape());
  return {1};
}

AxisInfo AxisInfo::unknown(ArrayRef<int64_t> shape) {
  AxisInfo i;
  i.contiguity.assign(shape.size(), 1);
  i.divisibility.assign(shape.size(), 1);
  i.constancy.assign(shape.size(), 1);
  return i;
}

static AxisInfo splatOf(ArrayRef<int64_t> shape, int64_t div,
                        std::optional<int64_t> cst) {
  AxisInfo i;
  i.contiguity.assign(shape.size(), 1);
  i.divisibility.assign(shape.size(), div);
  i.constancy.assign(shape.begin(), shape.end());
  i.constant = cst;
  return i;
}

/// a / p for a power of two p (unsigned division, or a logical shift right
/// by log2 p): a run starting at a multiple of g = min(contiguity,
/// divisibility, p) crosses no multiple of p within g elements, so the
/// quotient is constant there. `r` holds the facts both operands give.
static AxisInfo shiftedRight(const AxisInfo &a, int64_t p, AxisInfo r) {
  for (unsigned d = 0; d < a.rank(); ++d) {
    int64_t g = std::min(a.contiguity[d], std::min(a.divisibility[d], p));
    r.contiguity[d] = 1;
    r.constancy[d] = std::max(a.constancy[d], g);
    r.divisibility[d] = a.contiguity[d] == 1 && a.divisibility[d] >= p
                            ? a.divisibility[d] / p
                            : 1;
  }
  if (a.constant)
    r.constant = int64_t(uint64_t(*a.constant) / uint64_t(p));
  return r;
}

/// a << s: every element is multiplied by 2^s, so runs of a are no longer
/// contiguous (for s > 0) but stay constant where a is.
static AxisInfo shiftedLeft(const AxisInfo &a, int64_t s, AxisInfo r) {
  if (s == 0)
    return a;
  for (unsigned d = 0; d < a.rank(); ++d) {
    r.contiguity[d] = 1;
    r.constancy[d] = a.constancy[d];
    r.divisibility[d] = a.elementDivisibility(d) >= (kMaxDivisibility >> s)
                            ? kMaxDivisibility
                            : a.elementDivisibility(d) << s;
  }
  if (a.constant)
    r.constant = int64_t(uint64_t(*a.constant) << s);
  return r;
}

/// a & m for a constant m. Inside a run of a aligned to g (g <= contiguity
/// and divisibility) the elements differ only in their low log2(g) bits.
/// With m's low t bits all set, runs aligned to min(g, 2^t) survive as
/// runs; with m's low z bits clear, runs aligned to min(g, 2^z) collapse
/// to one value, a multiple of 2^z.
static AxisInfo maskedBy(const AxisInfo &a, int64_t m, AxisInfo r) {
  int64_t ones = int64_t(1)
                 << std::min<unsigned>(30, llvm::countr_one(uint64_t(m)));
  int64_t zeros = m == 0 ? kMaxDivisibility
                         : int64_t(1) << std::min<unsigned>(
                               30, llvm::countr_zero(uint64_t(m)));
  for (unsigned d = 0; d < a.rank(); ++d) {
    int64_t g = std::min(a.contiguity[d], a.divisibility[d]);
    r.constancy[d] = a.constancy[d];
    if (ones > 1) {
      r.contiguity[d] = std::min(g, ones);
      r.divisibility[d] =
          r.contiguity[d] > 1 ? r.contiguity[d] : a.elementDivisibility(d);
    } else {
      r.contiguity[d] = 1;
      r.constancy[d] = std::max(r.constancy[d], std::min(g, zeros));
      r.divisibility[d] = std::max(zeros, a.elementDivisibility(d));
    }
  }
  if (a.constant)
    r.constant = *a.constant & m;
  return r;
}

/// The width of `v`'s integer elements (index counts as 64).
static unsigned bitWidthOf(Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
}

/// A wrapping integer of `width` bits read as signed (sext) or unsigned.
static int64_t wrapTo(int64_t v, unsigned width, bool isSigned) {
  if (width >= 64)
    return v;
  uint64_t m = (uint64_t(1) << width) - 1, u = uint64_t(v) & m;
  if (isSigned && (u >> (width - 1)))
    u |= ~m;
  return int64_t(u);
}

AxisInfo AxisInfoAnalysis::extended(Operation *def) {
  Value src = def->getOperand(0);
  AxisInfo r = get(src);
  unsigned width = bitWidthOf(src);
  bool zext = isa<arith::ExtUIOp, arith::IndexCastUIOp>(def);
  // Contiguity is counted in the source's wrapping arithmetic. A run that
  // starts at a multiple of g and is at most g long cannot cross the wrap
  // (from 2^(w-1) - 1 to -2^(w-1) for sext, from 2^w - 1 to 0 for zext: both
  // at multiples of g), so such runs stay runs after widening. Longer runs
  // survive only where no element can wrap: when the value is known
  // non-negative (an unsigned run of non-negative values never crosses
  // 2^w - 1 either).
  if (!isNonNegative(src))
    for (unsigned d = 0; d < r.rank(); ++d)
      r.contiguity[d] = std::min(r.contiguity[d], r.divisibility[d]);
  if (r.constant)
    r.constant = wrapTo(*r.constant, width, !zext);
  return r;
}

AxisInfo AxisInfoAnalysis::truncated(AxisInfo r, unsigned width) {
  // The low bits keep the arithmetic mod 2^width: runs stay runs and
  // divisibility holds up to 2^(width - 1) (beyond, 0 divides anything).
  int64_t cap = width >= 32 ? kMaxDivisibility : int64_t(1) << (width - 1);
  for (unsigned d = 0; d < r.rank(); ++d)
    r.divisibility[d] = std::min(r.divisibility[d], cap);
  if (r.constant)
    r.constant = wrapTo(*r.constant, width, /*isSigned=*/true);
  return r;
}

bool AxisInfoAnalysis::isNonNegative(Value v) {
  auto it = nonNegative.find(v);
  if (it != nonNegative.end())
    return it->second;
  nonNegative[v] = false; // cycles (through loop-carried values) prove nothing
  bool r = computeNonNegative(v);
  nonNegative[v] = r;
  return r;
}

/// Whether `v` holds no negative element (read as signed). Sums and
/// products count only where the op promises no signed wrap (`nsw`).
bool AxisInfoAnalysis::computeNonNegative(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto c = get(v).constant)
    return *c >= 0;
  if (auto range = dyn_cast<RangeOp>(def))
    return int64_t(range.getStart()) >= 0;
  if (isa<ProgramIdOp, NumProgramsOp>(def))
    return true;
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(def))
    return bitWidthOf(def->getOperand(0)) < bitWidthOf(v);
  auto operandsNonNegative = [&] {
    return llvm::all_of(def->getOperands(),
                        [&](Value o) { return isNonNegative(o); });
  };
  if (isa<SplatOp, BroadcastOp, ExpandDimsOp, ConvertLayoutOp,
          arith::ExtSIOp, arith::IndexCastOp, arith::DivUIOp, arith::RemUIOp,
          arith::DivSIOp, arith::MinSIOp, arith::ShRSIOp>(def))
    return operandsNonNegative() ||
           (isa<arith::DivUIOp, arith::RemUIOp>(def) &&
            isNonNegative(def->getOperand(0)));
  if (isa<arith::MaxSIOp, arith::AndIOp>(def))
    return isNonNegative(def->getOperand(0)) ||
           isNonNegative(def->getOperand(1));
  if (auto shr = dyn_cast<arith::ShRUIOp>(def))
    return isNonNegative(shr.getLhs()) ||
           get(shr.getRhs()).constant.value_or(0) > 0;
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    return isNonNegative(sel.getTrueValue()) &&
           isNonNegative(sel.getFalseValue());
  if (isa<arith::AddIOp, arith::MulIOp>(def)) {
    auto flags = cast<arith::ArithIntegerOverflowFlagsInterface>(def);
    return flags.hasNoSignedWrap() && operandsNonNegative();
  }
  return false;
}

AxisInfoAnalysis::AxisInfoAnalysis(FunctionOpInterface func) {
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    if (auto d = func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility"))
      argDivisibility[arg] = d.getInt();
  // An scf.for induction variable is lb + i * step: it has the divisibility
  // both share (a K loop stepping by the tile). Recorded now, while the
  // loops are still those of the tile IR.
  func.walk([&](scf::ForOp forOp) {
    int64_t div = std::min(get(forOp.getLowerBound()).divisibility[0],
                           get(forOp.getStep()).divisibility[0]);
    infos[forOp.getInductionVar()] = splatOf({1}, div, std::nullopt);
  });
}

AxisInfo AxisInfoAnalysis::get(Value v) {
  auto it = infos.find(v);
  if (it != infos.end())
    return it->second;
  AxisInfo info = compute(v);
  infos[v] = info;
  return info;
}

AxisInfo AxisInfoAnalysis::compute(Value v) {
  SmallVector<int64_t> shape = shapeOf(v);
  unsigned rank = shape.size();
  Operation *def = v.getDefiningOp();
  if (!def) {
    int64_t div = argDivisibility.lookup(v);
    return splatOf(shape, div ? div : 1, std::nullopt);
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
      return splatOf(shape, pow2Divisor(i.getInt()), i.getInt());
    if (auto d = dyn_cast<DenseIntElementsAttr>(cst.getValue());
        d && d.isSplat()) {
      int64_t c = d.getSplatValue<APInt>().getSExtValue();
      return splatOf(shape, pow2Divisor(c), c);
    }
    return AxisInfo::unknown(shape);
  }
  if (auto range = dyn_cast<RangeOp>(def)) {
    AxisInfo i = AxisInfo::unknown(shape);
    i.contiguity[0] = shape[0];
    i.divisibility[0] = pow2Divisor(range.getStart());
    return i;
  }
  if (auto splat = dyn_cast<SplatOp>(def)) {
    AxisInfo s = get(splat.getSrc());
    return splatOf(shape, s.divisibility[0], s.constant);
  }
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    AxisInfo s = get(bcast.getSrc());
    SmallVector<int64_t> srcShape = shapeOf(bcast.getSrc());
    for (unsigned d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && shape[d] != 1) {
        s.contiguity[d] = 1;
        s.constancy[d] = shape[d];
      }
    return s;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    AxisInfo s = get(expand.getSrc());
    unsigned axis = expand.getAxis();
    // Along the new axis every element starts a run: it needs the
    // divisibility that holds for all elements.
    int64_t all = kMaxDivisibility;
    for (unsigned d = 0; d < s.rank(); ++d)
      all = std::min(all, s.elementDivisibility(d));
    s.contiguity.insert(s.contiguity.begin() + axis, 1);
    s.divisibility.insert(s.divisibility.begin() + axis, all);
    s.constancy.insert(s.constancy.begin() + axis, 1);
    return s;
  }
  if (isa<ConvertLayoutOp>(def))
    return get(def->getOperand(0));
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(def))
    return extended(def);
  if (auto trunc = dyn_cast<arith::TruncIOp>(def))
    return truncated(get(trunc.getIn()),
                     getElementTypeOrSelf(trunc.getType()).getIntOrFloatBitWidth());

  // Binary integer arithmetic.
  if (def->getNumOperands() == 2 &&
      rank == shapeOf(def->getOperand(0)).size() &&
      rank == shapeOf(def->getOperand(1)).size()) {
    const AxisInfo a = get(def->getOperand(0));
    const AxisInfo b = get(def->getOperand(1));
    AxisInfo r = AxisInfo::unknown(shape);
    bool both = a.constant && b.constant;
    for (unsigned d = 0; d < rank; ++d)
      r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      bool sub = isa<arith::SubIOp>(def);
      for (unsigned d = 0; d < rank; ++d) {
        // contiguous + constant-along-the-run stays contiguous.
        int64_t c = std::min(a.contiguity[d], b.constancy[d]);
        if (!sub)
          c = std::max(c, std::min(b.contiguity[d], a.constancy[d]));
        r.contiguity[d] = c;
        r.divisibility[d] =
            c > 1
                ? std::gcd(a.divisibility[d], b.divisibility[d])
                : std::gcd(a.elementDivisibility(d), b.elementDivisibility(d));
      }
      if (both)
        r.constant =
            sub ? *a.constant - *b.constant : *a.constant + *b.constant;
      return r;
    }
    if (isa<arith::MulIOp>(def)) {
      for (unsigned d = 0; d < rank; ++d) {
        r.divisibility[d] =
            std::min<int64_t>(kMaxDivisibility, a.elementDivisibility(d) *
                                                    b.elementDivisibility(d));
        if (b.constant == 1) {
          r.contiguity[d] = a.contiguity[d];
          r.divisibility[d] = a.divisibility[d];
        }
        if (a.constant == 1) {
          r.contiguity[d] = b.contiguity[d];
          r.divisibility[d] = b.divisibility[d];
        }
      }
      if (both)
        r.constant = *a.constant * *b.constant;
      return r;
    }
    // a < b with a contiguous and b constant along a run: if the run start
    // and b are both multiples of g, every element of an aligned group of g
    // compares the same way (s < b implies s + g - 1 < b).
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      auto pred = cmp.getPredicate();
      if (pred == arith::CmpIPredicate::slt ||
          pred == arith::CmpIPredicate::ult ||
          pred == arith::CmpIPredicate::sge ||
          pred == arith::CmpIPredicate::uge)
        for (unsigned d = 0; d < rank; ++d) {
          if (a.contiguity[d] <= 1 || b.constancy[d] < a.contiguity[d])
            continue;
          int64_t g =
              std::gcd(a.contiguity[d],
                       std::gcd(a.divisibility[d], b.elementDivisibility(d)));
          r.constancy[d] = std::max(r.constancy[d], g);
        }
      return r;
    }
    // Unsigned division and remainder by a power of two p. A run starting
    // at a multiple of g = min(contiguity, divisibility, p) crosses no
    // multiple of p within g elements: the remainder is contiguous there
    // (from a multiple of g) and the quotient constant.
    if (isa<arith::DivUIOp, arith::RemUIOp>(def) && b.constant &&
        *b.constant > 0 && llvm::isPowerOf2_64(*b.constant)) {
      int64_t p = *b.constant;
      if (isa<arith::DivUIOp>(def))
        return shiftedRight(a, p, r);
      for (unsigned d = 0; d < rank; ++d) {
        r.contiguity[d] =
            std::min(a.contiguity[d], std::min(a.divisibility[d], p));
        r.divisibility[d] = std::min(a.divisibility[d], p);
        r.constancy[d] = a.constancy[d];
      }
      if (both)
        r.constant = int64_t(uint64_t(*a.constant) % uint64_t(p));
      return r;
    }
    if (auto shr = dyn_cast<arith::ShRUIOp>(def);
        shr && b.constant && *b.constant >= 0 && *b.constant < 63)
      return shiftedRight(a, int64_t(1) << *b.constant, r);
    if (isa<arith::ShLIOp>(def) && b.constant && *b.constant >= 0 &&
        *b.constant < 63)
      return shiftedLeft(a, *b.constant, r);
    if (isa<arith::AndIOp>(def) && (a.constant || b.constant)) {
      bool maskIsB = b.constant.has_value();
      return maskedBy(maskIsB ? a : b, maskIsB ? *b.constant : *a.constant, r);
    }
    if (isa<arith::AndIOp, arith::OrIOp, arith::DivSIOp, arith::DivUIOp,
            arith::RemUIOp, arith::CmpFOp, arith::ShRUIOp, arith::ShLIOp>(def))
      return r;
  }
  if (isa<arith::SelectOp>(def)) {
    // Constant where the condition and both choices are.
    AxisInfo r = AxisInfo::unknown(shape);
    r.constancy.assign(shape.begin(), shape.end());
    for (Value o : def->getOperands())
      if (shapeOf(o).size() == rank) {
        AxisInfo oi = get(o);
        for (unsigned d = 0; d < rank; ++d)
          r.constancy[d] = std::min(r.constancy[d], oi.constancy[d]);
      }
    return r;
  }
  return AxisInfo::unknown(shape);
}
