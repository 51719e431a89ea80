//===- topk_workspace.h - The split top-k's device workspace ----*- C++ -*-===//
//
// The layout of the workspace that a split tile.topk (variant (b) of
// topk_per_row: several programs per row, joined by grid barriers) reads
// and writes, shared by the compiler's expansion (tile-expand-radix-select)
// and the runtime, which owns one zeroed buffer of kSplitWorkspaceBytes per
// context and stream. The kernel leaves it as it needs it (histograms
// zeroed, the barrier's word at 0 or 2^31: each barrier flips its top
// bit), so launches and graph replays need no reset. Sizes are in i32
// words from the workspace's base.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOPK_WORKSPACE_H
#define TESSEL_TOPK_WORKSPACE_H

#include <cstdint>

namespace tessel {
namespace topk {

/// Words before the first row's region: the grid barrier's word,
/// padded so that every row region starts 256-byte aligned.
inline constexpr int64_t kSplitHeaderWords = 64;

/// A row region: the first digit's global histogram (zero between
/// launches), then one (above, in-bin) count pair per part, then the
/// threshold bin's candidates as keys and columns, in column order.
inline constexpr int64_t kSplitBins = 2048;
inline constexpr int64_t kSplitMaxParts = 256;
inline constexpr int64_t kSplitCandidates = 4096;
inline constexpr int64_t kSplitHistWord = 0;
inline constexpr int64_t kSplitCountsWord = kSplitHistWord + kSplitBins;
inline constexpr int64_t kSplitKeysWord = kSplitCountsWord + 2 * kSplitMaxParts;
inline constexpr int64_t kSplitColsWord = kSplitKeysWord + kSplitCandidates;
inline constexpr int64_t kSplitRowWords = kSplitColsWord + kSplitCandidates;

/// The most rows one launch splits (the workspace holds this many regions).
inline constexpr int64_t kSplitMaxRows = 64;

inline constexpr uint64_t kSplitWorkspaceBytes =
    4 * uint64_t(kSplitHeaderWords + kSplitMaxRows * kSplitRowWords);

static_assert(kSplitRowWords % 64 == 0, "row regions stay 256-byte aligned");

} // namespace topk
} // namespace tessel

#endif
