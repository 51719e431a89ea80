//===- IndexerKCacheWrite.cpp - The indexer_k_cache_write op --------------===//
//
// Validation, dispatch (tuned table) and launch of the fp8 indexer K-cache
// writer (DESIGN.md 3.4). The launch path allocates nothing and never waits
// for the device.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessel {

const std::vector<ArgKind> &indexerKCacheWriteAbi() {
  static const std::vector<ArgKind> abi = [] {
    std::vector<ArgKind> v;
    for (int m = 0; m < 3; ++m) {
      v.push_back(ArgKind::Ptr);
      v.push_back(ArgKind::Ptr);
      v.push_back(ArgKind::I64);
      v.push_back(ArgKind::I64);
      v.push_back(ArgKind::I64);
    }
    v.push_back(ArgKind::I32); // num_tokens
    v.push_back(ArgKind::I64); // k_row_stride (elements)
    v.push_back(ArgKind::I32); // block_size
    v.push_back(ArgKind::I64); // num_slots
    return v;
  }();
  return abi;
}

const char *pickRuleName(PickRule r) {
  switch (r) {
  case PickRule::Exact:
    return "exact";
  case PickRule::Nearest:
    return "nearest-bucket";
  case PickRule::Heuristic:
    return "heuristic";
  case PickRule::None:
    return "none";
  }
  return "?";
}

void IndexerDispatch::build(const TunedTable &table, const std::string &arch,
                            const std::vector<const Variant *> &variants,
                            std::vector<std::string> &warnings) {
  rows_.clear();
  variants_.clear();
  for (const Variant *v : variants)
    if (v->entry->kernel == kIndexerKernel)
      variants_.push_back(v);
  const TableSchema &schema = indexerKCacheWriteSchema();
  auto col = [&](const char *name) {
    for (size_t i = 0; i < schema.columns.size(); ++i)
      if (std::string(schema.columns[i].name) == name)
        return i;
    return size_t(0);
  };
  size_t cArch = col("arch"), cCu = col("cu_num"), cHd = col("head_dim"),
         cBs = col("kv_block_size"), cDt = col("k_dtype"),
         cPs = col("preshuffle"), cTok = col("tokens"), cKer = col("kernel"),
         cTpp = col("tokens_per_program"), cNw = col("num_waves"),
         cWpe = col("waves_per_eu");
  for (const TableRow &r : table.rows) {
    if (r.cells[cArch].s != arch)
      continue;
    IndexerRow row;
    row.line = r.line;
    row.key.cuNum = r.cells[cCu].i;
    row.key.headDim = r.cells[cHd].i;
    row.key.blockSize = r.cells[cBs].i;
    const std::string &dt = r.cells[cDt].s;
    if (dt != "bf16" && dt != "f32") {
      warnings.push_back(format("%s:%d: k_dtype '%s' is not bf16 or f32; row "
                                "ignored",
                                table.file.c_str(), r.line, dt.c_str()));
      continue;
    }
    row.key.kBf16 = dt == "bf16";
    row.key.preshuffle = r.cells[cPs].i;
    row.key.tokens = r.cells[cTok].i;
    row.tokensPerProgram = r.cells[cTpp].i;
    row.numWaves = r.cells[cNw].i;
    row.wavesPerEu = r.cells[cWpe].i;
    for (const Variant *v : variants_) {
      if (v->entry->kernel != r.cells[cKer].s)
        continue;
      if (v->knob("k_bf16", -1) == row.key.kBf16 &&
          v->knob("tokens_per_program", 1) == row.tokensPerProgram &&
          v->knob("num_waves", 1) == row.numWaves &&
          v->knob("waves_per_eu", 0) == row.wavesPerEu) {
        row.variant = v;
        break;
      }
    }
    if (!row.variant) {
      if (!variants_.empty())
        warnings.push_back(format(
            "%s:%d: no loaded variant of %s with k_bf16=%d "
            "tokens_per_program=%lld num_waves=%lld waves_per_eu=%lld; row "
            "ignored",
            table.file.c_str(), r.line, r.cells[cKer].s.c_str(), row.key.kBf16,
            (long long)row.tokensPerProgram, (long long)row.numWaves,
            (long long)row.wavesPerEu));
      continue;
    }
    rows_.push_back(row);
  }
}

