//===- MfmaShapes.h - The MFMA instructions Tessel knows --------*- C++ -*-===//
//
// The one declaration of the CDNA MFMA instructions (f32 accumulator) that a
// `#tile.mfma` may name. The dialect verifier checks instrShape against it
// for the attribute's version; TargetInfo builds each chip's
// matrix-instruction table from it (the operand element type follows the
// chip's fp8 format), and LinearLayoutConversions gives the register layouts
// of the forms listed here.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_MFMASHAPES_H
#define TESSEL_DIALECT_TILE_MFMASHAPES_H

#include "llvm/ADT/STLExtras.h"

namespace tessel::tile {

/// Element type class of the A and B operands.
enum class MfmaOperandKind {
  /// The chip's e4m3 format (fnuz on CDNA3, fn on CDNA4): v_mfma_*_fp8_fp8.
  Fp8,
  Bf16,
  /// CDNA4's double-rate v_mfma_f32_{16x16x128,32x32x64}_f8f6f4 with e4m3
  /// A and B: each lane holds two runs of 16 K elements, K/2 apart.
  F8F6F4,
};

/// The operand kind's name in diagnostics.
inline const char *mfmaOperandKindName(MfmaOperandKind kind) {
  switch (kind) {
  case MfmaOperandKind::Fp8:
    return "fp8";
  case MfmaOperandKind::Bf16:
    return "bf16";
  case MfmaOperandKind::F8F6F4:
    return "f8f6f4";
  }
  return "?";
}

/// D[M, N] (f32) += A[M, K] * B[K, N] over one wave of 64 lanes.
struct MfmaShape {
  unsigned m, n, k;
  MfmaOperandKind operand;
  /// The first `#tile.mfma` version (3 = CDNA3, 4 = CDNA4) that has it.
  unsigned minVersion;
  /// K elements of A (and of B) each lane holds: M*K/64.
  constexpr unsigned kPerLane() const { return m * k / 64; }
  /// Consecutive K elements in one run of a lane: all of kPerLane(), except
  /// for the f8f6f4 forms (two runs of 16). The smallest kWidth of a
  /// `#tile.dot_operand` of this instruction.
  constexpr unsigned kRun() const {
    return operand == MfmaOperandKind::F8F6F4 ? 16 : kPerLane();
  }
};

/// In order of preference: the 16x16 instructions leave more M/N tiles to
/// split over waves and need fewer accumulator registers per tile.
inline constexpr MfmaShape kMfmaShapes[] = {
    {16, 16, 32, MfmaOperandKind::Fp8, 3},
    {16, 16, 16, MfmaOperandKind::Bf16, 3},
    {32, 32, 16, MfmaOperandKind::Fp8, 3},
    {32, 32, 8, MfmaOperandKind::Bf16, 3},
    {16, 16, 128, MfmaOperandKind::F8F6F4, 4},
    {32, 32, 64, MfmaOperandKind::F8F6F4, 4},
};

/// The MFMA form of shape [m, n, k] in any version, or null.
inline const MfmaShape *findMfmaShape(unsigned m, unsigned n, unsigned k) {
  for (const MfmaShape &s : kMfmaShapes)
    if (s.m == m && s.n == n && s.k == k)
      return &s;
  return nullptr;
}

/// The MFMA form of shape [m, n, k] that `#tile.mfma` version `version` has,
/// or null.
inline const MfmaShape *findMfmaShape(unsigned version, unsigned m, unsigned n,
                                      unsigned k) {
  const MfmaShape *s = findMfmaShape(m, n, k);
  return s && s->minVersion <= version ? s : nullptr;
}

} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_MFMASHAPES_H
