//===- DistributedLayout.cpp - Where each element of a tile lives ---------===//

#include "tessel/Dialect/Tile/DistributedLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

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
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(enc);
  if (!blocked)
    return fail("tensor has no blocked or slice layout");
  if (blocked.getRank() != shape.size())
    return fail("layout rank " + Twine(blocked.getRank()) +
                " does not match tensor rank " + Twine(shape.size()));
  for (int64_t s : shape)
    if (s <= 0 || !llvm::isPowerOf2_64(s))
      return fail("dimension of size " + Twine(s) +
                  " is not a power of two; distributed tiles need power-of-two "
                  "shapes");
  llvm::sort(sliceDims);
  l.blocked = blocked;
  l.shape = shape;
  l.sliceDims = sliceDims;
  unsigned rank = shape.size();
  l.elemsAlong.assign(rank, 1);
  l.slotStride.assign(rank, 1);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t size = blocked.getSizePerThread()[d];
    int64_t coverage =
        size * blocked.getThreadsPerWave()[d] * blocked.getWavesPerCTA()[d];
    int64_t reps = std::max<int64_t>(1, shape[d] / coverage);
    l.elemsAlong[d] = reps * std::min<int64_t>(size, shape[d]);
  }
  int64_t stride = 1;
  for (unsigned d : blocked.getOrder()) {
    l.slotStride[d] = stride;
    stride *= l.elemsAlong[d];
  }
  l.numElems = stride;
  return l;
}

SmallVector<int64_t> DistributedLayout::slotIndices(int64_t slot) const {
  SmallVector<int64_t> idx(getRank());
  for (unsigned d = 0; d < getRank(); ++d)
    idx[d] = (slot / slotStride[d]) % elemsAlong[d];
  return idx;
}

int64_t DistributedLayout::slotOf(ArrayRef<int64_t> indices) const {
  int64_t slot = 0;
  for (unsigned d = 0; d < getRank(); ++d)
    slot += indices[d] * slotStride[d];
  return slot;
}

int64_t DistributedLayout::regCoord(unsigned d, int64_t idx) const {
  int64_t size = blocked.getSizePerThread()[d];
  int64_t inLane = std::min<int64_t>(size, shape[d]);
  int64_t coverage =
      size * blocked.getThreadsPerWave()[d] * blocked.getWavesPerCTA()[d];
  return (idx / inLane) * coverage + idx % inLane;
}

unsigned DistributedLayout::laneBitBase(unsigned d) const {
  unsigned bit = 0;
  for (unsigned o : blocked.getOrder()) {
    if (o == d)
      return bit;
    bit += llvm::Log2_32(blocked.getThreadsPerWave()[o]);
  }
  return bit;
}

unsigned DistributedLayout::distinctLaneBits(unsigned d) const {
  int64_t size = blocked.getSizePerThread()[d];
  int64_t distinct = std::max<int64_t>(1, shape[d] / size);
  distinct = std::min<int64_t>(distinct, blocked.getThreadsPerWave()[d]);
  return llvm::Log2_64(distinct);
}

unsigned DistributedLayout::waveBitBase(unsigned d) const {
  unsigned bit = 0;
  for (unsigned o : blocked.getOrder()) {
    if (o == d)
      return bit;
    bit += llvm::Log2_32(blocked.getWavesPerCTA()[o]);
  }
  return bit;
}

unsigned DistributedLayout::distinctWaveBits(unsigned d) const {
  int64_t perWave =
      int64_t(blocked.getSizePerThread()[d]) * blocked.getThreadsPerWave()[d];
  int64_t distinct = std::max<int64_t>(1, shape[d] / perWave);
  distinct = std::min<int64_t>(distinct, blocked.getWavesPerCTA()[d]);
  return llvm::Log2_64(distinct);
}