namespace {
int log2Floor(int64_t v) {
  int l = 0;
  while (v > 1) {
    v >>= 1;
    ++l;
  }
  return l;
}
} // namespace

IndexerPick IndexerDispatch::pick(const IndexerKey &key) const {
  IndexerPick p;
  // 1. Exact.
  for (const IndexerRow &r : rows_)
    if (r.key.cuNum == key.cuNum && r.key.headDim == key.headDim &&
        r.key.blockSize == key.blockSize && r.key.kBf16 == key.kBf16 &&
        r.key.preshuffle == key.preshuffle && r.key.tokens == key.tokens) {
      p.variant = r.variant;
      p.rule = PickRule::Exact;
      p.line = r.line;
      return p;
    }
  // 2. Nearest bucket.
  auto sameShape = [&](const IndexerRow &r) {
    return r.key.headDim == key.headDim && r.key.blockSize == key.blockSize &&
           r.key.kBf16 == key.kBf16 && r.key.preshuffle == key.preshuffle;
  };
  int64_t bestCuDiff = INT64_MAX;
  for (const IndexerRow &r : rows_)
    if (sameShape(r))
      bestCuDiff =
          std::min<int64_t>(bestCuDiff, std::llabs(r.key.cuNum - key.cuNum));
  if (bestCuDiff != INT64_MAX) {
    int want = log2Floor(roundUpPow2(key.tokens));
    const IndexerRow *best = nullptr;
    int bestDist = INT_MAX;
    int64_t bestTokens = 0;
    for (const IndexerRow &r : rows_) {
      if (!sameShape(r) || std::llabs(r.key.cuNum - key.cuNum) != bestCuDiff)
        continue;
      int d = std::abs(log2Floor(r.key.tokens) - want);
      if (d < bestDist || (d == bestDist && r.key.tokens > bestTokens)) {
        best = &r;
        bestDist = d;
        bestTokens = r.key.tokens;
      }
    }
    if (best) {
      p.variant = best->variant;
      p.rule = PickRule::Nearest;
      p.line = best->line;
      return p;
    }
  }
  // 3. Heuristic.
  int64_t cap = key.cuNum > 0 ? key.tokens / (2 * key.cuNum) : 1;
  cap = cap < 1 ? 1 : int64_t(1) << log2Floor(cap);
  // Ties go to more waves per program: on the H200 every tokens_per_program
  // ran fastest with the most waves (test/gpu/README.md).
  const Variant *best = nullptr, *smallest = nullptr;
  int64_t bestTpp = 0, smallestTpp = INT64_MAX, bestWaves = 0,
          smallestWaves = 0;
  for (const Variant *v : variants_) {
    if (v->knob("k_bf16", -1) != key.kBf16)
      continue;
    int64_t tpp = v->knob("tokens_per_program", 1);
    int64_t waves = v->knob("num_waves", 1);
    if (tpp <= cap &&
        (tpp > bestTpp || (tpp == bestTpp && waves > bestWaves))) {
      best = v;
      bestTpp = tpp;
      bestWaves = waves;
    }
    if (tpp < smallestTpp || (tpp == smallestTpp && waves > smallestWaves)) {
      smallest = v;
      smallestTpp = tpp;
      smallestWaves = waves;
    }
  }
  p.variant = best ? best : smallest;
  p.rule = p.variant ? PickRule::Heuristic : PickRule::None;
  return p;
}

namespace {

// Reads a tensor's dtype as a plain integer: callers may store any value in
// the enum field, and loading an out-of-range enum is undefined in C++.
int32_t rawDtype(const tessel_tensor *t) {
  int32_t v;
  static_assert(sizeof(t->dtype) == sizeof(v), "dtype is 32-bit");
  memcpy(&v, &t->dtype, sizeof(v));
  return v;
}

const char *dtypeName(int32_t t) {
  switch (t) {
  case TESSEL_DTYPE_F32:
    return "f32";
  case TESSEL_DTYPE_BF16:
    return "bf16";
  case TESSEL_DTYPE_F16:
    return "f16";
  case TESSEL_DTYPE_U8:
    return "uint8";
  case TESSEL_DTYPE_I32:
    return "int32";
  case TESSEL_DTYPE_I64:
    return "int64";
  case TESSEL_DTYPE_FP8_E4M3FN:
    return "fp8_e4m3fn";
  case TESSEL_DTYPE_FP8_E4M3FNUZ:
    return "fp8_e4m3fnuz";
  default:
    return "invalid";
  }
}

Status bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
Status bad(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                       std::string("indexer_k_cache_write: ") + buf);
}

