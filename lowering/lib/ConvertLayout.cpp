//===- ConvertLayout.cpp - Moving a tile between two layouts --------------===//

#include "ConvertLayout.h"

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace tessel;
using tile::LinearLayout;

namespace {

//===----------------------------------------------------------------------===//
// GF(2) helpers on flat bit vectors
//===----------------------------------------------------------------------===//

/// An echelon basis of a subspace, each row tagged with the combination of
/// inputs it came from, to express vectors of the span in those inputs.
class Span {
public:
  /// Adds `v` (tagged `tag`); false when it was already in the span.
  bool add(uint64_t v, uint64_t tag) {
    reduce(v, tag);
    if (!v)
      return false;
    rows.push_back({v, tag});
    return true;
  }
  /// The tag combination that gives `v`, if `v` is in the span.
  std::optional<uint64_t> solve(uint64_t v) const {
    uint64_t tag = 0;
    reduce(v, tag);
    if (v)
      return std::nullopt;
    return tag;
  }
  bool contains(uint64_t v) const { return solve(v).has_value(); }
  unsigned rank() const { return rows.size(); }

private:
  void reduce(uint64_t &v, uint64_t &tag) const {
    for (auto [r, t] : rows)
      if (v & (uint64_t(1) << llvm::Log2_64(r))) {
        v ^= r;
        tag ^= t;
      }
  }
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
};

/// The bases of one input dim as flat output bit vectors (dim0 in the low
/// bits, as the algebra concatenates them).
SmallVector<int64_t> flatBases(const LinearLayout &l, StringRef in) {
  SmallVector<int64_t> out;
  int idx = l.getInDimIndex(in);
  if (idx < 0)
    return out;
  for (const LinearLayout::Basis &b : l.getInDims()[idx].bases) {
    int64_t v = 0;
    unsigned shift = 0;
    for (auto [k, od] : llvm::enumerate(l.getOutDims())) {
      v |= int64_t(b[k]) << shift;
      shift += llvm::Log2_32(od.size);
    }
    out.push_back(v);
  }
  return out;
}

/// XOR of `bases[i]` over the set bits i of `x`.
int64_t image(ArrayRef<int64_t> bases, int64_t x) {
  int64_t v = 0;
  for (unsigned i = 0; i < bases.size(); ++i)
    if (x & (int64_t(1) << i))
      v ^= bases[i];
  return v;
}

int64_t zeroMask(ArrayRef<int64_t> bases) {
  int64_t m = 0;
  for (unsigned i = 0; i < bases.size(); ++i)
    if (!bases[i])
      m |= int64_t(1) << i;
  return m;
}

struct Bases {
  SmallVector<int64_t> reg, lane, wave;
  explicit Bases(const LinearLayout &l)
      : reg(flatBases(l, tile::kRegisterDim)),
        lane(flatBases(l, tile::kLaneDim)), wave(flatBases(l, tile::kWaveDim)) {
  }
};

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// Destination register r is source register map[r] in the same lane.
std::optional<SmallVector<int64_t>> planRegisters(const Bases &s,
                                                  const Bases &d) {
  if (s.lane != d.lane || s.wave != d.wave)
    return std::nullopt;
  llvm::DenseMap<int64_t, int64_t> where;
  for (int64_t r = (int64_t(1) << s.reg.size()) - 1; r >= 0; --r)
    where[image(s.reg, r)] = r;
  SmallVector<int64_t> map;
  for (int64_t r = 0; r < (int64_t(1) << d.reg.size()); ++r) {
    auto it = where.find(image(d.reg, r));
    if (it == where.end())
      return std::nullopt;
    map.push_back(it->second);
  }
  return map;
}

/// Within-wave moves: every destination element comes from the same wave,
/// and the source register it sits in does not depend on the lane.
bool planShuffle(const Bases &s, const Bases &d, unsigned elemBytes,
                 ConversionPlan &p) {
  if (s.wave != d.wave || elemBytes > 4)
    return false;
  // Tags: source register bits low, lane bits above them.
  unsigned rb = s.reg.size();
  Span span;
  for (unsigned i = 0; i < s.reg.size(); ++i)
    span.add(s.reg[i], uint64_t(1) << i);
  for (unsigned i = 0; i < s.lane.size(); ++i)
    span.add(s.lane[i], uint64_t(1) << (rb + i));
  auto split = [&](int64_t v) -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<uint64_t> t = span.solve(v);
    if (!t)
      return std::nullopt;
    return std::make_pair(int64_t(*t & ((uint64_t(1) << rb) - 1)),
                          int64_t(*t >> rb));
  };
  p.laneBases.clear();
  for (int64_t l : d.lane) {
    auto t = split(l);
    if (!t || t->first != 0)
      return false; // the register would differ between lanes
    p.laneBases.push_back(t->second);
  }
  p.srcReg.clear();
  p.laneConst.clear();
  for (int64_t r = 0; r < (int64_t(1) << d.reg.size()); ++r) {
    auto t = split(image(d.reg, r));
    if (!t)
      return false;
    p.srcReg.push_back(t->first);
    p.laneConst.push_back(t->second);
  }
  return true;
}

