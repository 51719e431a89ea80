//===- Fp8Ref.h - Reference e4m3fn / e4m3fnuz codec for tests ---*- C++ -*-===//
//
// Decodes from the textbook definition of each format and rounds by
// exhaustive nearest-value search (ties to the even code), independently of
// the emulator's encoder.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_EMULATOR_FP8REF_H
#define TESSEL_TEST_EMULATOR_FP8REF_H

#include <cmath>

namespace tessel::emu::test {

struct Fp8Ref {
  bool fnuz; // false: OCP e4m3fn (bias 7, NaN = S.1111.111, max 448)
             // true: e4m3fnuz (bias 8, NaN = 0x80 only, max 240)
  double value(int code) const {
    int s = code >> 7, e = (code >> 3) & 15, m = code & 7;
    if (fnuz && code == 0x80)
      return NAN;
    if (!fnuz && e == 15 && m == 7)
      return NAN;
    int bias = fnuz ? 8 : 7;
    double v = e == 0 ? (m / 8.0) * std::pow(2.0, 1 - bias)
                      : (1 + m / 8.0) * std::pow(2.0, e - bias);
    return s ? -v : v;
  }
  double maxFinite() const { return fnuz ? 240.0 : 448.0; }
  // Saturating round-to-nearest-even by exhaustive search.
  int encode(double x) const {
    if (std::isnan(x))
      return fnuz ? 0x80 : (std::signbit(x) ? 0xff : 0x7f);
    if (std::fabs(x) >= maxFinite()) {
      for (int c = 0; c < 256; ++c)
        if (value(c) == std::copysign(maxFinite(), x))
          return c;
    }
    int best = -1;
    double bestD = INFINITY;
    for (int c = 0; c < 256; ++c) {
      double v = value(c);
      if (std::isnan(v))
        continue;
      if (v == 0 && std::signbit(v) != std::signbit(x) && !fnuz)
        continue; // keep the sign of zero results
      double d = std::fabs(v - x);
      if (d < bestD || (d == bestD && (c & 1) == 0 && (best & 1) == 1)) {
        best = c;
        bestD = d;
      }
    }
    return best;
  }
};

} // namespace tessel::emu::test

#endif
