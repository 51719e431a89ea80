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
//   Version 4 adds gfx950's double-rate fp8 instructions 16x16x128 and
//   32x32x64 (`v_mfma_f32_*_f8f6f4` with e4m3 A and B, see
//   `isMfmaF8F6F4Shape`). Their accumulator is laid out as the CDNA3 one of
//   the same M x N; their operands hold 32 K elements per lane in two runs
//   of 16, K/2 apart (`mfmaInstrLayout`).
//   dot_operand's kWidth is the number of consecutive K elements a lane
//   holds per instruction group: for MFMA at least the instruction's own
//   (K*M/64: 8 for fp8, 4 for bf16; a larger kWidth makes one lane's run
//   span several instructions). The f8f6f4 instructions take kWidth >= 16:
//   with 16, the instruction tile is the hardware's (both runs of a lane in
//   32 consecutive registers, the repeats over whole instruction tiles); a
//   larger kWidth makes a lane's run cover both runs of an instruction, or
//   several instructions, and the instruction then multiplies a K
//   permutation that A and B share, which leaves the dot product unchanged.
//   For mma.sync kWidth is exactly the elements of one
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

//===----------------------------------------------------------------------===//
// One MFMA instruction
//===----------------------------------------------------------------------===//

/// True for gfx950's (CDNA4) double-rate fp8 shapes [16, 16, 128] and
/// [32, 32, 64]: `v_mfma_f32_16x16x128_f8f6f4` and
/// `v_mfma_f32_32x32x64_f8f6f4` with e4m3 A and B (`amdgpu.mfma` with
/// `vector<32xf8E4M3FN>` operands).
bool isMfmaF8F6F4Shape(llvm::ArrayRef<unsigned> instrShape);

/// The number of consecutive K elements one lane holds in one operand of
/// the MFMA instruction `instrShape` = [M, N, K] (M == N): K * M / 64 for
/// the CDNA3 shapes, 16 for the f8f6f4 shapes (whose lanes hold two such
/// runs). The smallest kWidth a `#tile.dot_operand` of it accepts.
unsigned mfmaNativeKWidth(llvm::ArrayRef<unsigned> instrShape);

/// A dot operand with kWidth == mfmaNativeKWidth tiles whole instruction
/// tiles: instruction tile t of a wave's block (row-major over the tiles,
/// the last dim fastest) is registers [t * R, (t + 1) * R), R = M * K / 64,
/// in the order of `mfmaInstrLayout`'s `register`; likewise the
/// accumulator, R = M * N / 64.

/// Which matrix of an MFMA instruction a layout describes.
enum class MfmaMatrix { A, B, D };

/// The register layout of one MFMA instruction `instrShape` = [M, N, K]
/// (one of the shapes #tile.mfma accepts), as AMD publishes it: in dims
/// `register` (the element index in the lane's `amdgpu.mfma` operand or
/// result vector; for A and B its bytes fill the VGPRs little-endian),
/// `lane` (64) and `wave` (1); out dims `dim0`, `dim1` of A [M, K], B [K, N]
/// or D [M, N]. Invertible. Sources: the CDNA3 calculator tables
/// (amd-isa-facts/) and, for the f8f6f4 shapes, the tables recorded in
/// runtime/emulator/README.md. Fails with a message in `error` for any
/// other shape.
mlir::FailureOr<LinearLayout>
mfmaInstrLayout(llvm::ArrayRef<unsigned> instrShape, MfmaMatrix which,
                std::string *error = nullptr);

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_LINEARLAYOUTCONVERSIONS_H