/// Lanes per bank row for accesses of `bytes` and the offset bit (in
/// elements) where one access's bank index starts.
struct BankGeometry {
  unsigned phaseLaneBits;  // lanes served together: 2^phaseLaneBits
  unsigned bankLo, bankHi; // element-offset bits that pick the bank
};

BankGeometry bankGeometry(unsigned vecBits, unsigned elemBytes,
                          unsigned rowBytes) {
  unsigned width = std::max(4u, (1u << vecBits) * elemBytes);
  BankGeometry g;
  g.phaseLaneBits = llvm::Log2_32(std::max(1u, rowBytes / width));
  g.bankLo = llvm::Log2_32(width / elemBytes);
  g.bankHi = llvm::Log2_32(rowBytes / elemBytes);
  return g;
}

/// Number of lanes of the worst bank row that hit one bank: the rank
/// deficit of the phase lanes' offsets on the bank bits.
unsigned conflictWays(ArrayRef<int64_t> laneOffsets, unsigned vecBits,
                      unsigned elemBytes, unsigned rowBytes) {
  BankGeometry g = bankGeometry(vecBits, elemBytes, rowBytes);
  int64_t mask =
      ((int64_t(1) << g.bankHi) - 1) & ~((int64_t(1) << g.bankLo) - 1);
  Span span;
  unsigned n = std::min<unsigned>(g.phaseLaneBits, laneOffsets.size());
  unsigned independent = 0;
  for (unsigned j = 0; j < n; ++j) {
    // A lane bit that does not move the address is a broadcast.
    if (!laneOffsets[j] || span.add(laneOffsets[j] & mask, 0))
      ++independent;
  }
  return 1u << (n - independent);
}

/// The widest vector (log2 elements, at most `cap`) over which consecutive
/// registers have consecutive offsets, with every other basis leaving the
/// vector's bits alone (so each access is aligned).
unsigned vectorBits(const ConversionPlan::Side &s, unsigned cap) {
  unsigned k = 0;
  while (k < cap && k < s.reg.size() && s.reg[k] == (int64_t(1) << k))
    ++k;
  auto lowBits = [&](ArrayRef<int64_t> v, unsigned from) {
    int64_t m = 0;
    for (unsigned i = from; i < v.size(); ++i)
      m |= v[i];
    return m;
  };
  int64_t others = lowBits(s.reg, k) | lowBits(s.lane, 0) | lowBits(s.wave, 0);
  while (k && (others & ((int64_t(1) << k) - 1)))
    --k;
  return k;
}

/// Number of leading register bases of `x` that are nonzero, independent
/// and within `cap`.
unsigned regPrefix(ArrayRef<int64_t> reg, unsigned cap) {
  Span span;
  unsigned k = 0;
  while (k < cap && k < reg.size() && span.add(reg[k], 0))
    ++k;
  return k;
}

