//===- DistributedLayout.h - Where each element of a tile lives -*- C++ -*-===//
//
// The meaning of a distributed encoding (`#tile.blocked`, `#tile.slice`,
// `#tile.mfma`, `#tile.nv_mma`, `#tile.dot_operand`) for a concrete tensor
// shape: how many elements each lane holds, in which order, and which tensor
// coordinate each (register slot, lane, wave) triple holds. Layout
// assignment and the tile-to-SIMT distribution both build on it; neither
// reads an encoding's parameters.
//
// It is the encoding's `LinearLayout` (LinearLayoutConversions.h) with two
// normalizations:
//  - a slice is its parent applied to the shape with a unit dimension
//    re-inserted at the sliced position (`sliceDims`), so a slice and the
//    matching `tile.expand_dims` result share registers;
//  - register bits that map to nothing (a tile smaller than the encoding's
//    register pattern, e.g. a slice of an MFMA accumulator along M) are
//    dropped: no lane holds an element twice in its registers.
//
// Every non-zero basis of the register, lane and wave bits is a single power
// of two along a single dimension, and no two are equal; `get` rejects
// layouts that are not of this form. Hence the coordinate along dimension d
// of (slot, lane, wave) is the OR (equally: the sum) of three disjoint bit
// sets: regCoord(d, slotIndices(slot)[d]), the lane fields and the wave
// fields of d.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H
#define TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H

#include "tessel/Dialect/Tile/LinearLayout.h"
#include "tessel/Dialect/Tile/TileDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace tessel::tile {

class DistributedLayout {
public:
  /// A run of `width` consecutive input bits starting at `inBit` (of the
  /// lane or wave id) that holds coordinate bits [outBit, outBit + width)
  /// of one dimension.
  struct BitField {
    unsigned inBit, outBit, width;
  };

  /// Builds the layout for a tensor type with a distributed encoding.
  /// Returns failure (with a message in `error`) for other encodings, for
  /// shapes that are not powers of two, and for layouts not of the form
  /// above.
  static llvm::FailureOr<DistributedLayout> get(mlir::RankedTensorType type,
                                                std::string *error = nullptr);

  /// The encoding under the slices (blocked, mfma, nv_mma, dot_operand).
  mlir::Attribute getEncoding() const { return encoding; }
  /// That encoding when it is blocked, else null.
  BlockedLayoutAttr getBlocked() const {
    return llvm::dyn_cast<BlockedLayoutAttr>(encoding);
  }
  /// The map (register, lane, wave) -> (dim0, ...) over `getShape()`.
  const LinearLayout &getLinearLayout() const { return linear; }
  /// Shape in the encoding's rank (slice dims re-inserted as 1).
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  /// Dimensions of `getShape()` that are not dimensions of the tensor.
  llvm::ArrayRef<unsigned> getSliceDims() const { return sliceDims; }
  unsigned getRank() const { return shape.size(); }
  /// Lanes and waves the layout spreads over (including broadcast ones).
  int64_t getNumLanes() const;
  int64_t getNumWaves() const;

  // Registers.
  /// Elements per lane.
  int64_t getNumElems() const { return numElems; }
  /// Elements per lane along dimension d: 2^(register bits along d).
  int64_t getElemsAlong(unsigned d) const {
    return int64_t(1) << regBits[d].size();
  }
  /// Per-dimension register index of slot `slot`: the slot's bits along
  /// each dimension, compacted.
  llvm::SmallVector<int64_t> slotIndices(int64_t slot) const;
  int64_t slotOf(llvm::ArrayRef<int64_t> indices) const;
  /// The register part of the coordinate along d for register index idx_d.
  int64_t regCoord(unsigned d, int64_t idx) const;
  /// Contiguity for vector accesses: the dimension that register slot bit 0
  /// moves along (-1 with one element per lane), and the number of
  /// consecutive slots 0, 1, ... that hold consecutive elements along it.
  int getFastestDim() const;
  int64_t getContiguousElems() const;

  // Lanes and waves.
  /// The lane (wave) bits that hold coordinate bits of dimension d, as
  /// maximal runs, lowest lane bit first.
  llvm::SmallVector<BitField> laneFields(unsigned d) const {
    return fields(kLaneIn, d);
  }
  llvm::SmallVector<BitField> waveFields(unsigned d) const {
    return fields(kWaveIn, d);
  }
  /// Lanes (waves) whose ids differ only in these bits hold copies of the
  /// same elements.
  int64_t getLaneBroadcastMask() const;
  int64_t getWaveBroadcastMask() const;
  /// The lowest lane bit holding a coordinate bit of d and how many lane
  /// bits do; with `hasContiguousLaneBits(d)`, those are lane bits
  /// [laneBitBase(d), laneBitBase(d) + distinctLaneBits(d)). Same for waves.
  unsigned laneBitBase(unsigned d) const;
  unsigned distinctLaneBits(unsigned d) const;
  unsigned waveBitBase(unsigned d) const;
  unsigned distinctWaveBits(unsigned d) const;
  bool hasContiguousLaneBits(unsigned d) const {
    return fields(kLaneIn, d).size() <= 1;
  }
  bool hasContiguousWaveBits(unsigned d) const {
    return fields(kWaveIn, d).size() <= 1;
  }

  /// Where element `coords` (one per dim of `getShape()`) lives: the slot
  /// and the lowest lane and wave that hold it (others differ in broadcast
  /// bits only).
  struct Owner {
    int64_t slot, lane, wave;
  };
  Owner ownerOf(llvm::ArrayRef<int64_t> coords) const;

  /// True when both describe the same registers per lane for the same data.
  bool operator==(const DistributedLayout &o) const {
    return shape == o.shape && linear == o.linear;
  }

private:
  enum InIndex { kRegIn = 0, kLaneIn = 1, kWaveIn = 2 };
  llvm::SmallVector<BitField> fields(InIndex in, unsigned d) const;
  /// Dimension and coordinate bit of input bit `bit` of `in`; dim -1 for a
  /// broadcast bit.
  std::pair<int, unsigned> target(InIndex in, unsigned bit) const;

  mlir::Attribute encoding;
  LinearLayout linear;
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<unsigned> sliceDims;
  /// Slot bits along each dimension, lowest first.
  llvm::SmallVector<llvm::SmallVector<unsigned, 8>> regBits;
  int64_t numElems = 1;
};

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_DISTRIBUTEDLAYOUT_H