Status checkHeader(const char *name, const tessel_tensor *t, int rank) {
  if (!t)
    return bad("%s is null", name);
  if (t->rank != rank)
    return bad("%s: rank must be %d, got %d", name, rank, t->rank);
  for (int i = 0; i < rank; ++i)
    if (t->shape[i] < 0)
      return bad("%s: shape[%d] = %" PRId64 " is negative", name, i,
                 t->shape[i]);
  // No stride of an empty tensor, nor that of a dimension of size 1, is ever
  // used (numpy reports 0 for them), so they may be anything.
  bool empty = false;
  for (int i = 0; i < rank; ++i)
    empty |= t->shape[i] == 0;
  for (int i = 0; i < rank && !empty; ++i) {
    if (t->shape[i] > 1 && t->strides[i] < 0)
      return bad("%s: strides[%d] = %" PRId64 " is negative", name, i,
                 t->strides[i]);
  }
  return Status::ok();
}

bool mulOk(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_mul_overflow(a, b, &out);
}

} // namespace

Status validateIndexerKCacheWrite(const tessel_tensor *k,
                                  const tessel_tensor *slotMapping,
                                  const tessel_tensor *kvCache,
                                  const Device *device, IndexerProblem &p) {
  // k [T, 128], bf16 or f32, unit inner stride.
  if (Status s = checkHeader("k", k, 2))
    return s;
  int32_t kType = rawDtype(k);
  if (kType != TESSEL_DTYPE_BF16 && kType != TESSEL_DTYPE_F32)
    return bad("k: dtype must be bf16 or f32, got %s", dtypeName(rawDtype(k)));
  p.kBf16 = kType == TESSEL_DTYPE_BF16;
  int64_t esize = p.kBf16 ? 2 : 4;
  if (k->shape[1] != kIndexerHeadDim)
    return bad("k: shape[1] (head_dim) must be %lld, got %" PRId64,
               (long long)kIndexerHeadDim, k->shape[1]);
  p.numTokens = k->shape[0];
  if (p.numTokens > INT32_MAX)
    return bad("k: %" PRId64 " tokens exceed the kernel's i32 token count",
               p.numTokens);
  // An empty k (no tokens) is a no-op whatever its strides and pointer.
  if (p.numTokens > 0 && k->strides[1] != 1)
    return bad("k: inner stride must be 1, got %" PRId64, k->strides[1]);
  p.kRowStride = k->strides[0];
  if (p.numTokens > 1 && p.kRowStride < kIndexerHeadDim)
    return bad("k: row stride %" PRId64 " is smaller than head_dim %lld "
               "(rows overlap)",
               p.kRowStride, (long long)kIndexerHeadDim);
  // The kernels load 16-byte vectors and are compiled with the promise that
  // the row stride is a multiple of 8 elements (tile.divisibility).
  if (p.numTokens > 1 && p.kRowStride % 8 != 0)
    return bad("k: row stride %" PRId64 " must be a multiple of 8 elements",
               p.kRowStride);
  // With one token the stride is never used; pass a value that keeps the
  // kernel's promise.
  if (p.numTokens <= 1)
    p.kRowStride = kIndexerHeadDim;
  if (p.numTokens > 0 && !k->data)
    return bad("k: data is null");
  if (p.numTokens > 0 && reinterpret_cast<uintptr_t>(k->data) % 16 != 0)
    return bad("k: data %p is not 16-byte aligned", k->data);
  int64_t span = 0;
  if (p.numTokens > 0 &&
      (!mulOk(p.numTokens - 1, p.kRowStride, span) ||
       __builtin_add_overflow(span, kIndexerHeadDim, &span) ||
       !mulOk(span, esize, p.kBytes)))
    return bad("k: extent overflows 64 bits");
  p.k = k->data;

  // slot_mapping [T] int64.
  if (Status s = checkHeader("slot_mapping", slotMapping, 1))
    return s;
  if (rawDtype(slotMapping) != TESSEL_DTYPE_I64)
    return bad("slot_mapping: dtype must be int64, got %s",
               dtypeName(rawDtype(slotMapping)));
  if (slotMapping->shape[0] != p.numTokens)
    return bad("slot_mapping: shape[0] = %" PRId64
               " does not match k's %" PRId64 " tokens",
               slotMapping->shape[0], p.numTokens);
  if (p.numTokens > 1 && slotMapping->strides[0] != 1)
    return bad("slot_mapping: stride must be 1, got %" PRId64,
               slotMapping->strides[0]);
  if (p.numTokens > 0 && !slotMapping->data)
    return bad("slot_mapping: data is null");
  if (p.numTokens > 0 &&
      reinterpret_cast<uintptr_t>(slotMapping->data) % 8 != 0)
    return bad("slot_mapping: data %p is not 8-byte aligned",
               slotMapping->data);
  p.slots = slotMapping->data;

  // kv_cache [num_blocks, block_size, 1, 132] uint8, contiguous.
  if (Status s = checkHeader("kv_cache", kvCache, 4))
    return s;
  if (rawDtype(kvCache) != TESSEL_DTYPE_U8)
    return bad("kv_cache: dtype must be uint8, got %s",
               dtypeName(rawDtype(kvCache)));
  const int64_t *sh = kvCache->shape, *st = kvCache->strides;
  if (sh[0] < 1)
    return bad("kv_cache: shape[0] (num_blocks) must be >= 1, got %" PRId64,
               sh[0]);
  if (sh[1] < 1 || sh[1] > INT32_MAX)
    return bad("kv_cache: shape[1] (block_size) must be in [1, 2^31), got "
               "%" PRId64,
               sh[1]);
  if (sh[2] != 1)
    return bad("kv_cache: shape[2] must be 1, got %" PRId64, sh[2]);
  if (sh[3] != kIndexerCacheRowBytes)
    return bad("kv_cache: shape[3] must be %lld (head_dim + 4 scale bytes), "
               "got %" PRId64,
               (long long)kIndexerCacheRowBytes, sh[3]);
  p.numBlocks = sh[0];
  p.blockSize = sh[1];
  if (!mulOk(p.numBlocks, p.blockSize, p.numSlots) ||
      !mulOk(p.numSlots, kIndexerCacheRowBytes, p.cacheBytes))
    return bad("kv_cache: size overflows 64 bits");
  // Contiguous (a dimension of size 1 may have any stride).
  int64_t want[4] = {p.blockSize * kIndexerCacheRowBytes, kIndexerCacheRowBytes,
                     kIndexerCacheRowBytes, 1};
  for (int i = 3; i >= 0; --i)
    if (sh[i] != 1 && st[i] != want[i])
      return bad("kv_cache: must be contiguous; strides[%d] = %" PRId64
                 ", expected %" PRId64,
                 i, st[i], want[i]);
  if (!kvCache->data)
    return bad("kv_cache: data is null");
  if (reinterpret_cast<uintptr_t>(kvCache->data) % 16 != 0)
    return bad("kv_cache: data %p is not 16-byte aligned", kvCache->data);
  p.cache = kvCache->data;

  if (!device)
    return Status::ok();
  // The declared extents must fit the buffers the device knows, before the
  // slots are read below and before the kernel reads anything.
  const char *op = "indexer_k_cache_write";
  if (Status s = checkTensorArg(*device, op, "k", *k))
    return s;
  if (Status s = checkTensorArg(*device, op, "slot_mapping", *slotMapping))
    return s;
  if (Status s = checkTensorArg(*device, op, "kv_cache", *kvCache))
    return s;
  // Slots past the cache: checkable where device memory is host memory.
  if (device->hostMemory()) {
    const int64_t *s = static_cast<const int64_t *>(p.slots);
    for (int64_t t = 0; t < p.numTokens; ++t)
      if (s[t] >= p.numSlots)
        return bad("slot_mapping[%" PRId64 "] = %" PRId64
                   " is past the cache (num_blocks * block_size = %" PRId64 ")",
                   t, s[t], p.numSlots);
  }
  return Status::ok();
}

