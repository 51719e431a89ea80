//===- Gf2.h - Linear maps over GF(2) for layout tests ----------*- C++ -*-===//
//
// A test's own reference for linear layouts: the image of x under the map
// whose basis vectors (images of the bits of x) are `bases`. Independent of
// LinearLayout, so that tests compare the library against it.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_UNIT_COMMON_GF2_H
#define TESSEL_TEST_UNIT_COMMON_GF2_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace tessel::test {

/// XOR of the bases[i] for every set bit i of x.
inline int64_t gf2Image(llvm::ArrayRef<int64_t> bases, int64_t x) {
  int64_t v = 0;
  for (unsigned i = 0; i < bases.size(); ++i)
    if (x & (int64_t(1) << i))
      v ^= bases[i];
  return v;
}

} // namespace tessel::test

#endif
