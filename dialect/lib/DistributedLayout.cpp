//===- DistributedLayout.cpp - Where each element of a tile lives ---------===//

#include "tessel/Dialect/Tile/DistributedLayout.h"

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

namespace {

bool isZero(const LinearLayout::Basis &b) {
  return llvm::all_of(b, [](int32_t c) { return c == 0; });
}

} // namespace

FailureOr<DistributedLayout> DistributedLayout::get(RankedTensorType type,
                                                    std::string *error) {
  auto fail = [&](const Twine &msg) -> FailureOr<DistributedLayout> {
    if (error)
      *error = msg.str();
    return failure();
  };
  DistributedLayout l;
  SmallVector<int64_t> shape(type.getShape());
  Attribute enc = type.getEncoding();
  SmallVector<unsigned> sliceDims;
  // Peel slices: each re-inserts a unit dimension of its parent.
  while (auto slice = dyn_cast_or_null<SliceLayoutAttr>(enc)) {
    if (slice.getDim() > shape.size())
      return fail("slice dimension out of range");
    shape.insert(shape.begin() + slice.getDim(), 1);
    for (unsigned &d : sliceDims)
      if (d >= slice.getDim())
        ++d;
    sliceDims.push_back(slice.getDim());
    enc = slice.getParent();
  }
  if (!isa_and_nonnull<BlockedLayoutAttr, MfmaLayoutAttr, NvMmaLayoutAttr,
                       DotOperandLayoutAttr, LinearEncodingAttr>(enc))
    return fail("tensor has no distributed layout (blocked, slice, mfma, "
                "nv_mma, dot_operand or linear)");
  for (int64_t s : shape)
    if (s <= 0 || !llvm::isPowerOf2_64(s))
      return fail("dimension of size " + Twine(s) +
                  " is not a power of two; distributed tiles need power-of-two "
                  "shapes");
  std::string why;
  FailureOr<LinearLayout> full = toLinearLayout(shape, enc, &why);
  if (failed(full))
    return fail(why);
  ArrayRef<LinearLayout::InDim> ins = full->getInDims();
  if (ins.size() != 3 || ins[kRegIn].name != kRegisterDim ||
      ins[kLaneIn].name != kLaneDim || ins[kWaveIn].name != kWaveDim)
    return fail("encoding is not a (register, lane, wave) layout");
  // Drop register bits that hold nothing new, and check the form.
  SmallVector<LinearLayout::InDim, 3> kept(ins.begin(), ins.end());
  kept[kRegIn].bases.clear();
  for (const LinearLayout::Basis &b : ins[kRegIn].bases)
    if (!isZero(b))
      kept[kRegIn].bases.push_back(b);
  SmallVector<int64_t> seen; // (dim << 32 | bit) of every non-zero basis
  for (const LinearLayout::InDim &in : kept)
    for (const LinearLayout::Basis &b : in.bases) {
      if (isZero(b))
        continue;
      int dim = -1;
      for (auto [d, c] : llvm::enumerate(b)) {
        if (c == 0)
          continue;
        if (dim >= 0 || !llvm::isPowerOf2_32(c))
          return fail("layout bit of '" + in.name +
                      "' maps to a combination of coordinates; distribution "
                      "needs each bit to hold one coordinate bit");
        dim = d;
      }
      int64_t key = (int64_t(dim) << 32) | llvm::Log2_32(b[dim]);
      if (llvm::is_contained(seen, key))
        return fail("two layout bits hold the same coordinate bit; "
                    "distribution needs them distinct");
      seen.push_back(key);
    }
  FailureOr<LinearLayout> linear =
      LinearLayout::get(kept, full->getOutDims(), &why);
  if (failed(linear))
    return fail(why);
  llvm::sort(sliceDims);
  l.encoding = enc;
  l.linear = *linear;
  l.shape = shape;
  l.sliceDims = sliceDims;
  l.regBits.assign(shape.size(), {});
  for (unsigned bit = 0; bit < kept[kRegIn].bases.size(); ++bit)
    l.regBits[l.target(kRegIn, bit).first].push_back(bit);
  l.numElems = int64_t(1) << kept[kRegIn].bases.size();
  return l;
}

