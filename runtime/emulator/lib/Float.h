//===- Float.h - Small float formats of the emulator (internal) ---*- C++
//-*-===//
//
// Encode/decode of f16, bf16 and the fp8 formats. Encoding rounds to nearest
// even from a double (so f32 inputs are rounded exactly once).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_EMULATOR_FLOAT_H
#define TESSEL_EMULATOR_FLOAT_H

#include "Program.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tessel::emu::detail {

struct MiniFormat {
  int eb, mb, bias;
  enum Kind { IEEE, FN, FNUZ } kind;
};

inline MiniFormat miniFormat(FK f) {
  switch (f) {
  case FK::F16:
    return {5, 10, 15, MiniFormat::IEEE};
  case FK::BF16:
    return {8, 7, 127, MiniFormat::IEEE};
  case FK::E4M3FN:
    return {4, 3, 7, MiniFormat::FN};
  case FK::E4M3FNUZ:
    return {4, 3, 8, MiniFormat::FNUZ};
  case FK::E5M2:
    return {5, 2, 15, MiniFormat::IEEE};
  case FK::E5M2FNUZ:
    return {5, 2, 16, MiniFormat::FNUZ};
  default:
    return {11, 52, 1023, MiniFormat::IEEE};
  }
}

/// Encodes `v` into the minifloat format, rounding to nearest even. With
/// `saturate`, finite overflow and infinities clamp to the largest finite
/// value; NaN always stays NaN.
inline uint64_t encodeMini(double v, const MiniFormat &F, bool saturate) {
  const uint64_t signBit = 1ull << (F.eb + F.mb);
  const uint64_t expMax = (1ull << F.eb) - 1;
  const uint64_t mantMask = (1ull << F.mb) - 1;
  uint64_t maxCode, nanCode, infCode;
  switch (F.kind) {
  case MiniFormat::IEEE:
    maxCode = ((expMax - 1) << F.mb) | mantMask;
    nanCode = (expMax << F.mb) | (1ull << (F.mb - 1));
    infCode = expMax << F.mb;
    break;
  case MiniFormat::FN:
    maxCode = (expMax << F.mb) | (mantMask - 1);
    nanCode = (expMax << F.mb) | mantMask;
    infCode = nanCode;
    break;
  default: // FNUZ
    maxCode = (expMax << F.mb) | mantMask;
    nanCode = signBit;
    infCode = signBit;
    break;
  }
  bool neg = std::signbit(v);
  uint64_t sign = neg ? signBit : 0;
  if (std::isnan(v))
    return F.kind == MiniFormat::FNUZ ? nanCode : (nanCode | sign);
  double a = std::fabs(v);
  uint64_t mag;
  if (std::isinf(a)) {
    if (saturate)
      return maxCode | sign;
    return F.kind == MiniFormat::FNUZ ? nanCode : (infCode | sign);
  }
  if (a == 0) {
    mag = 0;
  } else {
    int e;
    std::frexp(a, &e);
    int E = e - 1; // a in [2^E, 2^(E+1))
    int emin = 1 - F.bias;
    if (E < emin) {
      double n = std::ldexp(a, F.mb - emin);
      mag = (uint64_t)std::nearbyint(n); // may become the min normal
    } else if (E - emin > (int)expMax + 2) {
      mag = maxCode + 1; // overflow
    } else {
      double n = std::ldexp(a, F.mb - E); // in [2^mb, 2^(mb+1))
      uint64_t r = (uint64_t)std::nearbyint(n);
      if (r == (2ull << F.mb)) {
        r >>= 1;
        ++E;
      }
      uint64_t ef = (uint64_t)(E + F.bias);
      if (ef > expMax)
        mag = maxCode + 1;
      else
        mag = (ef << F.mb) | (r & mantMask);
    }
  }
  if (mag > maxCode) {
    if (saturate)
      return maxCode | sign;
    return F.kind == MiniFormat::FNUZ ? nanCode : (infCode | sign);
  }
  if (mag == 0 && F.kind == MiniFormat::FNUZ)
    return 0; // no negative zero
  return mag | sign;
}

inline double decodeMini(uint64_t bits, const MiniFormat &F) {
  const uint64_t signBit = 1ull << (F.eb + F.mb);
  const uint64_t expMax = (1ull << F.eb) - 1;
  const uint64_t mantMask = (1ull << F.mb) - 1;
  bits &= (signBit << 1) - 1;
  bool neg = bits & signBit;
  uint64_t e = (bits >> F.mb) & expMax, m = bits & mantMask;
  if (F.kind == MiniFormat::FNUZ && bits == signBit)
    return NAN;
  if (F.kind == MiniFormat::FN && e == expMax && m == mantMask)
    return neg ? -NAN : NAN;
  if (F.kind == MiniFormat::IEEE && e == expMax)
    return m ? (neg ? -NAN : NAN) : (neg ? -INFINITY : INFINITY);
  double v =
      e == 0 ? std::ldexp((double)m, 1 - F.bias - F.mb)
             : std::ldexp((double)(m | (1ull << F.mb)), (int)e - F.bias - F.mb);
  return neg ? -v : v;
}

inline float bitsToF32(uint64_t b) {
  uint32_t u = (uint32_t)b;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t f32ToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double bitsToF64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t f64ToBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

} // namespace tessel::emu::detail

#endif // TESSEL_EMULATOR_FLOAT_H