/// A side with the given element offsets per input basis; `coords` are the
/// register bases in tensor coordinates (zero for copies).
ConversionPlan::Side finishSide(SmallVector<int64_t> reg,
                                SmallVector<int64_t> lane,
                                SmallVector<int64_t> wave,
                                ArrayRef<int64_t> coords, unsigned cap,
                                unsigned elemBytes, unsigned rowBytes) {
  ConversionPlan::Side side;
  side.reg = std::move(reg);
  side.lane = std::move(lane);
  side.wave = std::move(wave);
  side.vecBits = vectorBits(side, cap);
  side.dupRegMask = zeroMask(coords);
  side.accesses = 0;
  for (int64_t r = 0; r < (int64_t(1) << coords.size());
       r += int64_t(1) << side.vecBits)
    if (!(r & side.dupRegMask))
      ++side.accesses;
  side.conflictWays =
      conflictWays(side.lane, side.vecBits, elemBytes, rowBytes);
  return side;
}

void planLds(const Bases &s, const Bases &d, unsigned totalBits,
             unsigned elemBytes, const TargetInfo &target, ConversionPlan &p) {
  unsigned cap =
      llvm::Log2_32(std::max(1u, target.maxVectorBytes() / elemBytes));
  unsigned rowBytes = target.ldsBankRowBytes();
  unsigned pS = regPrefix(s.reg, cap), pD = regPrefix(d.reg, cap);
  // The side with the longer run of registers fixes the vector order.
  bool storeLeads = pS >= pD;
  const Bases &lead = storeLeads ? s : d;
  const Bases &other = storeLeads ? d : s;
  unsigned vLead = std::max(pS, pD);
  unsigned bankHi = llvm::Log2_32(std::max(1u, rowBytes / elemBytes));

  // The shared layout's inverse: offset bit i holds coordinate vector
  // basis[i]. Vector bits first, then the leading side's lanes on the bank
  // bits, then everything else.
  Span span;
  SmallVector<int64_t> basis;
  auto push = [&](int64_t v) {
    if (basis.size() < totalBits && v &&
        span.add(v, uint64_t(1) << basis.size()))
      basis.push_back(v);
  };
  for (unsigned i = 0; i < vLead; ++i)
    push(lead.reg[i]);
  for (int64_t l : lead.lane)
    if (basis.size() < bankHi)
      push(l);
  for (const Bases *x : {&lead, &other})
    for (ArrayRef<int64_t> v :
         {ArrayRef<int64_t>(x->reg), ArrayRef<int64_t>(x->lane),
          ArrayRef<int64_t>(x->wave)})
      for (int64_t b : v)
        push(b);
  for (unsigned i = 0; i < totalBits; ++i)
    push(int64_t(1) << i);
  auto a0 = [&](int64_t c) { return int64_t(*span.solve(c)); };

  // Swizzle for the other side: XOR a linear function K of the offset bits
  // above the bank row into the bank bits above both vectors, chosen so that
  // the other side's phase lanes land in distinct banks.
  unsigned vOther = 0;
  while (vOther < vLead && vOther < other.reg.size() &&
         other.reg[vOther] == lead.reg[vOther])
    ++vOther;
  BankGeometry g = bankGeometry(vOther, elemBytes, rowBytes);
  unsigned kLo = std::max(vLead, g.bankLo);
  int64_t bankMask =
      ((int64_t(1) << g.bankHi) - 1) & ~((int64_t(1) << g.bankLo) - 1);
  int64_t highMask = ~((int64_t(1) << bankHi) - 1);
  SmallVector<std::pair<int64_t, int64_t>> kPairs; // (high part, K value)
  auto evalK = [&](int64_t h) -> std::optional<int64_t> {
    Span hs;
    for (auto [i, kp] : llvm::enumerate(kPairs))
      hs.add(kp.first, uint64_t(1) << i);
    std::optional<uint64_t> t = hs.solve(h);
    if (!t)
      return std::nullopt;
    int64_t k = 0;
    for (unsigned i = 0; i < kPairs.size(); ++i)
      if (*t & (uint64_t(1) << i))
        k ^= kPairs[i].second;
    return k;
  };
  Span banks;
  unsigned n = std::min<unsigned>(g.phaseLaneBits, other.lane.size());
  for (unsigned j = 0; j < n; ++j) {
    int64_t off = a0(other.lane[j]);
    if (!off)
      continue;
    int64_t h = off & highMask;
    if (std::optional<int64_t> k = evalK(h)) {
      banks.add((off ^ *k) & bankMask, 0);
      continue;
    }
    // Free to choose K(h): the first bank bit (or none) that makes this
    // lane's bank independent of the earlier ones.
    int64_t pick = 0;
    if (banks.contains(off & bankMask))
      for (unsigned bit = kLo; bit < g.bankHi; ++bit)
        if (!banks.contains((off ^ (int64_t(1) << bit)) & bankMask)) {
          pick = int64_t(1) << bit;
          break;
        }
    kPairs.push_back({h, pick});
    banks.add((off ^ pick) & bankMask, 0);
  }
  // Extend K linearly: high bits not chosen above map to 0.
  {
    Span hs;
    for (auto [h, k] : kPairs)
      hs.add(h, 0);
    for (unsigned i = bankHi; i < totalBits; ++i)
      if (hs.add(int64_t(1) << i, 0))
        kPairs.push_back({int64_t(1) << i, 0});
  }
  auto addr = [&](int64_t c) {
    int64_t o = a0(c);
    return o ^ *evalK(o & highMask);
  };

  auto fill = [&](const Bases &x, ConversionPlan::Side &side) {
    auto map = [&](ArrayRef<int64_t> in) {
      SmallVector<int64_t> out;
      for (int64_t v : in)
        out.push_back(v ? addr(v) : 0);
      return out;
    };
    side = finishSide(map(x.reg), map(x.lane), map(x.wave), x.reg, cap,
                      elemBytes, rowBytes);
  };
  fill(s, p.store);
  fill(d, p.load);
  p.numElems = int64_t(1) << totalBits;
}

} // namespace

