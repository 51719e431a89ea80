//===- reference.h - Float64 references of the indexer ops ------*- C++ -*-===//
//
// What tessel-run-indexer checks the kernels against, written from the
// contracts in DESIGN.md (the fp8 formats, the cache layout, the writer's
// scale rule, the schedule and the top-k selection), independently of the
// kernels and the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOOLS_RUN_INDEXER_REFERENCE_H
#define TESSEL_TOOLS_RUN_INDEXER_REFERENCE_H

#include <cstdint>
#include <vector>

namespace indexer {

constexpr int kHeadDim = 128;
constexpr int kRowBytes = 132; // 128 fp8 values + one f32 scale

/// fp8 e4m3 (bias 7: e4m3fn, max 448; bias 8: e4m3fnuz, max 240), rounded
/// to nearest even and saturated to the largest finite value.
uint8_t encodeFp8(double x, bool fnuz);
/// The value of fp8 byte `b`; NaN for the format's NaN encodings.
double decodeFp8(uint8_t b, bool fnuz);

float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f); // round to nearest even (finite inputs)
/// Units in the last place between two floats of one sign; inf otherwise.
float ulpDistance(float a, float b);

/// Byte of value (token-in-block o, dim d) in a block's value region: plain
/// [block][D] or preshuffled [block/16][D/16][16 tokens][16 bytes].
int64_t valueOffset(bool preshuffle, int64_t o, int64_t d);

/// The writer's scale for one token row of kHeadDim values (DESIGN.md 3.4):
/// max(amax, 1e-4) / fp8_max in f32, fp8_max 224 on e4m3fnuz and 448 on
/// e4m3fn; with ue8m0, the smallest power of two at or above it.
float writerScale(const float *k, bool fnuz, bool ue8m0);

/// The number of tokens row r = b*next_n + j sees (DESIGN.md 3.1): 1-D
/// lengths are causal inside the next_n group, never below 0.
int64_t rowLength(const std::vector<int32_t> &lens, int nextN, int64_t r);

/// The schedule of paged_mqa_logits_metadata for 1-D lengths: num_cus + 1
/// (batch, segment) start pairs, the first S % num_cus units taking
/// ceil(S / num_cus) of the S segments and the rest floor, then (B, 0).
std::vector<int32_t> schedule(const std::vector<int32_t> &lens, int split,
                              int numCus);

/// The top-k of the first `len` values of `row`, ties to the smaller
/// column: the columns, ascending; fewer than k when len < k.
std::vector<int32_t> stableTopK(const float *row, int64_t len, int k);

} // namespace indexer

#endif // TESSEL_TOOLS_RUN_INDEXER_REFERENCE_H
