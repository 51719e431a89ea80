//===- Fp8Reference.h - Independent float64 reference for the tests -------===//
//
// fp8 encoding by exhaustive search over all 256 codes (not by bit tricks),
// and the indexer_k_cache_write reference in float64.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_FP8REFERENCE_H
#define TESSEL_TEST_FP8REFERENCE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tessel_test {

enum class Fp8 { E4M3FN, E4M3FNUZ };

/// The largest finite value of the format (saturation bound).
inline double fp8Max(Fp8 f) { return f == Fp8::E4M3FN ? 448.0 : 240.0; }

/// The writer's fp8_max (DESIGN.md 3.4, vLLM's writers): 448 for e4m3fn and
/// 224, not 240, for e4m3fnuz.
inline double scaleFp8Max(Fp8 f) { return f == Fp8::E4M3FN ? 448.0 : 224.0; }

/// The per-token scale in f32: max(amax, 1e-4f) / fp8_max rounded once to
/// f32 (the double quotient of two floats rounds like the f32 division),
/// then with ue8m0 the smallest power of two >= it (found by doubling, not
/// by bit tricks).
inline float referenceScale(Fp8 f, double amax, bool ue8m0) {
  double a = std::fmax(amax, static_cast<double>(1e-4f));
  float s = static_cast<float>(a / scaleFp8Max(f));
  if (!ue8m0)
    return s;
  double p = std::ldexp(1.0, -149);
  while (p < s)
    p *= 2;
  return static_cast<float>(p);
}

/// Byte offset of value (token-in-block o, dim d) in a block's value region:
/// plain [block_size][128], or preshuffled [block_size/16][8][16][16].
inline int64_t valueOffset(bool preshuffle, int64_t o, int64_t d) {
  if (!preshuffle)
    return o * 128 + d;
  return ((o / 16) * 8 + d / 16) * 256 + (o % 16) * 16 + d % 16;
}

/// Decodes a code; NaN for NaN codes.
inline double fp8Decode(Fp8 f, uint8_t c) {
  int sign = c >> 7, e = (c >> 3) & 15, m = c & 7;
  int bias = f == Fp8::E4M3FN ? 7 : 8;
  if (f == Fp8::E4M3FN && e == 15 && m == 7)
    return NAN;
  if (f == Fp8::E4M3FNUZ && c == 0x80)
    return NAN;
  double v = e == 0 ? std::ldexp(m / 8.0, 1 - bias)
                    : std::ldexp(1.0 + m / 8.0, e - bias);
  return sign ? -v : v;
}

/// Round to nearest, ties to even code, saturating to the largest finite
/// value: the nearest of all non-negative finite codes, then the sign.
inline uint8_t fp8Encode(Fp8 f, double x) {
  double a = std::fabs(x);
  if (a >= fp8Max(f))
    a = fp8Max(f);
  int best = 0;
  double bestErr = INFINITY;
  for (int c = 0; c < 128; ++c) {
    double v = fp8Decode(f, static_cast<uint8_t>(c));
    if (std::isnan(v))
      continue;
    double err = std::fabs(v - a);
    if (err < bestErr || (err == bestErr && (c & 1) == 0 && (best & 1))) {
      best = c;
      bestErr = err;
    }
  }
  bool neg = std::signbit(x);
  if (neg && !(f == Fp8::E4M3FNUZ && best == 0))
    best |= 0x80;
  return static_cast<uint8_t>(best);
}

inline double bf16ToDouble(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

/// The reference cache contents after the op, starting from `cache`.
/// k is read through get(t, d).
template <typename Get>
void referenceKCacheWrite(Fp8 f, int64_t T, Get get, const int64_t *slots,
                          int64_t numBlocks, int64_t blockSize,
                          std::vector<uint8_t> &cache, bool preshuffle = false,
                          bool ue8m0 = false) {
  const int64_t D = 128, numSlots = numBlocks * blockSize;
  for (int64_t t = 0; t < T; ++t) {
    int64_t s = slots[t];
    if (s < 0 || s >= numSlots)
      continue;
    double amax = 0;
    for (int64_t d = 0; d < D; ++d)
      amax = std::fmax(amax, std::fabs(get(t, d)));
    float sc = referenceScale(f, amax, ue8m0);
    int64_t blk = s / blockSize, off = s % blockSize;
    uint8_t *base = cache.data() + blk * blockSize * (D + 4);
    for (int64_t d = 0; d < D; ++d)
      base[valueOffset(preshuffle, off, d)] =
          fp8Encode(f, get(t, d) / static_cast<double>(sc));
    std::memcpy(base + blockSize * D + off * 4, &sc, 4);
  }
}

} // namespace tessel_test

#endif