int64_t ConversionPlan::cost() const {
  switch (kind) {
  case Kind::None:
  case Kind::Registers:
    return 0;
  case Kind::Shuffle:
    return dstRegs;
  case Kind::Lds:
    return store.accesses + load.accesses + 2; // two barriers
  }
  llvm_unreachable("unknown conversion kind");
}

FailureOr<ConversionPlan> tessel::planConversion(const LinearLayout &src,
                                                 const LinearLayout &dst,
                                                 unsigned elemBytes,
                                                 const TargetInfo &target,
                                                 std::string *error) {
  auto fail = [&](const Twine &msg) {
    if (error)
      *error = msg.str();
    return failure();
  };
  if (src.getOutDims().size() != dst.getOutDims().size())
    return fail("source and result have different ranks");
  for (auto [a, b] : llvm::zip(src.getOutDims(), dst.getOutDims()))
    if (a.name != b.name || a.size != b.size)
      return fail("source and result have different shapes");
  if (src.getInDimSize(tile::kLaneDim) != dst.getInDimSize(tile::kLaneDim) ||
      src.getInDimSize(tile::kLaneDim) != int32_t(target.waveSize()))
    return fail(Twine("layouts spread over ") +
                Twine(src.getInDimSize(tile::kLaneDim)) + " and " +
                Twine(dst.getInDimSize(tile::kLaneDim)) + " lanes; " +
                target.name() + " has " + Twine(target.waveSize()));
  if (src.getInDimSize(tile::kWaveDim) != dst.getInDimSize(tile::kWaveDim))
    return fail("layouts spread over different numbers of waves");
  if (!src.isSurjective())
    return fail("the source layout does not hold every element");

  ConversionPlan p;
  p.srcRegs = src.getInDimSize(tile::kRegisterDim);
  p.dstRegs = dst.getInDimSize(tile::kRegisterDim);
  if (src == dst) {
    p.kind = ConversionPlan::Kind::None;
    return p;
  }
  Bases s(src), d(dst);
  if (auto map = planRegisters(s, d)) {
    p.kind = ConversionPlan::Kind::Registers;
    p.srcReg = std::move(*map);
    return p;
  }
  ConversionPlan lds = p;
  lds.kind = ConversionPlan::Kind::Lds;
  planLds(s, d, src.getTotalOutBits(), elemBytes, target, lds);
  ConversionPlan sh = p;
  sh.kind = ConversionPlan::Kind::Shuffle;
  if (planShuffle(s, d, elemBytes, sh) && sh.cost() <= lds.cost())
    return sh;
  return lds;
}

