//===- LogitsReference.h - Inputs and reference of paged MQA logits -*- C++
//-*-===//
//
// What the emulator tests of paged_mqa_logits (split-grid and persistent)
// share: random inputs of one call (fp8 bytes of the target's format with
// |value| <= 2, per-token scales, weights, shuffled block tables with a row
// stride above their width), the cache's copy in the preshuffled layout,
// and the check of the output against a float64 reference on the values
// the bytes encode:
//   out[r, t] = kscale[t] * sum_h relu(q[r,h,:] . k[t,:]) * w[r,h]
// for t < len_r; -inf for len_r <= t < max_model_len (or untouched without
// the tail); the padding after max_model_len untouched; calc_diff =
// 1 - 2 sum(xy) / sum(x^2 + y^2) < 1e-3 over the computed columns.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_EMULATOR_LOGITSREFERENCE_H
#define TESSEL_TEST_EMULATOR_LOGITSREFERENCE_H

#include "Fp8Ref.h"
#include "tessel/Emulator/Emulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace tessel::emu::test {

constexpr int kLogitsD = 128;
constexpr int kLogitsTokenBytes = kLogitsD + 4; // fp8 values, then the scale
/// What the output holds before the launch, where nothing may be written.
constexpr float kLogitsUntouched = 12345.0f;

/// The shape of one call.
struct LogitsShape {
  int heads, batch, nextN, blockSize;
  std::vector<int> lens; // per batch (1-D) or per row (2-D)
  bool lens2d;
  int maxModelLen;
};

/// Row r = b * next_n + j's length (DESIGN.md 3.1), clamped to the output.
inline int logitsRowLength(const LogitsShape &s, int b, int j) {
  int len = s.lens2d ? s.lens[b * s.nextN + j] : s.lens[b] - s.nextN + j + 1;
  return std::clamp(len, 0, s.maxModelLen);
}

/// The inputs of one call; `cache` is in the plain layout.
struct LogitsInputs {
  std::vector<uint8_t> q, cache;
  std::vector<float> weights;
  std::vector<int32_t> lens, tables;
  int tableStride = 0, blockShift = 0;
};

inline LogitsInputs makeLogitsInputs(const LogitsShape &s, const Fp8Ref &fp8,
                                     unsigned seed) {
  LogitsInputs in;
  const int R = s.batch * s.nextN;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> wv(-1.0, 1.0), sv(0.01, 0.2);
  std::vector<uint8_t> codes; // no NaN, |value| <= 2
  for (int c = 0; c < 256; ++c)
    if (std::fabs(fp8.value(c)) <= 2.0)
      codes.push_back(uint8_t(c));
  std::uniform_int_distribution<size_t> pick(0, codes.size() - 1);

  // Blocks per batch: enough for the longest row; a shuffled pool.
  int maxLen = 0;
  for (int l : s.lens)
    maxLen = std::max(maxLen, l);
  const int maxBlocks = std::max(1, (maxLen + s.blockSize - 1) / s.blockSize);
  const int numBlocks = s.batch * maxBlocks + 3;
  std::vector<int> pool(numBlocks);
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);
  in.tableStride = maxBlocks + 1; // row stride > columns
  in.tables.assign(size_t(s.batch) * in.tableStride, -1);
  for (int b = 0, next = 0; b < s.batch; ++b)
    for (int i = 0; i < maxBlocks; ++i)
      in.tables[size_t(b) * in.tableStride + i] = pool[next++];

  in.q.resize(size_t(R) * s.heads * kLogitsD);
  for (uint8_t &x : in.q)
    x = codes[pick(rng)];
  in.cache.resize(size_t(numBlocks) * s.blockSize * kLogitsTokenBytes);
  for (int blk = 0; blk < numBlocks; ++blk) {
    uint8_t *base =
        in.cache.data() + size_t(blk) * s.blockSize * kLogitsTokenBytes;
    for (int i = 0; i < s.blockSize * kLogitsD; ++i)
      base[i] = codes[pick(rng)];
    for (int i = 0; i < s.blockSize; ++i) {
      float scale = float(sv(rng));
      std::memcpy(base + size_t(s.blockSize) * kLogitsD + 4 * i, &scale, 4);
    }
  }
  in.weights.resize(size_t(R) * s.heads);
  for (float &w : in.weights)
    w = float(wv(rng));
  in.lens.assign(s.lens.begin(), s.lens.end());
  while ((1 << in.blockShift) < s.blockSize)
    ++in.blockShift;
  return in;
}

/// The preshuffled layout of a plain cache (DESIGN.md 3.1): in each block,
/// value byte d of token row o moves from o*128 + d to
/// [o/16][d/16][o%16][d%16]; the scales stay where they are.
inline std::vector<uint8_t> preshuffledCopy(const std::vector<uint8_t> &plain,
                                            int blockSize) {
  std::vector<uint8_t> out = plain;
  const size_t blockBytes = size_t(blockSize) * kLogitsTokenBytes;
  for (size_t base = 0; base + blockBytes <= plain.size(); base += blockBytes)
    for (int o = 0; o < blockSize; ++o)
      for (int d = 0; d < kLogitsD; ++d)
        out[base +
            ((size_t(o / 16) * (kLogitsD / 16) + d / 16) * 16 + o % 16) * 16 +
            d % 16] = plain[base + size_t(o) * kLogitsD + d];
  return out;
}