void marshalIndexerKCacheWrite(const IndexerProblem &p, IndexerLaunchArgs &a) {
  // memref<?xi8> k: sizes count i8 elements (bytes).
  a.kAlloc = a.kAligned = p.k;
  a.kOffset = 0;
  a.kSize = p.kBytes;
  a.kStride = 1;
  a.sAlloc = a.sAligned = p.slots;
  a.sOffset = 0;
  a.sSize = p.numTokens;
  a.sStride = 1;
  a.cAlloc = a.cAligned = p.cache;
  a.cOffset = 0;
  a.cSize = p.cacheBytes;
  a.cStride = 1;
  a.numTokens = static_cast<int32_t>(p.numTokens);
  a.kRowStride = p.kRowStride;
  a.blockSize = static_cast<int32_t>(p.blockSize);
  a.numSlots = p.numSlots;
  void **q = a.params;
  *q++ = &a.kAlloc;
  *q++ = &a.kAligned;
  *q++ = &a.kOffset;
  *q++ = &a.kSize;
  *q++ = &a.kStride;
  *q++ = &a.sAlloc;
  *q++ = &a.sAligned;
  *q++ = &a.sOffset;
  *q++ = &a.sSize;
  *q++ = &a.sStride;
  *q++ = &a.cAlloc;
  *q++ = &a.cAligned;
  *q++ = &a.cOffset;
  *q++ = &a.cSize;
  *q++ = &a.cStride;
  *q++ = &a.numTokens;
  *q++ = &a.kRowStride;
  *q++ = &a.blockSize;
  *q++ = &a.numSlots;
}

} // namespace tessel