FailureOr<ConversionPlan::Side>
tessel::planLdsAccess(const LinearLayout &toOffset, unsigned elemBytes,
                      const TargetInfo &target, std::string *error) {
  if (toOffset.getOutDims().size() != 1 ||
      toOffset.getOutDims()[0].name != tile::kOffsetDim) {
    if (error)
      *error = "expected a map to LDS element offsets";
    return failure();
  }
  unsigned cap =
      llvm::Log2_32(std::max(1u, target.maxVectorBytes() / elemBytes));
  Bases x(toOffset);
  return finishSide(x.reg, x.lane, x.wave, x.reg, cap, elemBytes,
                    target.ldsBankRowBytes());
}

/// The layout of a distributed tensor over the registers its lanes really
/// hold: register bits whose basis is zero (a tile smaller than its
/// encoding's register pattern, e.g. a slice of a matrix-instruction layout)
/// are dropped, as DistributedLayout numbers the lane's vector.
static FailureOr<LinearLayout> heldLayout(RankedTensorType t,
                                          std::string *error) {
  FailureOr<LinearLayout> l = tile::toLinearLayout(t, error);
  if (failed(l))
    return failure();
  SmallVector<LinearLayout::InDim, 3> ins(l->getInDims());
  for (LinearLayout::InDim &in : ins)
    if (in.name == tile::kRegisterDim)
      llvm::erase_if(in.bases, [](const LinearLayout::Basis &b) {
        return llvm::all_of(b, [](int32_t c) { return c == 0; });
      });
  return LinearLayout::get(ins, l->getOutDims(), error);
}

