//===- Context.h - Contexts, variants and the dispatcher --------*- C++ -*-===//
#ifndef TESSEL_RUNTIME_CONTEXT_H
#define TESSEL_RUNTIME_CONTEXT_H

#include "Config.h"
#include "Device.h"
#include "TunedTable.h"
#include "tessel/bundle.h"

#include <memory>
#include <shared_mutex>
#include <vector>

namespace tessel {

/// One loaded code object: the manifest entry and its function on the device
/// (fn is null in tests that exercise dispatch without a device).
struct Variant {
  const BundleEntry *entry = nullptr;
  void *fn = nullptr;
  int64_t knob(const char *name, int64_t dflt) const {
    int64_t v;
    return entry->knob(name, v) ? v : dflt;
  }
};

//===----------------------------------------------------------------------===//
// indexer_k_cache_write
//===----------------------------------------------------------------------===//

constexpr int64_t kIndexerHeadDim = 128;
constexpr int64_t kIndexerCacheRowBytes = kIndexerHeadDim + 4;
constexpr size_t kIndexerNumParams = 19;
constexpr const char *kIndexerKernel = "indexer_k_cache_write";

/// The flattened launch ABI of the kernel (lowering/SIMT_IR.md):
/// k, slot_mapping, cache as memrefs (5 params each), then num_tokens i32,
/// k_row_stride i64, block_size i32, num_slots i64.
const std::vector<ArgKind> &indexerKCacheWriteAbi();

/// The key of one call, as the table sees it.
struct IndexerKey {
  int64_t cuNum = 0;
  int64_t headDim = kIndexerHeadDim;
  int64_t blockSize = 0;
  int kBf16 = 1;
  int64_t preshuffle = 0;
  int64_t tokens = 0;
};

/// A table row of this context's arch, resolved to a loaded variant.
struct IndexerRow {
  int line = 0;
  IndexerKey key;
  int64_t tokensPerProgram = 1, numWaves = 1, wavesPerEu = 0;
  const Variant *variant = nullptr;
};

enum class PickRule { Exact, Nearest, Heuristic, None };
const char *pickRuleName(PickRule r);

struct IndexerPick {
  const Variant *variant = nullptr;
  PickRule rule = PickRule::None;
  int line = 0; // table line for Exact/Nearest
};

/// The dispatcher state of one op in one context. pick() allocates nothing.
class IndexerDispatch {
public:
  /// Keeps the rows of `arch` whose (kernel, k_dtype, tokens_per_program,
  /// num_waves, waves_per_eu) match a variant; rows without a variant are
  /// reported in `warnings` and skipped.
  void build(const TunedTable &table, const std::string &arch,
             const std::vector<const Variant *> &variants,
             std::vector<std::string> &warnings);

  /// Lookup order:
  ///  1. exact: a row equal on every key, tokens == T;
  ///  2. nearest bucket: rows equal on head_dim, kv_block_size, k_dtype and
  ///     preshuffle; of those, the cu_num closest to the device's; of those,
  ///     the tokens bucket roundUpPow2(T), else the bucket nearest in log2
  ///     (ties go to the larger bucket);
  ///  3. heuristic: of the variants with the right k_bf16, the one with the
  ///     largest tokens_per_program <= max(1, T / (2 * cu_num)) rounded down
  ///     to a power of two (keeps at least two programs per CU), else the
  ///     smallest tokens_per_program; ties go to the first in bundle order.
  IndexerPick pick(const IndexerKey &key) const;

  const std::vector<IndexerRow> &rows() const { return rows_; }

private:
  std::vector<IndexerRow> rows_;
  std::vector<const Variant *> variants_;
};

/// The validated problem of one call.
struct IndexerProblem {
  void *k = nullptr;
  int kBf16 = 1;
  int64_t numTokens = 0;
  int64_t kRowStride = 0;
  int64_t kBytes = 0; // bytes of k the kernel may touch
  void *slots = nullptr;
  void *cache = nullptr;
  int64_t numBlocks = 0;
  int64_t blockSize = 0;
  int64_t numSlots = 0;
  int64_t cacheBytes = 0;
};

/// Validates every argument; messages name the argument. With a device, the
/// tensors' extents are checked against its buffers and, where device memory
/// is host memory, the slot values against the cache. Without one (tests of
/// marshalling), neither.
Status validateIndexerKCacheWrite(const tessel_tensor *k,
                                  const tessel_tensor *slotMapping,
                                  const tessel_tensor *kvCache,
                                  const Device *device, IndexerProblem &p);

/// Storage for the 19 flattened launch parameters, on the caller's stack.
struct IndexerLaunchArgs {
  void *kAlloc, *kAligned;
  int64_t kOffset, kSize, kStride;
  void *sAlloc, *sAligned;
  int64_t sOffset, sSize, sStride;
  void *cAlloc, *cAligned;
  int64_t cOffset, cSize, cStride;
  int32_t numTokens;
  int64_t kRowStride;
  int32_t blockSize;
  int64_t numSlots;
  void *params[kIndexerNumParams];
};

/// Flattens a validated problem into args (params point into args).
void marshalIndexerKCacheWrite(const IndexerProblem &p, IndexerLaunchArgs &a);

} // namespace tessel

/// The context behind the opaque C handle.
struct tessel_context {
  tessel::Device *device = nullptr;
  tessel::Config config;
  std::shared_mutex mu; // exclusive for bundle loads, shared for launches
  std::vector<std::unique_ptr<tessel::Bundle>> bundles;
  std::vector<std::unique_ptr<tessel::Variant>> variants;
  tessel::TunedTable indexerTable;
  tessel::TunedTable pagedMqaLogitsTable; // validated; no op reads it yet
  tessel::IndexerDispatch indexer;
  std::vector<std::string> warnings;
};

namespace tessel {
/// Rebuilds every op's dispatcher from the loaded variants (holding mu).
void rebuildDispatch(tessel_context *ctx);
} // namespace tessel

#endif
