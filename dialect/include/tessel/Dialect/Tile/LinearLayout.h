//===- LinearLayout.h - Layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// The model
// ---------
// A layout is a linear map over GF(2) from the bits of some *input*
// coordinates to the bits of some *output* coordinates. For a distributed
// tensor the inputs are (register, lane, wave) and the outputs are the
// tensor's dimensions (dim0, dim1, ...); for a tile in shared memory the
// input is the element offset. This is the model of Triton's `LinearLayout`
// (Zhou et al., "Linear Layouts", 2025).
//
// Every dimension has a power-of-two size. An input dimension of size 2^k
// has k *bases*: basis i is the output coordinate (one integer per output
// dimension) that input value 2^i maps to. The image of an arbitrary input
// is the XOR of the bases of its set bits, taken over all input dimensions:
//
//   L(x) = XOR_{dim d, bit i of x_d set} basis(d, i)
//
// Consequences that the rest of the compiler relies on:
//  - a zero basis is a broadcast: flipping that input bit does not change the
//    element, so e.g. lanes that differ only in that bit hold copies;
//  - a layout covers every element (up to broadcast) iff it is surjective;
//  - which input holds a given element is a linear solve (`pseudoInvert`);
//  - the contiguity of a lane's registers along a dimension is read off the
//    first register bases (`getNumConsecutiveInOut`).
//
// Dimension order matters for equality and printing, and it fixes the
// flattening used by `reshapeOuts` (row-major: the last dimension is the
// most minor). Inside the algebra, the bits of all output dimensions are
// concatenated with the first dimension in the low bits; at most 63 input
// and 63 output bits are supported.
//
// Operations that can fail on user-provided data (`get`, `compose`,
// `invert`, `pseudoInvert`, `transpose*`, `reshapeOuts`) return failure with
// a message instead of asserting. The building blocks meant for code that
// already holds valid layouts (`identity1D`, `zeros1D`, `strided1D`,
// `operator*`, `apply`, `resizeOut`) assert their preconditions.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_LINEARLAYOUT_H
#define TESSEL_DIALECT_TILE_LINEARLAYOUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>

namespace tessel::tile {

class LinearLayout {
public:
  /// One basis: an output coordinate per output dimension.
  using Basis = llvm::SmallVector<int32_t, 4>;

  struct InDim {
    std::string name;
    /// bases[i] is the image of input value 2^i; the size is 2^bases.size().
    llvm::SmallVector<Basis, 8> bases;
  };
  struct OutDim {
    std::string name;
    int32_t size = 1; // a power of two
  };

  /// The layout with no dimensions (the unit of `operator*`).
  LinearLayout() = default;

  /// Checked construction: sizes are powers of two, names are unique, every
  /// basis has one coordinate per output dimension and lies inside it.
  static mlir::FailureOr<LinearLayout> get(llvm::ArrayRef<InDim> ins,
                                           llvm::ArrayRef<OutDim> outs,
                                           std::string *error = nullptr);

  /// x -> x, from `inDim` to `outDim`, both of `size` (a power of two).
  static LinearLayout identity1D(int32_t size, llvm::StringRef inDim,
                                 llvm::StringRef outDim);
  /// Every input of `inDim` (of `size`) maps to 0 of `outDim` (of size
  /// `outSize`): a broadcast.
  static LinearLayout zeros1D(int32_t size, llvm::StringRef inDim,
                              llvm::StringRef outDim, int32_t outSize = 1);
  /// A single input dimension whose bit i maps to `strides[i]` of `outDim`
  /// (each a power of two below `outSize`, or 0).
  static LinearLayout strided1D(llvm::ArrayRef<int32_t> strides,
                                llvm::StringRef inDim, llvm::StringRef outDim,
                                int32_t outSize);

  // Shape.
  llvm::ArrayRef<InDim> getInDims() const { return ins; }
  llvm::ArrayRef<OutDim> getOutDims() const { return outs; }
  bool hasInDim(llvm::StringRef name) const;
  bool hasOutDim(llvm::StringRef name) const;
  /// Index of a dimension; -1 when absent.
  int getInDimIndex(llvm::StringRef name) const;
  int getOutDimIndex(llvm::StringRef name) const;
  /// Size of a dimension (1 when absent: an absent dimension is a size-1
  /// dimension, so absence and size 1 compose the same way).
  int32_t getInDimSize(llvm::StringRef name) const;
  int32_t getOutDimSize(llvm::StringRef name) const;
  unsigned getInDimSizeLog2(llvm::StringRef name) const;
  unsigned getOutDimSizeLog2(llvm::StringRef name) const;
  int64_t getTotalInDimSize() const;
  int64_t getTotalOutDimSize() const;
  unsigned getTotalInBits() const;
  unsigned getTotalOutBits() const;
  /// basis(inDim, bit)[outDim].
  int32_t getBasis(llvm::StringRef inDim, unsigned bit,
                   llvm::StringRef outDim) const;

  // Evaluation.
  /// Image of one input coordinate per input dimension (in `getInDims()`
  /// order; each below its size). Returns one coordinate per output dim.
  llvm::SmallVector<int32_t> apply(llvm::ArrayRef<int32_t> in) const;
  /// Named form: missing input dims are 0; the result lists every output
  /// dimension with its coordinate.
  llvm::SmallVector<std::pair<std::string, int32_t>>
  apply(llvm::ArrayRef<std::pair<std::string, int32_t>> in) const;