using namespace tessel;

extern "C" tessel_status
tessel_indexer_k_cache_write(tessel_context *ctx, const tessel_tensor *k,
                             const tessel_tensor *slot_mapping,
                             const tessel_tensor *kv_cache,
                             tessel_stream stream) {
  return guardApi("tessel_indexer_k_cache_write", [&]() -> tessel_status {
    if (!ctx)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "indexer_k_cache_write: ctx is null");
    IndexerProblem p;
    if (Status s = validateIndexerKCacheWrite(k, slot_mapping, kv_cache,
                                              ctx->device, p))
      return setLastError(s);
    if (p.numTokens == 0) {
      clearLastError();
      return TESSEL_SUCCESS;
    }
    std::shared_lock<std::shared_mutex> lock(ctx->mu);
    IndexerKey key;
    key.cuNum = ctx->device->cuCount();
    key.blockSize = p.blockSize;
    key.kBf16 = p.kBf16;
    key.tokens = p.numTokens;
    IndexerPick pick = ctx->indexer.pick(key);
    if (!pick.variant)
      return setLastError(TESSEL_ERROR_NO_KERNEL,
                          "indexer_k_cache_write: no code object for target %s "
                          "(%s) with k_bf16=%d in the loaded bundles; load one "
                          "with tessel_context_load_bundle() or TESSEL_BUNDLE",
                          ctx->device->arch().c_str(), ctx->device->kind(),
                          p.kBf16);
    const Variant *v = pick.variant;
    int64_t tpp = v->knob("tokens_per_program", 1);
    if (tpp < 1)
      tpp = 1;
    int64_t gx = (p.numTokens + tpp - 1) / tpp;
    uint32_t grid[3] = {static_cast<uint32_t>(gx), 1, 1};
    if (logTunedConfigEnabled())
      fprintf(stderr,
              "tessel: indexer_k_cache_write arch=%s cu_num=%d head_dim=128 "
              "kv_block_size=%lld k_dtype=%s preshuffle=0 tokens=%lld -> %s "
              "(tokens_per_program=%lld num_waves=%lld waves_per_eu=%lld) "
              "rule=%s line=%d grid=%lld block=%u\n",
              ctx->device->arch().c_str(), ctx->device->cuCount(),
              (long long)p.blockSize, p.kBf16 ? "bf16" : "f32",
              (long long)p.numTokens, v->entry->name.c_str(), (long long)tpp,
              (long long)v->knob("num_waves", 1),
              (long long)v->knob("waves_per_eu", 0), pickRuleName(pick.rule),
              pick.line, (long long)gx, v->entry->block[0]);
    IndexerLaunchArgs args;
    marshalIndexerKCacheWrite(p, args);
    if (Status s = ctx->device->launch(v->fn, grid, v->entry->block,
                                       args.params, kIndexerNumParams, stream))
      return setLastError(s.prefix("indexer_k_cache_write: "));
    clearLastError();
    return TESSEL_SUCCESS;
  });
}
