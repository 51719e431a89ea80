//===- TopKReference.h - topk_per_row's kernels and their checker -*- C++
//-*-===//
//
// What the emulator tests of kernels_dsl/topk_per_row.mlir share: the
// in-process compile of a variant, the problems (rows, lengths by the §3.1
// rule, row stride) and the independent reference of DESIGN.md 3.2: a
// stable sort of the row's columns by value (NaN largest, -0.0 equal to
// +0.0, ties by the smaller column). checkRow compares as sets (k distinct
// columns in range, every selected value >= every unselected one, and,
// the kernel being stable, exactly the reference's set; rows with len_r <=
// k hold 0..len_r-1 then -1); checkSortedRow compares the order exactly.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_EMULATOR_TOPKREFERENCE_H
#define TESSEL_TEST_EMULATOR_TOPKREFERENCE_H

#include "TileKernel.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

namespace tessel::emu::test::topk {

inline std::string readKernelSource() {
  std::ifstream f(std::string(TESSEL_KERNELS_DSL_DIR) + "/topk_per_row.mlir");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Compiled {
  std::unique_ptr<Module> module;
  std::string name;
  Dim3 block{};
};

/// `candidates`: the capacity of the expansion's LDS candidate buffer (-1:
/// the target's); `persistent`: the variant (0: one workgroup per row).
inline Compiled *compiled(const std::string &target, int64_t k,
                          int64_t numWaves, int64_t sorted, int64_t candidates,
                          int64_t persistent = 0) {
  static std::map<
      std::tuple<std::string, int64_t, int64_t, int64_t, int64_t, int64_t>,
      Compiled>
      cache;
  auto key =
      std::make_tuple(target, k, numWaves, sorted, candidates, persistent);
  if (auto it = cache.find(key); it != cache.end())
    return it->second.module ? &it->second : nullptr;
  Compiled &c = cache[key];
  std::string src = readKernelSource();
  if (src.empty()) {
    ADD_FAILURE() << "cannot read topk_per_row.mlir";
    return nullptr;
  }
  std::unique_ptr<Module> emu =
      emulatorModuleFor(src, "topk_per_row.mlir", target,
                        {{"k", k},
                         {"num_waves", numWaves},
                         {"sorted", sorted},
                         {"persistent", persistent}},
                        tessel::TileToSimtOptions{candidates});
  LoweredKernel one = oneKernelOf(std::move(emu));
  if (!one.emu)
    return nullptr;
  c.name = one.name;
  c.block = one.block;
  c.module = std::move(one.emu);
  return &c;
}

struct Problem {
  int batch = 1, nextN = 1, cols = 0;
  int64_t stride = 0; // elements; >= cols
  bool lens2d = false;
  std::vector<int32_t> lens; // [batch] or [batch * nextN]
  std::vector<float> logits; // [rows * stride]
  int rows() const { return batch * nextN; }
};

/// len_r by the §3.1 rule, clamped to [0, cols].
inline int rowLen(const Problem &p, int r) {
  int b = r / p.nextN, j = r % p.nextN;
  int64_t len = p.lens2d ? p.lens[r] : int64_t(p.lens[b]) - p.nextN + j + 1;
  return (int)std::clamp<int64_t>(len, 0, p.cols);
}

/// a ranks above b: NaN above everything, then by value (-0.0 == +0.0).
inline bool above(float a, float b) {
  if (std::isnan(b))
    return false;
  if (std::isnan(a))
    return true;
  return a > b;
}

inline std::vector<int32_t> reference(const Problem &p, int r, int k) {
  int n = rowLen(p, r);
  std::vector<int32_t> cols(n);
  for (int i = 0; i < n; ++i)
    cols[i] = i;
  const float *row = p.logits.data() + (size_t)r * p.stride;
  std::stable_sort(cols.begin(), cols.end(),
                   [&](int32_t x, int32_t y) { return above(row[x], row[y]); });
  cols.resize(std::min(n, k));
  return cols;
}

inline void checkRow(const Problem &p, int r, int k, const int32_t *got) {
  SCOPED_TRACE("row " + std::to_string(r));
  int n = rowLen(p, r);
  if (n <= k) {
    for (int i = 0; i < k; ++i)
      ASSERT_EQ(got[i], i < n ? i : -1) << "at " << i << " of a row of " << n;
    return;
  }
  const float *row = p.logits.data() + (size_t)r * p.stride;
  std::vector<char> chosen(n, 0);
  for (int i = 0; i < k; ++i) {
    ASSERT_TRUE(got[i] >= 0 && got[i] < n)
        << "index " << got[i] << " at " << i << " is outside the row of " << n;
    ASSERT_FALSE(chosen[got[i]]) << "column " << got[i] << " chosen twice";
    chosen[got[i]] = 1;
  }
  // Every selected value >= every unselected one.
  int lowest = -1, highest = -1;
  for (int i = 0; i < n; ++i) {
    if (chosen[i] && (lowest < 0 || above(row[lowest], row[i])))
      lowest = i;
    if (!chosen[i] && (highest < 0 || above(row[i], row[highest])))
      highest = i;
  }
  ASSERT_FALSE(above(row[highest], row[lowest]))
      << "unselected column " << highest << " (" << row[highest]
      << ") ranks above selected column " << lowest << " (" << row[lowest]
      << ")";
  // Stable: exactly the reference's set.
  std::vector<int32_t> want = reference(p, r, k);
  int missing = 0;
  for (int32_t c : want)
    if (!chosen[c] && missing++ < 4)
      ADD_FAILURE() << "column " << c << " (" << row[c]
                    << ") is in the stable top-k but not selected";
  EXPECT_EQ(missing, 0);
}

/// The sorted variants' row: the reference's first min(len_r, k) columns
/// in its order, then -1.
inline void checkSortedRow(const Problem &p, int r, int k, const int32_t *got) {
  SCOPED_TRACE("sorted row " + std::to_string(r));
  std::vector<int32_t> want = reference(p, r, k);
  want.resize(k, -1);
  const float *row = p.logits.data() + (size_t)r * p.stride;
  for (int i = 0; i < k; ++i)
    ASSERT_EQ(got[i], want[i])
        << "at " << i << " of a row of " << rowLen(p, r) << ": want column "
        << want[i] << " (" << (want[i] >= 0 ? row[want[i]] : 0.0f) << ")";
}

/// One row per entry of `lens` (1-D lengths, next_n = 1), values from
/// `gen(column)`.
template <typename Gen>
Problem rowsOf(std::vector<int32_t> lens, int cols, Gen gen, int64_t pad = 0) {
  Problem p;
  p.batch = (int)lens.size();
  p.cols = cols;
  p.stride = cols + pad;
  p.lens = std::move(lens);
  p.logits.assign((size_t)p.rows() * p.stride,
                  std::numeric_limits<float>::quiet_NaN());
  for (int r = 0; r < p.rows(); ++r)
    for (int i = 0; i < cols; ++i)
      p.logits[(size_t)r * p.stride + i] = gen(r, i);
  return p;
}

/// B = 2, next_n = 3 rows of 1500 columns in a stride of 1536, with 1-D
/// (causal) or 2-D lengths, values from `gen()`.
template <typename Gen> Problem nextNRows(bool twoD, Gen gen) {
  Problem p;
  p.batch = 2, p.nextN = 3, p.cols = 1500, p.stride = 1536;
  p.lens2d = twoD;
  p.lens = twoD ? std::vector<int32_t>{1500, 600, 513, 1200, 0, 1499}
                : std::vector<int32_t>{1500, 514};
  p.logits.resize((size_t)p.rows() * p.stride);
  for (float &v : p.logits)
    v = gen();
  return p;
}

/// +-inf, -0.0 and +0.0, denormals of both signs, tiny and ordinary
/// values, NaN.
inline std::vector<float> specialValues() {
  const float inf = std::numeric_limits<float>::infinity();
  const float den = std::numeric_limits<float>::denorm_min();
  return {inf,
          -inf,
          -0.0f,
          0.0f,
          den,
          -den,
          den * 7,
          -den * 3,
          1e-30f,
          -1e-30f,
          3.5f,
          -3.5f,
          std::numeric_limits<float>::quiet_NaN()};
}

} // namespace tessel::emu::test::topk

#endif