  // Properties.
  /// Rank of the map over GF(2).
  unsigned getRank() const;
  /// Every output value is hit: every element is owned (up to broadcast).
  bool isSurjective() const { return getRank() == getTotalOutBits(); }
  /// No two inputs give the same output: no broadcast, no duplication.
  bool isInjective() const { return getRank() == getTotalInBits(); }
  bool isInvertible() const { return isSurjective() && isInjective(); }

  /// For every input dimension, the input bits that are free: linearly
  /// dependent on the bits before them (input dims in order, low bits
  /// first). A zero basis is always free. A canonical preimage
  /// (`pseudoInvert`) sets every free bit to 0.
  llvm::SmallVector<std::pair<std::string, int32_t>>
  getFreeVariableMasks() const;
  /// The bits of `inDim` whose basis is zero. Two values of `inDim` that
  /// differ only in these bits hold the same element in the same slot of
  /// every other input dimension: for lanes, the mask of lanes that hold
  /// copies.
  int32_t getZeroBasisMask(llvm::StringRef inDim) const;

  /// Number of consecutive elements along `outDim` that consecutive values
  /// of `inDim` (normally "register") hold, starting at 0 and moving only
  /// along `outDim`: 2^k for the largest k such that bit i < k of `inDim`
  /// maps to exactly 2^i of `outDim` and 0 elsewhere. This is the vector
  /// width available for an access that is contiguous along `outDim`.
  int32_t getNumConsecutiveInOut(llvm::StringRef inDim,
                                 llvm::StringRef outDim) const;
  /// Same, along the last output dimension (the fastest in row-major order).
  int32_t getNumConsecutiveInOut(llvm::StringRef inDim = "register") const;

  // Algebra.
  /// Product: input dims of both, in this order, a dim of the same name gets
  /// this layout's bits low and `other`'s bits above them; output dims of the
  /// same name multiply their sizes, `other`'s coordinates scaled above this
  /// layout's. (A * B)(a, b) = A(a) + B(b) * size(A) per shared output dim.
  LinearLayout operator*(const LinearLayout &other) const;

  /// x -> outer(this(x)). `outer`'s input dims must be this layout's output
  /// dims, by name and size (in any order).
  mlir::FailureOr<LinearLayout> compose(const LinearLayout &outer,
                                        std::string *error = nullptr) const;
  /// The inverse of a bijection: output dims become inputs and vice versa.
  mlir::FailureOr<LinearLayout> invert(std::string *error = nullptr) const;
  /// A right inverse of a surjection: for every output y, a preimage x with
  /// this(x) == y, the one whose free bits (`getFreeVariableMasks`) are 0.
  /// Fails when the layout is not surjective.
  mlir::FailureOr<LinearLayout>
  pseudoInvert(std::string *error = nullptr) const;
  /// For layouts A (this) and B with the same output dims, B surjective:
  /// the map x -> canonical preimage under B of A(x), so that
  /// B(result(x)) == A(x). With A and B two layouts of one tensor, it gives
  /// for every (register, lane, wave) of A where B holds the same element.
  mlir::FailureOr<LinearLayout>
  invertAndCompose(const LinearLayout &outer,
                   std::string *error = nullptr) const;

  /// Keeps only `inDims` (in their current order) and `outDims` (projected
  /// onto, in their current order); names not present are ignored.
  LinearLayout sublayout(llvm::ArrayRef<std::string> inDims,
                         llvm::ArrayRef<std::string> outDims) const;
  /// Reorders the output dims; `order` must be a permutation of their names.
  mlir::FailureOr<LinearLayout>
  transposeOuts(llvm::ArrayRef<std::string> order,
                std::string *error = nullptr) const;
  /// Reorders the input dims; `order` must be a permutation of their names.
  mlir::FailureOr<LinearLayout>
  transposeIns(llvm::ArrayRef<std::string> order,
               std::string *error = nullptr) const;
  /// Replaces the output dims by `newOuts` with the same total size: the
  /// row-major linear index over the old dims (last dim most minor) is
  /// re-split row-major over the new ones, as a tensor reshape does.
  mlir::FailureOr<LinearLayout> reshapeOuts(llvm::ArrayRef<OutDim> newOuts,
                                            std::string *error = nullptr) const;
  /// Changes the size of output dim `name` to `size` (a power of two):
  /// coordinates wrap modulo the new size, so a smaller size turns the bits
  /// above it into broadcasts (zero bases). Growing never changes an image.
  LinearLayout resizeOut(llvm::StringRef name, int32_t size) const;
  /// Renames a dimension (input or output).
  LinearLayout renameInDim(llvm::StringRef from, llvm::StringRef to) const;
  LinearLayout renameOutDim(llvm::StringRef from, llvm::StringRef to) const;

  bool operator==(const LinearLayout &o) const;
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  /// Readable form, e.g.
  ///   register: [[0,1],[0,2]] lane: [[0,4],[1,0]] wave: [] -> dim0=2 dim1=8
  std::string toString() const;

private:
  // The algebra's flat view: input bit j (dims in order, low bits first)
  // maps to the column cols[j]; output dim k owns bits [outBitBase(k), ...).
  llvm::SmallVector<uint64_t> flatColumns() const;
  unsigned outBitBase(unsigned k) const;
  uint64_t flatten(llvm::ArrayRef<int32_t> coords) const;
  Basis unflatten(uint64_t bits) const;

  llvm::SmallVector<InDim, 4> ins;
  llvm::SmallVector<OutDim, 4> outs;
};

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_LINEARLAYOUT_H
