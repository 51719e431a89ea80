//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//

#include "tessel/Dialect/Tile/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>

using namespace mlir;
using namespace tessel::tile;

namespace {

LogicalResult fail(std::string *error, const llvm::Twine &msg) {
  if (error)
    *error = msg.str();
  return failure();
}

/// Vectors over GF(2) kept in echelon form by their highest set bit, each
/// with the combination of input bits that produces it.
class Echelon {
public:
  /// Reduces `v` (and its combination `c`) by the basis, high bits first.
  void reduce(uint64_t &v, uint64_t &c) const {
    for (int b = 63; b >= 0 && v; --b)
      if (((v >> b) & 1) && has[b]) {
        v ^= vec[b];
        c ^= comb[b];
      }
  }
  /// Adds `v` (produced by input combination `c`) unless it is in the span
  /// already; returns whether it was added.
  bool insert(uint64_t v, uint64_t c) {
    reduce(v, c);
    if (!v)
      return false;
    unsigned lead = 63 - llvm::countl_zero(v);
    vec[lead] = v;
    comb[lead] = c;
    has[lead] = true;
    return true;
  }

private:
  uint64_t vec[64] = {}, comb[64] = {};
  bool has[64] = {};
};

} // namespace

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

FailureOr<LinearLayout> LinearLayout::get(ArrayRef<InDim> ins,
                                          ArrayRef<OutDim> outs,
                                          std::string *error) {
  llvm::StringSet<> names;
  unsigned outBits = 0, inBits = 0;
  for (const OutDim &o : outs) {
    if (!names.insert(o.name).second)
      return fail(error, "output dimension '" + o.name + "' appears twice");
    if (o.size <= 0 || !llvm::isPowerOf2_32(o.size))
      return fail(error, "output dimension '" + o.name + "' has size " +
                             llvm::Twine(o.size) +
                             ", which is not a power of two");
    outBits += llvm::Log2_32(o.size);
  }
  names.clear();
  for (const InDim &d : ins) {
    if (!names.insert(d.name).second)
      return fail(error, "input dimension '" + d.name + "' appears twice");
    if (d.bases.size() > 30)
      return fail(error, "input dimension '" + d.name + "' has " +
                             llvm::Twine(d.bases.size()) +
                             " bits; at most 30 are supported");
    inBits += d.bases.size();
    for (auto [i, b] : llvm::enumerate(d.bases)) {
      if (b.size() != outs.size())
        return fail(error, "basis " + llvm::Twine(i) + " of '" + d.name +
                               "' has " + llvm::Twine(b.size()) +
                               " coordinates for " + llvm::Twine(outs.size()) +
                               " output dimensions");
      for (auto [k, c] : llvm::enumerate(b))
        if (c < 0 || c >= outs[k].size)
          return fail(error, "basis " + llvm::Twine(i) + " of '" + d.name +
                                 "' has coordinate " + llvm::Twine(c) +
                                 " outside output dimension '" + outs[k].name +
                                 "' of size " + llvm::Twine(outs[k].size));
    }
  }
  if (inBits > 63 || outBits > 63)
    return fail(error, "a linear layout supports at most 63 input and 63 "
                       "output bits (got " +
                           llvm::Twine(inBits) + " and " +
                           llvm::Twine(outBits) + ")");
  LinearLayout l;
  l.ins.assign(ins.begin(), ins.end());
  l.outs.assign(outs.begin(), outs.end());
  return l;
}

LinearLayout LinearLayout::strided1D(ArrayRef<int32_t> strides, StringRef inDim,
                                     StringRef outDim, int32_t outSize) {
  InDim d{inDim.str(), {}};
  for (int32_t s : strides)
    d.bases.push_back(Basis{s});
  FailureOr<LinearLayout> l = get({d}, {OutDim{outDim.str(), outSize}});
  assert(succeeded(l) && "invalid strided layout");
  return *l;
}

LinearLayout LinearLayout::identity1D(int32_t size, StringRef inDim,
                                      StringRef outDim) {
  assert(size > 0 && llvm::isPowerOf2_32(size));
  SmallVector<int32_t> strides;
  for (int32_t s = 1; s < size; s *= 2)
    strides.push_back(s);
  return strided1D(strides, inDim, outDim, size);
}