std::pair<int, unsigned> DistributedLayout::target(InIndex in,
                                                   unsigned bit) const {
  const LinearLayout::Basis &b = linear.getInDims()[in].bases[bit];
  for (auto [d, c] : llvm::enumerate(b))
    if (c != 0)
      return {int(d), llvm::Log2_32(c)};
  return {-1, 0};
}

int64_t DistributedLayout::getNumLanes() const {
  return int64_t(1) << linear.getInDims()[kLaneIn].bases.size();
}

int64_t DistributedLayout::getNumWaves() const {
  return int64_t(1) << linear.getInDims()[kWaveIn].bases.size();
}

SmallVector<int64_t> DistributedLayout::slotIndices(int64_t slot) const {
  SmallVector<int64_t> idx(getRank(), 0);
  for (unsigned d = 0; d < getRank(); ++d)
    for (auto [i, bit] : llvm::enumerate(regBits[d]))
      idx[d] |= ((slot >> bit) & 1) << i;
  return idx;
}

int64_t DistributedLayout::slotOf(ArrayRef<int64_t> indices) const {
  int64_t slot = 0;
  for (unsigned d = 0; d < getRank(); ++d)
    for (auto [i, bit] : llvm::enumerate(regBits[d]))
      slot |= ((indices[d] >> i) & 1) << bit;
  return slot;
}

int64_t DistributedLayout::regCoord(unsigned d, int64_t idx) const {
  int64_t c = 0;
  for (auto [i, bit] : llvm::enumerate(regBits[d]))
    if ((idx >> i) & 1)
      c |= int64_t(1) << target(kRegIn, bit).second;
  return c;
}

int DistributedLayout::getFastestDim() const {
  if (numElems == 1)
    return -1;
  return target(kRegIn, 0).first;
}

int64_t DistributedLayout::getContiguousElems() const {
  int f = getFastestDim();
  if (f < 0)
    return 1;
  return linear.getNumConsecutiveInOut(kRegisterDim, tensorDimName(f));
}

SmallVector<DistributedLayout::BitField>
DistributedLayout::fields(InIndex in, unsigned d) const {
  SmallVector<BitField> out;
  for (unsigned bit = 0; bit < linear.getInDims()[in].bases.size(); ++bit) {
    auto [dim, coordBit] = target(in, bit);
    if (dim != int(d))
      continue;
    if (!out.empty() && out.back().inBit + out.back().width == bit &&
        out.back().outBit + out.back().width == coordBit) {
      ++out.back().width;
      continue;
    }
    out.push_back({bit, coordBit, 1});
  }
  return out;
}

int64_t DistributedLayout::getLaneBroadcastMask() const {
  return linear.getZeroBasisMask(kLaneDim);
}

int64_t DistributedLayout::getWaveBroadcastMask() const {
  return linear.getZeroBasisMask(kWaveDim);
}

unsigned DistributedLayout::laneBitBase(unsigned d) const {
  SmallVector<BitField> f = fields(kLaneIn, d);
  return f.empty() ? 0 : f.front().inBit;
}

unsigned DistributedLayout::distinctLaneBits(unsigned d) const {
  unsigned n = 0;
  for (const BitField &f : fields(kLaneIn, d))
    n += f.width;
  return n;
}

unsigned DistributedLayout::waveBitBase(unsigned d) const {
  SmallVector<BitField> f = fields(kWaveIn, d);
  return f.empty() ? 0 : f.front().inBit;
}

unsigned DistributedLayout::distinctWaveBits(unsigned d) const {
  unsigned n = 0;
  for (const BitField &f : fields(kWaveIn, d))
    n += f.width;
  return n;
}

DistributedLayout::Owner
DistributedLayout::ownerOf(ArrayRef<int64_t> coords) const {
  Owner o{0, 0, 0};
  int64_t *parts[3] = {&o.slot, &o.lane, &o.wave};
  for (unsigned in = 0; in < 3; ++in)
    for (unsigned bit = 0; bit < linear.getInDims()[in].bases.size(); ++bit) {
      auto [dim, coordBit] = target(InIndex(in), bit);
      if (dim >= 0 && ((coords[dim] >> coordBit) & 1))
        *parts[in] |= int64_t(1) << bit;
    }
  return o;
}