/// The kernel's arguments, in its launch signature's order
/// (kernels_dsl/variants.json), over copies the launch may write: `cache`
/// in the variant's layout, `out` of `outElems` floats, the persistent
/// variants' `schedule`, and `last`, the split tokens of a persistent
/// variant or the chunk of a split-grid one.
struct LogitsLaunch {
  std::vector<uint8_t> q, cache;
  std::vector<float> weights;
  std::vector<int32_t> lens, tables, schedule;

  std::vector<KernelArg> args(const LogitsShape &s, const LogitsInputs &in,
                              float *out, int64_t outElems, int64_t outStride,
                              bool writeTail, int last) {
    return {KernelArg::buffer(q.data(), int64_t(q.size())),
            KernelArg::buffer(cache.data(), int64_t(cache.size())),
            KernelArg::buffer(weights.data(), int64_t(weights.size())),
            KernelArg::buffer(lens.data(), int64_t(lens.size())),
            KernelArg::buffer(tables.data(), int64_t(tables.size())),
            KernelArg::buffer(out, outElems),
            KernelArg::buffer(schedule.data(), int64_t(schedule.size())),
            KernelArg::i32(s.batch),
            KernelArg::i32(s.nextN),
            KernelArg::i32(s.lens2d ? 1 : 0),
            KernelArg::i64(in.tableStride),
            KernelArg::i32(in.blockShift),
            KernelArg::i64(outStride),
            KernelArg::i32(s.maxModelLen),
            KernelArg::i32(writeTail ? 1 : 0),
            KernelArg::i32(last)};
  }
};

/// Checks the output rows (`outStride` floats each, filled with
/// kLogitsUntouched before the launch over their first `checkedCols`).
inline void checkLogits(const LogitsShape &s, const Fp8Ref &fp8,
                        const LogitsInputs &in, bool writeTail,
                        const float *out, int64_t outStride,
                        int64_t checkedCols) {
  double value[256];
  for (int c = 0; c < 256; ++c)
    value[c] = fp8.value(c);
  const int H = s.heads;
  double sxy = 0, sxx = 0;
  int wrong = 0, computed = 0;
  for (int b = 0; b < s.batch; ++b)
    for (int j = 0; j < s.nextN; ++j) {
      const int r = b * s.nextN + j, len = logitsRowLength(s, b, j);
      const float *o = out + int64_t(r) * outStride;
      for (int t = 0; t < s.maxModelLen; ++t) {
        const float got = o[t];
        if (t >= len) {
          bool ok = writeTail ? (std::isinf(got) && got < 0)
                              : got == kLogitsUntouched;
          if (!ok && wrong++ < 5)
            ADD_FAILURE() << "row " << r << " t " << t << " (len " << len
                          << "): " << got;
          continue;
        }
        const int blk = in.tables[size_t(b) * in.tableStride + t / s.blockSize];
        const int at = t % s.blockSize;
        const uint8_t *base =
            in.cache.data() + size_t(blk) * s.blockSize * kLogitsTokenBytes;
        const uint8_t *k = base + size_t(at) * kLogitsD;
        float scale;
        std::memcpy(&scale, base + size_t(s.blockSize) * kLogitsD + 4 * at, 4);
        double sum = 0;
        for (int h = 0; h < H; ++h) {
          const uint8_t *qr = in.q.data() + (size_t(r) * H + h) * kLogitsD;
          double dot = 0;
          for (int d = 0; d < kLogitsD; ++d)
            dot += value[qr[d]] * value[k[d]];
          sum += std::max(dot, 0.0) * double(in.weights[size_t(r) * H + h]);
        }
        const double ref = sum * double(scale);
        if ((!std::isfinite(got) || got == kLogitsUntouched) && wrong++ < 5)
          ADD_FAILURE() << "row " << r << " t " << t << ": " << got
                        << ", reference " << ref;
        sxy += ref * double(got);
        sxx += ref * ref + double(got) * double(got);
        ++computed;
      }
      for (int64_t t = s.maxModelLen; t < checkedCols; ++t)
        if (o[t] != kLogitsUntouched && wrong++ < 5)
          ADD_FAILURE() << "row " << r << " padding " << t << " written";
    }
  EXPECT_EQ(wrong, 0);
  if (computed > 0) {
    EXPECT_GT(sxx, 0);
    if (sxx > 0) {
      EXPECT_LT(1 - 2 * sxy / sxx, 1e-3) << "calc_diff";
    }
  }
}

} // namespace tessel::emu::test

#endif // TESSEL_TEST_EMULATOR_LOGITSREFERENCE_H