LinearLayout LinearLayout::zeros1D(int32_t size, StringRef inDim,
                                   StringRef outDim, int32_t outSize) {
  assert(size > 0 && llvm::isPowerOf2_32(size));
  SmallVector<int32_t> strides(llvm::Log2_32(size), 0);
  return strided1D(strides, inDim, outDim, outSize);
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

int LinearLayout::getInDimIndex(StringRef name) const {
  for (auto [i, d] : llvm::enumerate(ins))
    if (d.name == name)
      return i;
  return -1;
}

int LinearLayout::getOutDimIndex(StringRef name) const {
  for (auto [i, d] : llvm::enumerate(outs))
    if (d.name == name)
      return i;
  return -1;
}

bool LinearLayout::hasInDim(StringRef name) const {
  return getInDimIndex(name) >= 0;
}
bool LinearLayout::hasOutDim(StringRef name) const {
  return getOutDimIndex(name) >= 0;
}

unsigned LinearLayout::getInDimSizeLog2(StringRef name) const {
  int i = getInDimIndex(name);
  return i < 0 ? 0 : ins[i].bases.size();
}
unsigned LinearLayout::getOutDimSizeLog2(StringRef name) const {
  int i = getOutDimIndex(name);
  return i < 0 ? 0 : llvm::Log2_32(outs[i].size);
}
int32_t LinearLayout::getInDimSize(StringRef name) const {
  return int32_t(1) << getInDimSizeLog2(name);
}
int32_t LinearLayout::getOutDimSize(StringRef name) const {
  return int32_t(1) << getOutDimSizeLog2(name);
}
unsigned LinearLayout::getTotalInBits() const {
  unsigned n = 0;
  for (const InDim &d : ins)
    n += d.bases.size();
  return n;
}
unsigned LinearLayout::getTotalOutBits() const {
  unsigned n = 0;
  for (const OutDim &o : outs)
    n += llvm::Log2_32(o.size);
  return n;
}
int64_t LinearLayout::getTotalInDimSize() const {
  return int64_t(1) << getTotalInBits();
}
int64_t LinearLayout::getTotalOutDimSize() const {
  return int64_t(1) << getTotalOutBits();
}

int32_t LinearLayout::getBasis(StringRef inDim, unsigned bit,
                               StringRef outDim) const {
  int i = getInDimIndex(inDim), o = getOutDimIndex(outDim);
  assert(i >= 0 && o >= 0 && bit < ins[i].bases.size());
  return ins[i].bases[bit][o];
}

//===----------------------------------------------------------------------===//
// Flat view
//===----------------------------------------------------------------------===//

unsigned LinearLayout::outBitBase(unsigned k) const {
  unsigned base = 0;
  for (unsigned i = 0; i < k; ++i)
    base += llvm::Log2_32(outs[i].size);
  return base;
}

uint64_t LinearLayout::flatten(ArrayRef<int32_t> coords) const {
  uint64_t bits = 0;
  for (unsigned k = 0, base = 0; k < outs.size(); ++k) {
    bits |= uint64_t(coords[k]) << base;
    base += llvm::Log2_32(outs[k].size);
  }
  return bits;
}

LinearLayout::Basis LinearLayout::unflatten(uint64_t bits) const {
  Basis b;
  for (const OutDim &o : outs) {
    b.push_back(int32_t(bits & uint64_t(o.size - 1)));
    bits >>= llvm::Log2_32(o.size);
  }
  return b;
}

SmallVector<uint64_t> LinearLayout::flatColumns() const {
  SmallVector<uint64_t> cols;
  for (const InDim &d : ins)
    for (const Basis &b : d.bases)
      cols.push_back(flatten(b));
  return cols;
}

//===----------------------------------------------------------------------===//
// Evaluation and properties
//===----------------------------------------------------------------------===//

SmallVector<int32_t> LinearLayout::apply(ArrayRef<int32_t> in) const {
  assert(in.size() == ins.size() && "one coordinate per input dimension");
  SmallVector<int32_t> out(outs.size(), 0);
  for (auto [d, x] : llvm::zip(ins, in)) {
    assert(x >= 0 && (int64_t(x) >> d.bases.size()) == 0 &&
           "input coordinate out of range");
    for (auto [i, b] : llvm::enumerate(d.bases))
      if ((x >> i) & 1)
        for (unsigned k = 0; k < outs.size(); ++k)
          out[k] ^= b[k];
  }
  return out;
}

SmallVector<std::pair<std::string, int32_t>>
LinearLayout::apply(ArrayRef<std::pair<std::string, int32_t>> in) const {
  SmallVector<int32_t> pos(ins.size(), 0);
  for (const auto &[name, x] : in) {
    int i = getInDimIndex(name);
    assert(i >= 0 && "unknown input dimension");
    pos[i] = x;
  }
  SmallVector<int32_t> out = apply(pos);
  SmallVector<std::pair<std::string, int32_t>> named;
  for (auto [o, x] : llvm::zip(outs, out))
    named.emplace_back(o.name, x);
  return named;
}

unsigned LinearLayout::getRank() const {
  Echelon e;
  unsigned rank = 0;
  for (uint64_t c : flatColumns())
    rank += e.insert(c, 0);
  return rank;
}

SmallVector<std::pair<std::string, int32_t>>
LinearLayout::getFreeVariableMasks() const {
  Echelon e;
  SmallVector<std::pair<std::string, int32_t>> masks;
  for (const InDim &d : ins) {
    int32_t mask = 0;
    for (auto [i, b] : llvm::enumerate(d.bases))
      if (!e.insert(flatten(b), 0))
        mask |= int32_t(1) << i;
    masks.emplace_back(d.name, mask);
  }
  return masks;
}

int32_t LinearLayout::getZeroBasisMask(StringRef inDim) const {
  int i = getInDimIndex(inDim);
  if (i < 0)
    return 0;
  int32_t mask = 0;
  for (auto [bit, b] : llvm::enumerate(ins[i].bases))
    if (llvm::all_of(b, [](int32_t c) { return c == 0; }))
      mask |= int32_t(1) << bit;
  return mask;
}

int32_t LinearLayout::getNumConsecutiveInOut(StringRef inDim,
                                             StringRef outDim) const {
  int i = getInDimIndex(inDim), o = getOutDimIndex(outDim);
  if (i < 0 || o < 0)
    return 1;
  int32_t n = 1;
  for (auto [bit, b] : llvm::enumerate(ins[i].bases)) {
    for (unsigned k = 0; k < outs.size(); ++k)
      if (b[k] != (int(k) == o ? (int32_t(1) << bit) : 0))
        return n;
    n *= 2;
  }
  return n;
}

int32_t LinearLayout::getNumConsecutiveInOut(StringRef inDim) const {
  if (outs.empty())
    return 1;
  return getNumConsecutiveInOut(inDim, outs.back().name);
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::operator*(const LinearLayout &other) const {
  LinearLayout r;
  // Output dims: ours, then other's new ones; shared ones multiply.
  r.outs = outs;
  for (const OutDim &o : other.outs) {
    int k = r.getOutDimIndex(o.name);
    if (k < 0)
      r.outs.push_back(o);
    else
      r.outs[k].size *= o.size;
  }
  auto widen = [&](const LinearLayout &src, const Basis &b, bool scale) {
    Basis nb(r.outs.size(), 0);
    for (auto [k, o] : llvm::enumerate(src.outs)) {
      int rk = r.getOutDimIndex(o.name);
      int32_t c = b[k];
      if (scale)
        c *= getOutDimSize(o.name);
      nb[rk] = c;
    }
    return nb;
  };
  for (const InDim &d : ins) {
    InDim nd{d.name, {}};
    for (const Basis &b : d.bases)
      nd.bases.push_back(widen(*this, b, false));
    r.ins.push_back(std::move(nd));
  }
  for (const InDim &d : other.ins) {
    int i = r.getInDimIndex(d.name);
    if (i < 0) {
      r.ins.push_back(InDim{d.name, {}});
      i = r.ins.size() - 1;
    }
    for (const Basis &b : d.bases)
      r.ins[i].bases.push_back(widen(other, b, true));
  }
  assert(r.getTotalInBits() <= 63 && r.getTotalOutBits() <= 63 &&
         "product exceeds 63 bits");
  return r;
}

FailureOr<LinearLayout> LinearLayout::compose(const LinearLayout &outer,
                                              std::string *error) const {
  if (outer.ins.size() != outs.size())
    return fail(error, "cannot compose: the outer layout has " +
                           llvm::Twine(outer.ins.size()) +
                           " input dimensions, the inner one " +
                           llvm::Twine(outs.size()) + " output dimensions");
  for (const OutDim &o : outs) {
    int i = outer.getInDimIndex(o.name);
    if (i < 0)
      return fail(error, "cannot compose: the outer layout has no input "
                         "dimension '" +
                             o.name + "'");
    if (outer.getInDimSize(o.name) != o.size)
      return fail(error,
                  "cannot compose: dimension '" + o.name + "' has size " +
                      llvm::Twine(o.size) + " as output and " +
                      llvm::Twine(outer.getInDimSize(o.name)) + " as input");
  }
  LinearLayout r;
  r.outs = outer.outs;
  for (const InDim &d : ins) {
    InDim nd{d.name, {}};
    for (const Basis &b : d.bases) {
      SmallVector<int32_t> pos(outer.ins.size(), 0);
      for (auto [k, o] : llvm::enumerate(outs))
        pos[outer.getInDimIndex(o.name)] = b[k];
      nd.bases.push_back(Basis(outer.apply(pos)));
    }
    r.ins.push_back(std::move(nd));
  }
  return r;
}

FailureOr<LinearLayout> LinearLayout::pseudoInvert(std::string *error) const {
  Echelon e;
  unsigned j = 0;
  for (uint64_t c : flatColumns())
    e.insert(c, uint64_t(1) << j++);
  // Bit j of an input combination -> (input dim, bit).
  SmallVector<std::pair<unsigned, unsigned>> inBit;
  for (auto [i, d] : llvm::enumerate(ins))
    for (unsigned b = 0; b < d.bases.size(); ++b)
      inBit.emplace_back(i, b);
  LinearLayout r;
  for (const InDim &d : ins)
    r.outs.push_back(OutDim{d.name, int32_t(1) << d.bases.size()});
  for (auto [k, o] : llvm::enumerate(outs)) {
    InDim nd{o.name, {}};
    for (unsigned b = 0; (int32_t(1) << b) < o.size; ++b) {
      uint64_t v = uint64_t(1) << (outBitBase(k) + b), c = 0;
      e.reduce(v, c);
      if (v)
        return fail(error, "layout is not surjective: no input maps to " +
                               o.name + " = " + llvm::Twine(1 << b) +
                               " alone; layout " + toString());
      Basis nb(ins.size(), 0);
      for (unsigned jj = 0; jj < inBit.size(); ++jj)
        if ((c >> jj) & 1)
          nb[inBit[jj].first] |= int32_t(1) << inBit[jj].second;
      nd.bases.push_back(std::move(nb));
    }
    r.ins.push_back(std::move(nd));
  }
  return r;
}

FailureOr<LinearLayout> LinearLayout::invert(std::string *error) const {
  if (!isInjective())
    return fail(error, "layout is not injective (some input bits are "
                       "broadcast or redundant), so it has no inverse; "
                       "layout " +
                           toString());
  return pseudoInvert(error);
}

FailureOr<LinearLayout>
LinearLayout::invertAndCompose(const LinearLayout &outer,
                               std::string *error) const {
  FailureOr<LinearLayout> inv = outer.pseudoInvert(error);
  if (failed(inv))
    return failure();
  return compose(*inv, error);
}

LinearLayout LinearLayout::sublayout(ArrayRef<std::string> inDims,
                                     ArrayRef<std::string> outDims) const {
  SmallVector<unsigned> keepOut;
  LinearLayout r;
  for (auto [k, o] : llvm::enumerate(outs))
    if (llvm::is_contained(outDims, o.name)) {
      keepOut.push_back(k);
      r.outs.push_back(o);
    }
  for (const InDim &d : ins) {
    if (!llvm::is_contained(inDims, d.name))
      continue;
    InDim nd{d.name, {}};
    for (const Basis &b : d.bases) {
      Basis nb;
      for (unsigned k : keepOut)
        nb.push_back(b[k]);
      nd.bases.push_back(std::move(nb));
    }
    r.ins.push_back(std::move(nd));
  }
  return r;
}

/// The positions of `order`'s names among `names`, if it is a permutation.
template <typename DimT>
static FailureOr<SmallVector<unsigned>>
permutationOf(ArrayRef<DimT> dims, ArrayRef<std::string> order,
              std::string *error) {
  SmallVector<unsigned> perm;
  SmallVector<bool> seen(dims.size(), false);
  if (order.size() != dims.size())
    return fail(error, "expected " + llvm::Twine(dims.size()) +
                           " dimension names, got " +
                           llvm::Twine(order.size()));
  for (const std::string &n : order) {
    auto it = llvm::find_if(dims, [&](const DimT &d) { return d.name == n; });
    if (it == dims.end())
      return fail(error, "no dimension named '" + n + "'");
    unsigned p = it - dims.begin();
    if (seen[p])
      return fail(error, "dimension '" + n + "' listed twice");
    seen[p] = true;
    perm.push_back(p);
  }
  return perm;
}

FailureOr<LinearLayout> LinearLayout::transposeOuts(ArrayRef<std::string> order,
                                                    std::string *error) const {
  auto perm = permutationOf<OutDim>(outs, order, error);
  if (failed(perm))
    return failure();
  LinearLayout r;
  for (unsigned p : *perm)
    r.outs.push_back(outs[p]);
  for (const InDim &d : ins) {
    InDim nd{d.name, {}};
    for (const Basis &b : d.bases) {
      Basis nb;
      for (unsigned p : *perm)
        nb.push_back(b[p]);
      nd.bases.push_back(std::move(nb));
    }
    r.ins.push_back(std::move(nd));
  }
  return r;
}

FailureOr<LinearLayout> LinearLayout::transposeIns(ArrayRef<std::string> order,
                                                   std::string *error) const {
  auto perm = permutationOf<InDim>(ins, order, error);
  if (failed(perm))
    return failure();
  LinearLayout r;
  r.outs = outs;
  for (unsigned p : *perm)
    r.ins.push_back(ins[p]);
  return r;
}

FailureOr<LinearLayout> LinearLayout::reshapeOuts(ArrayRef<OutDim> newOuts,
                                                  std::string *error) const {
  int64_t total = 1;
  for (const OutDim &o : newOuts) {
    if (o.size <= 0 || !llvm::isPowerOf2_32(o.size))
      return fail(error, "reshaped dimension '" + o.name + "' has size " +
                             llvm::Twine(o.size) +
                             ", which is not a power of two");
    total *= o.size;
  }
  if (total != getTotalOutDimSize())
    return fail(error, "cannot reshape " + llvm::Twine(getTotalOutDimSize()) +
                           " elements into " + llvm::Twine(total));
  LinearLayout r;
  r.outs.assign(newOuts.begin(), newOuts.end());
  for (const InDim &d : ins) {
    InDim nd{d.name, {}};
    for (const Basis &b : d.bases) {
      int64_t flat = 0;
      for (auto [k, o] : llvm::enumerate(outs))
        flat = flat * o.size + b[k];
      Basis nb(newOuts.size(), 0);
      for (int k = newOuts.size() - 1; k >= 0; --k) {
        nb[k] = int32_t(flat % newOuts[k].size);
        flat /= newOuts[k].size;
      }
      nd.bases.push_back(std::move(nb));
    }
    r.ins.push_back(std::move(nd));
  }
  std::string err;
  if (failed(get(r.ins, r.outs, &err)))
    return fail(error, err);
  return r;
}

LinearLayout LinearLayout::resizeOut(StringRef name, int32_t size) const {
  assert(size > 0 && llvm::isPowerOf2_32(size));
  int k = getOutDimIndex(name);
  assert(k >= 0 && "unknown output dimension");
  LinearLayout r = *this;
  r.outs[k].size = size;
  for (InDim &d : r.ins)
    for (Basis &b : d.bases)
      b[k] &= size - 1;
  return r;
}

LinearLayout LinearLayout::renameInDim(StringRef from, StringRef to) const {
  LinearLayout r = *this;
  for (InDim &d : r.ins)
    if (d.name == from)
      d.name = to.str();
  return r;
}

LinearLayout LinearLayout::renameOutDim(StringRef from, StringRef to) const {
  LinearLayout r = *this;
  for (OutDim &o : r.outs)
    if (o.name == from)
      o.name = to.str();
  return r;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  if (outs.size() != o.outs.size() || ins.size() != o.ins.size())
    return false;
  for (auto [a, b] : llvm::zip(outs, o.outs))
    if (a.name != b.name || a.size != b.size)
      return false;
  for (auto [a, b] : llvm::zip(ins, o.ins))
    if (a.name != b.name || a.bases != b.bases)
      return false;
  return true;
}

std::string LinearLayout::toString() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (auto [i, d] : llvm::enumerate(ins)) {
    os << (i ? " " : "") << d.name << ": [";
    for (auto [j, b] : llvm::enumerate(d.bases)) {
      os << (j ? "," : "") << "[";
      llvm::interleave(b, os, ",");
      os << "]";
    }
    os << "]";
  }
  os << " ->";
  for (const OutDim &o : outs)
    os << " " << o.name << "=" << o.size;
  return s;
}
