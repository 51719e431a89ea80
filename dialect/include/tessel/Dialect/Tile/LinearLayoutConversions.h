//===- LinearLayoutConversions.h - Encodings as layouts ---------*- C++ -*-===//
//
// Every `#tile.*` layout encoding, applied to a tensor shape, as a
// `LinearLayout`:
//
//  - distributed encodings (blocked, slice, mfma, nv_mma, dot_operand) map
//    the input dims `register`, `lane`, `wave` (always present, in this
//    order, possibly of size 1) to the output dims `dim0`, ..., `dim<r-1>`
//    of the tensor;
//  - `#tile.shared` maps the input dim `offset` (the element offset in the
//    buffer) to the same output dims, bijectively.
//
// The number of lanes is the encoding's own: the product of threadsPerWave
// for blocked, 64 for mfma, 32 for nv_mma. Every shape must be a power of
// two. A tensor smaller than the encoding's tile wraps (coordinates are
// taken modulo the shape), which makes the extra bits broadcasts; a larger
// tensor repeats the tile in registers, as below.
//
// blocked: exactly `DistributedLayout`'s numbering. Registers are numbered
//   with order[0] fastest; along each dim d a lane's register index counts
//   first the min(sizePerThread[d], S_d) elements of one block, then the
//   repeats (stride sizePerThread*threadsPerWave*wavesPerCTA). Lane and wave
//   ids are split into per-dim fields, order[0] in the low bits.
// slice: the parent applied to the shape with a unit dim inserted at `dim`,
//   with that dim dropped: the parent's bits along it become broadcasts.
// mfma / nv_mma (accumulator) and dot_operand (A: [M, K], B: [K, N]):
//   one instruction's tile is distributed over the lanes (and, for wgmma,
//   over the 4 warps of a warpgroup) as the hardware has it. Waves own
//   contiguous blocks of the tensor: each wave's block holds `reps` tiles in
//   its registers, after the instruction's own registers, in row-major order
//   over the tiles (the last dim's repeats fastest). Wave ids are row-major
//   over wavesPerCTA = [along M, along N] (the N part in the low bits); an
//   operand is broadcast over the waves along the dimension it lacks (A over
//   the N waves, B over the M waves). For wgmma (nv_mma version 3),
//   wavesPerCTA counts warps, wavesPerCTA[0] is a multiple of 4, and wave
//   bits 0-1 are the warp within its warpgroup (rows 16 and 32 of the 64).
//   `transposed` mfma swaps the roles of M and N in the accumulator tile.
//   mfma version 4 (CDNA4) uses the CDNA3 layouts of these four
//   instructions, whose encodings CDNA4 keeps (amd-isa-facts/README.md);
//   they have not been checked against the CDNA4 ISA guide here.
//   dot_operand's kWidth is the number of consecutive K elements a lane
//   holds per instruction group: for MFMA at least the instruction's own
//   (K*M/64: 8 for fp8, 4 for bf16; a larger kWidth makes one lane's run
//   span several instructions); for mma.sync exactly the elements of one
//   32-bit register (K/8: 4 for fp8 m16n8k32, 2 for f16 m16n8k16). wgmma
//   operands are read from shared memory and have no register layout here.
// shared: for the two fastest dims c = order[0] (size C) and r = order[1],
//   element (r, c) is at offset
//     r * C + (((c / v) XOR phase(r)) mod (C / v)) * v + c mod v,
//     v = min(vec, C),  phase(r) = (r / perPhase) mod maxPhase,
//   and the slower dims follow in `order` without swizzle (row-major in
//   order). maxPhase = 1 is the plain layout.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_LINEARLAYOUTCONVERSIONS_H
#define TESSEL_DIALECT_TILE_LINEARLAYOUTCONVERSIONS_H

#include "tessel/Dialect/Tile/LinearLayout.h"
#include "tessel/Dialect/Tile/TileDialect.h"

namespace tessel::tile {

/// Input dimension names.
inline constexpr llvm::StringLiteral kRegisterDim = "register";
inline constexpr llvm::StringLiteral kLaneDim = "lane";
inline constexpr llvm::StringLiteral kWaveDim = "wave";
inline constexpr llvm::StringLiteral kOffsetDim = "offset";
/// Output dimension d of a tensor: "dim<d>".
std::string tensorDimName(unsigned d);

/// The layout of a tensor of `shape` with encoding `encoding`. Fails with a
/// message in `error` for unsupported encodings, shapes that are not powers
/// of two, or a rank that does not match.
mlir::FailureOr<LinearLayout> toLinearLayout(llvm::ArrayRef<int64_t> shape,
                                             mlir::Attribute encoding,
                                             std::string *error = nullptr);
inline mlir::FailureOr<LinearLayout>
toLinearLayout(mlir::RankedTensorType type, std::string *error = nullptr) {
  return toLinearLayout(type.getShape(), type.getEncoding(), error);
}

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_LINEARLAYOUTCONVERSIONS_H
