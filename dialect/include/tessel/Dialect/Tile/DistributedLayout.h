//===- DistributedLayout.h - Where each element of a tile lives --*- C++
//-*-===//
//
// The meaning of `#tile.blocked` and `#tile.slice` encodings for a concrete
// tensor shape: how many elements each lane holds, in which order, and which
// tensor coordinate each (register slot, lane, wave) triple holds. Layout
// assignment and the tile-to-SIMT distribution both build on it.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H
#define TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H

#include "tessel/Dialect/Tile/TileDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace tessel::tile {

/// A blocked layout applied to a shape. A slice layout is represented as its
/// parent applied to the shape with a unit dimension re-inserted at the
/// sliced position (`sliceDims` lists such dimensions, outermost first), so a
/// slice and the corresponding `tile.expand_dims` result share registers.
///
/// Along dimension d a lane holds n_d = reps_d * min(sizePerThread_d, S_d)
/// elements with reps_d = ceil(S_d / coverage_d); register slot index
/// idx_d = rep * min(size, S) + w has the coordinate
///   (rep * coverage_d + w + lanePart_d + wavePart_d) mod S_d,
/// where lanePart_d = threadIdx_d * size_d and wavePart_d = waveIdx_d *
/// size_d * threads_d. Coordinates wrap (replicate) when the layout covers
/// more than the shape. Slots are numbered with `order[0]` fastest.
class DistributedLayout {
public:
  /// Builds the layout for a tensor type with a blocked or slice encoding.
  /// Returns failure (with a message in `error`) for other encodings or
  /// shapes that are not powers of two.
  static llvm::FailureOr<DistributedLayout> get(mlir::RankedTensorType type,
                                                std::string *error = nullptr);

  BlockedLayoutAttr getBlocked() const { return blocked; }
  /// Shape in the blocked layout's rank (slice dims re-inserted as 1).
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  /// Dimensions of `getShape()` that are not dimensions of the tensor.
  llvm::ArrayRef<unsigned> getSliceDims() const { return sliceDims; }
  unsigned getRank() const { return shape.size(); }

  /// Elements per lane.
  int64_t getNumElems() const { return numElems; }
  /// Elements per lane along dimension d (n_d).
  int64_t getElemsAlong(unsigned d) const { return elemsAlong[d]; }
  /// Stride of dimension d in the register slot numbering.
  int64_t getSlotStride(unsigned d) const { return slotStride[d]; }

  /// Per-dimension register index of slot `slot`.
  llvm::SmallVector<int64_t> slotIndices(int64_t slot) const;
  int64_t slotOf(llvm::ArrayRef<int64_t> indices) const;
  /// The register part of the coordinate along d for register index idx_d.
  int64_t regCoord(unsigned d, int64_t idx) const;

  /// Lane-id bit where dimension d's thread index starts, and the number of
  /// lane bits that hold distinct coordinates along d.
  unsigned laneBitBase(unsigned d) const;
  unsigned distinctLaneBits(unsigned d) const;
  unsigned waveBitBase(unsigned d) const;
  unsigned distinctWaveBits(unsigned d) const;

  /// True when both describe the same registers per lane for the same data:
  /// same blocked parameters and same shape.
  bool operator==(const DistributedLayout &o) const {
    return blocked == o.blocked && shape == o.shape;
  }

private:
  BlockedLayoutAttr blocked;
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<unsigned> sliceDims;
  llvm::SmallVector<int64_t> elemsAlong, slotStride;
  int64_t numElems = 1;
};

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H
