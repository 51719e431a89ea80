//===- reference.cpp - Float64 references of the indexer ops --------------===//

#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace indexer {

uint8_t encodeFp8(double x, bool fnuz) {
  const int bias = fnuz ? 8 : 7;
  const double maxv = fnuz ? 240.0 : 448.0;
  const uint8_t maxBits = fnuz ? 0x7F : 0x7E;
  uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  double a = std::fabs(x);
  uint8_t bits;
  if (a >= maxv) {
    bits = maxBits;
  } else {
    int minExp = 1 - bias; // exponent of the smallest normal
    int e;
    std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
    e -= 1;            // a = g * 2^e, g in [1, 2)
    if (a == 0 || e < minExp)
      e = minExp; // subnormal: the quantum of the smallest binade
    double quantum = std::ldexp(1.0, e - 3);
    double m = std::nearbyint(a / quantum); // exact scaling; ties to even
    if (e == minExp && m < 8) {
      bits = static_cast<uint8_t>(m); // subnormal (m == 8: the min normal)
    } else {
      if (m == 16) {
        m = 8;
        ++e;
      }
      double v = std::ldexp(m, e - 3);
      bits = v > maxv ? maxBits
                      : static_cast<uint8_t>(((e + bias) << 3) |
                                             (static_cast<int>(m) - 8));
    }
  }
  if (fnuz && bits == 0)
    return 0; // e4m3fnuz has no negative zero (0x80 is NaN)
  return sign | bits;
}

double decodeFp8(uint8_t b, bool fnuz) {
  const int bias = fnuz ? 8 : 7;
  if (fnuz ? b == 0x80 : (b & 0x7F) == 0x7F)
    return NAN;
  int e = (b >> 3) & 15, m = b & 7;
  double v = e ? std::ldexp(8 + m, e - bias - 3) : std::ldexp(m, 1 - bias - 3);
  return (b & 0x80) ? -v : v;
}

float bf16ToFloat(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

float ulpDistance(float a, float b) {
  if (a == b)
    return 0;
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0))
    return INFINITY;
  return static_cast<float>(std::llabs(static_cast<long long>(ia) - ib));
}

int64_t valueOffset(bool preshuffle, int64_t o, int64_t d) {
  return preshuffle ? ((o / 16) * 8 + d / 16) * 256 + (o % 16) * 16 + d % 16
                    : o * kHeadDim + d;
}

float writerScale(const float *k, bool fnuz, bool ue8m0) {
  // fp8_max is 224 on e4m3fnuz, as vLLM's ROCm writer uses, not the
  // format's 240.
  const double fp8Max = fnuz ? 224.0 : 448.0;
  double amax = 0;
  for (int d = 0; d < kHeadDim; ++d)
    amax = std::max(amax, std::fabs(static_cast<double>(k[d])));
  // The float64 quotient of two floats rounded once to float is the
  // correctly rounded f32 quotient.
  amax = std::max(amax, static_cast<double>(1e-4f));
  float scale = static_cast<float>(amax / fp8Max);
  if (!ue8m0)
    return scale;
  double p = std::ldexp(1.0, -149);
  while (p < scale)
    p *= 2;
  return static_cast<float>(p);
}

int64_t rowLength(const std::vector<int32_t> &lens, int nextN, int64_t r) {
  int64_t b = r / nextN, j = r % nextN;
  return std::max<int64_t>(0, lens[b] - nextN + j + 1);
}

std::vector<int32_t> schedule(const std::vector<int32_t> &lens, int split,
                              int numCus) {
  const int B = static_cast<int>(lens.size());
  std::vector<int64_t> first(B + 1, 0); // segments before batch b
  for (int b = 0; b < B; ++b)
    first[b + 1] =
        first[b] + (std::max<int64_t>(lens[b], 0) + split - 1) / split;
  const int64_t S = first[B], q = S / numCus, rem = S % numCus;
  std::vector<int32_t> out;
  int b = 0;
  for (int i = 0; i <= numCus; ++i) {
    int64_t g = i < numCus ? i * q + std::min<int64_t>(i, rem) : S;
    while (b < B && first[b + 1] <= g)
      ++b;
    out.push_back(g == S ? B : b);
    out.push_back(g == S ? 0 : static_cast<int32_t>(g - first[b]));
  }
  return out;
}

std::vector<int32_t> stableTopK(const float *row, int64_t len, int k) {
  std::vector<int32_t> cols(static_cast<size_t>(std::max<int64_t>(len, 0)));
  std::iota(cols.begin(), cols.end(), 0);
  auto before = [&](int32_t a, int32_t b) {
    return row[a] != row[b] ? row[a] > row[b] : a < b;
  };
  if (static_cast<int64_t>(cols.size()) > k) {
    std::nth_element(cols.begin(), cols.begin() + k, cols.end(), before);
    cols.resize(k);
  }
  std::sort(cols.begin(), cols.end());
  return cols;
}

} // namespace indexer