FailureOr<std::pair<LinearLayout, LinearLayout>>
tessel::conversionLayouts(Operation *op, std::string *error) {
  auto srcT = cast<RankedTensorType>(op->getOperand(0).getType());
  auto dstT = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<LinearLayout> s = heldLayout(srcT, error);
  if (failed(s))
    return failure();
  FailureOr<LinearLayout> d = heldLayout(dstT, error);
  if (failed(d))
    return failure();
  if (isa<tile::ReshapeOp>(op)) {
    SmallVector<LinearLayout::OutDim> outs(d->getOutDims());
    // Rename the source dims out of the way of the result's names first.
    LinearLayout tmp = *s;
    for (unsigned i = 0; i < srcT.getRank(); ++i)
      tmp = tmp.renameOutDim(tile::tensorDimName(i),
                             "src" + tile::tensorDimName(i));
    s = tmp.reshapeOuts(outs, error);
    if (failed(s))
      return failure();
  } else if (auto t = dyn_cast<tile::TransposeOp>(op)) {
    SmallVector<std::string> order;
    for (int32_t o : t.getOrder())
      order.push_back(tile::tensorDimName(o));
    s = s->transposeOuts(order, error);
    if (failed(s))
      return failure();
    LinearLayout tmp = *s;
    for (unsigned i = 0; i < order.size(); ++i)
      tmp = tmp.renameOutDim(order[i], "t" + tile::tensorDimName(i));
    for (unsigned i = 0; i < order.size(); ++i)
      tmp = tmp.renameOutDim("t" + tile::tensorDimName(i),
                             tile::tensorDimName(i));
    s = tmp;
  }
  return std::make_pair(*s, *d);
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {

Value i32c(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// XOR of `bases[i]` over the set bits i of the runtime id `id`.
Value runtimeImage(OpBuilder &b, Location loc, Value id,
                   ArrayRef<int64_t> bases) {
  Value acc;
  auto combine = [&](Value term) {
    acc = acc ? arith::XOrIOp::create(b, loc, acc, term).getResult() : term;
  };
  for (unsigned i = 0; i < bases.size();) {
    if (!bases[i]) {
      ++i;
      continue;
    }
    // A run of bits whose images are consecutive powers of two is one
    // shift-and-mask; any other bit contributes its image when set.
    unsigned n = 1;
    if (llvm::isPowerOf2_64(bases[i]))
      while (i + n < bases.size() && bases[i + n] == bases[i] << n)
        ++n;
    Value field = id;
    if (i)
      field = arith::ShRUIOp::create(b, loc, id, i32c(b, loc, i));
    field = arith::AndIOp::create(b, loc, field,
                                  i32c(b, loc, (int64_t(1) << n) - 1));
    if (!llvm::isPowerOf2_64(bases[i]))
      field = arith::MulIOp::create(b, loc, field, i32c(b, loc, bases[i]));
    else if (bases[i] != 1)
      field = arith::ShLIOp::create(b, loc, field,
                                    i32c(b, loc, llvm::Log2_64(bases[i])));
    combine(field);
    i += n;
  }
  return acc ? acc : i32c(b, loc, 0);
}

int64_t possibleBits(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  int64_t m = 0;
  for (int64_t v : a)
    m |= v;
  for (int64_t v : b)
    m |= v;
  return m;
}

/// `base` XOR `c`, as an add when the bits cannot overlap (so that the
/// constant can fold into the memory instruction's offset).
Value xorConst(OpBuilder &b, Location loc, Value base, int64_t baseBits,
               int64_t c) {
  if (!c)
    return base;
  if (!(baseBits & c))
    return arith::AddIOp::create(b, loc, base, i32c(b, loc, c));
  return arith::XOrIOp::create(b, loc, base, i32c(b, loc, c));
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value emitRegisters(OpBuilder &b, Location loc, const ConversionPlan &p,
                    Value in) {
  return vector::ShuffleOp::create(b, loc, in, in, p.srcReg);
}

/// Moves a scalar of at most 32 bits through a 32-bit lane shuffle.
Value shuffleScalar(OpBuilder &b, Location loc, const TargetInfo &target,
                    Value v, Value srcLane) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits == 32)
    return target.emitLaneShuffle(b, loc, v, srcLane);
  Type it = b.getIntegerType(bits);
  Value x = t == it ? v : arith::BitcastOp::create(b, loc, it, v).getResult();
  x = arith::ExtUIOp::create(b, loc, i32, x);
  x = target.emitLaneShuffle(b, loc, x, srcLane);
  x = arith::TruncIOp::create(b, loc, it, x);
  return t == it ? x : arith::BitcastOp::create(b, loc, t, x).getResult();
}

Value emitShuffle(OpBuilder &b, Location loc, const ConversionPlan &p, Value in,
                  Value lane, const TargetInfo &target) {
  Value base = runtimeImage(b, loc, lane, p.laneBases);
  int64_t baseBits = possibleBits(p.laneBases, {});
  llvm::DenseMap<std::pair<int64_t, int64_t>, Value> done;
  SmallVector<Value> out;
  for (int64_t r = 0; r < p.dstRegs; ++r) {
    auto key = std::make_pair(p.srcReg[r], p.laneConst[r]);
    Value &v = done[key];
    if (!v) {
      Value src = xorConst(b, loc, base, baseBits, p.laneConst[r]);
      Value x = vector::ExtractOp::create(b, loc, in, p.srcReg[r]);
      v = shuffleScalar(b, loc, target, x, src);
    }
    out.push_back(v);
  }
  auto vt = VectorType::get({p.dstRegs},
                            cast<VectorType>(in.getType()).getElementType());
  return vector::FromElementsOp::create(b, loc, vt, out);
}

Value emitLds(OpBuilder &b, Location loc, const ConversionPlan &p, Value in,
              Value lane, Value wave, Value buffer) {
  // Earlier readers of this space must be done before it is overwritten.
  gpu::BarrierOp::create(b, loc);
  emitLdsStore(b, loc, p.store, in, lane, wave, buffer);
  gpu::BarrierOp::create(b, loc);
  Type elem = cast<VectorType>(in.getType()).getElementType();
  return emitLdsLoad(b, loc, p.load, p.dstRegs, elem, lane, wave, buffer);
}

} // namespace

/// Register values of `elem` as the LDS element type `ldsElem` (same width,
/// or i1 widened to i8), and back.
static Value toLdsElems(OpBuilder &b, Location loc, Value v, Type ldsElem) {
  auto vt = cast<VectorType>(v.getType());
  Type elem = vt.getElementType();
  if (elem == ldsElem)
    return v;
  if (elem.isInteger(1))
    return arith::ExtUIOp::create(b, loc, vt.clone(ldsElem), v);
  return vector::BitCastOp::create(b, loc, vt.clone(ldsElem), v);
}

static Value fromLdsElems(OpBuilder &b, Location loc, Value v, Type elem) {
  auto vt = cast<VectorType>(v.getType());
  if (vt.getElementType() == elem)
    return v;
  if (elem.isInteger(1))
    return arith::TruncIOp::create(b, loc, vt.clone(elem), v);
  return vector::BitCastOp::create(b, loc, vt.clone(elem), v);
}

Value tessel::emitLdsSideBase(OpBuilder &b, Location loc,
                              const ConversionPlan::Side &s, Value lane,
                              Value wave) {
  Value l = runtimeImage(b, loc, lane, s.lane);
  Value w = runtimeImage(b, loc, wave, s.wave);
  return arith::XOrIOp::create(b, loc, l, w).getResult();
}

Value tessel::emitLdsSlotOffset(OpBuilder &b, Location loc,
                                const ConversionPlan::Side &s, Value base,
                                int64_t slot) {
  return xorConst(b, loc, base, possibleBits(s.lane, s.wave),
                  image(s.reg, slot));
}

void tessel::emitLdsStore(OpBuilder &b, Location loc,
                          const ConversionPlan::Side &s, Value in, Value lane,
                          Value wave, Value buffer) {
  Type ldsElem = cast<MemRefType>(buffer.getType()).getElementType();
  unsigned elemBytes = std::max(1u, ldsElem.getIntOrFloatBitWidth() / 8);
  int64_t regs = cast<VectorType>(in.getType()).getNumElements();
  Value base = emitLdsSideBase(b, loc, s, lane, wave);
  int64_t vec = int64_t(1) << s.vecBits;
  for (int64_t r = 0; r < regs; r += vec) {
    if (r & s.dupRegMask)
      continue;
    Value off = emitLdsSlotOffset(b, loc, s, base, r);
    Value v =
        vector::ExtractStridedSliceOp::create(b, loc, in, {r}, {vec}, {1});
    vector::StoreOp::create(b, loc, toLdsElems(b, loc, v, ldsElem), buffer,
                            ValueRange{toIndex(b, loc, off)},
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(vec * elemBytes));
  }
}

Value tessel::emitLdsLoad(OpBuilder &b, Location loc,
                          const ConversionPlan::Side &s, int64_t regs,
                          Type elem, Value lane, Value wave, Value buffer) {
  Type ldsElem = cast<MemRefType>(buffer.getType()).getElementType();
  unsigned elemBytes = std::max(1u, ldsElem.getIntOrFloatBitWidth() / 8);
  Value base = emitLdsSideBase(b, loc, s, lane, wave);
  int64_t vec = int64_t(1) << s.vecBits;
  auto vt = VectorType::get({regs}, elem);
  Value out = arith::ConstantOp::create(b, loc, vt, b.getZeroAttr(vt));
  for (int64_t r = 0; r < regs; r += vec) {
    if (r & s.dupRegMask)
      continue;
    Value off = emitLdsSlotOffset(b, loc, s, base, r);
    Value v = vector::LoadOp::create(b, loc, VectorType::get({vec}, ldsElem),
                                     buffer, ValueRange{toIndex(b, loc, off)},
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(vec * elemBytes));
    out = vector::InsertStridedSliceOp::create(
        b, loc, fromLdsElems(b, loc, v, elem), out, {r}, {1});
  }
  if (!s.dupRegMask)
    return out;
  // Copies (zero register bases) take the value of their canonical slot.
  SmallVector<int64_t> mask;
  for (int64_t r = 0; r < regs; ++r)
    mask.push_back(r & ~s.dupRegMask);
  return vector::ShuffleOp::create(b, loc, out, out, mask);
}

Value tessel::emitConversion(OpBuilder &b, Location loc,
                             const ConversionPlan &plan, Value in, Value lane,
                             Value wave, Value buffer,
                             const TargetInfo &target) {
  switch (plan.kind) {
  case ConversionPlan::Kind::None:
    return in;
  case ConversionPlan::Kind::Registers:
    return emitRegisters(b, loc, plan, in);
  case ConversionPlan::Kind::Shuffle:
    return emitShuffle(b, loc, plan, in, lane, target);
  case ConversionPlan::Kind::Lds:
    return emitLds(b, loc, plan, in, lane, wave, buffer);
  }
  llvm_unreachable("unknown conversion kind");
}
