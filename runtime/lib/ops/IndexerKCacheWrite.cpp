//===- IndexerKCacheWrite.cpp - The indexer_k_cache_write op --------------===//
//
// The fp8 indexer K-cache writer (DESIGN.md 3.4), declared for the op
// registry: arguments, launch signature, tuned table, heuristic and grid.
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "OpRegistry.h"

#include <cinttypes>

namespace tessel {
namespace {

// Symbols, in the order of the spec's list.
enum Sym {
  T,
  HeadDim,
  NumBlocks,
  BlockSize,
  RowBytes,
  KRowStride,
  NumSlots,
  KBf16,
  Preshuffle,
  ScaleUe8m0,
};

enum Tensor { K, SlotMapping, KvCache };

Status check(OpCall &c) {
  c.set(KBf16, c.t[K]->dtype == TESSEL_DTYPE_BF16);
  int64_t slots;
  if (__builtin_mul_overflow(c[NumBlocks], c[BlockSize], &slots))
    return opError(c, "kv_cache: size overflows 64 bits");
  c.set(NumSlots, slots);
  if (c[Preshuffle] && c[BlockSize] % 16 != 0)
    return opError(c,
                   "kv_cache: the preshuffled layout needs block_size %% 16 "
                   "== 0, got block_size %" PRId64,
                   c[BlockSize]);
  // Slots past the cache: checkable where device memory is host memory.
  if (c.device && c.device->hostMemory() && c[T] > 0) {
    const int64_t *s = static_cast<const int64_t *>(c.t[SlotMapping]->data);
    for (int64_t t = 0; t < c[T]; ++t)
      if (s[t] >= slots)
        return opError(c,
                       "slot_mapping[%" PRId64 "] = %" PRId64
                       " is past the cache (num_blocks * block_size = %" PRId64
                       ")",
                       t, s[t], slots);
  }
  return Status::ok();
}

bool noop(const OpCall &c) { return c[T] == 0; }

int64_t floorPow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p *= 2;
  return p;
}

// Of the variants, the largest tokens_per_program <= max(1, T / (2 *
// cu_num)) rounded down to a power of two (keeps at least two programs per
// CU), else the smallest; ties go to the most num_waves (fastest on the H200
// for every tokens_per_program measured, test/gpu/README.md).
const Variant *heuristic(OpCall &c, const Variant *const *vs, size_t n) {
  int64_t cap = c.cuNum > 0 ? c[T] / (2 * int64_t(c.cuNum)) : 1;
  cap = cap < 1 ? 1 : floorPow2(cap);
  const Variant *best = nullptr, *smallest = nullptr;
  int64_t bestTpp = 0, smallestTpp = INT64_MAX, bestWaves = 0,
          smallestWaves = 0;
  for (size_t i = 0; i < n; ++i) {
    const Variant *v = vs[i];
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
  return best ? best : smallest;
}

void plan(OpCall &c, const Variant &v, uint32_t grid[3]) {
  int64_t tpp = std::max<int64_t>(1, v.knob("tokens_per_program", 1));
  grid[0] = static_cast<uint32_t>((c[T] + tpp - 1) / tpp);
}

OpSpec spec = {
    "indexer_k_cache_write",
    "indexer_k_cache_write",
    /*symbols=*/
    {{"T", 0, INT32_MAX},
     {"head_dim", 128, 128},
     {"num_blocks", 1, INT64_MAX},
     {"block_size", 1, INT32_MAX},
     {"row_bytes", 132, 132},
     {"k_row_stride"},
     {"num_slots"},
     {"k_bf16", 0, 1},
     {"preshuffle", 0, 1},
     {"scale_fmt", 0, 1}},
    /*tensors=*/
    {{"k",
      dtypeBit(TESSEL_DTYPE_BF16) | dtypeBit(TESSEL_DTYPE_F32),
      {{"T", "head_dim"}},
      StrideRule::Rows,
      "k_row_stride",
      /*rowStrideMultiple=*/8, // the kernel's tile.divisibility promise
      /*align=*/16},
     {"slot_mapping",
      dtypeBit(TESSEL_DTYPE_I64),
      {{"T"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      8},
     {"kv_cache",
      dtypeBit(TESSEL_DTYPE_U8),
      {{"num_blocks", "block_size", "1", "row_bytes"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      16,
      /*written=*/true}},
    /*options=*/
    {{"preshuffle", 0}, {"scale_fmt", 0, {nullptr, "ue8m0"}}},
    /*params (kernels_dsl/variants.json signature)=*/
    {memrefParam("k", "k", 1), memrefParam("slot_mapping", "slot_mapping", 8),
     memrefParam("cache", "kv_cache", 1),
     scalarParam("num_tokens", ArgKind::I32, "T"),
     scalarParam("k_row_stride", ArgKind::I64, "k_row_stride"),
     scalarParam("block_size", ArgKind::I32, "block_size"),
     scalarParam("num_slots", ArgKind::I64, "num_slots")},
    /*schema=*/
    {"indexer_k_cache_write",
     {{"arch", ColumnType::String, true, 0},
      {"cu_num", ColumnType::Int, true, 1},
      {"head_dim", ColumnType::Int, true, 1},
      {"kv_block_size", ColumnType::Int, true, 1},
      {"k_dtype", ColumnType::String, true, 0},
      {"preshuffle", ColumnType::Int, true, 0},
      {"tokens", ColumnType::Int, true, 1},
      {"kernel", ColumnType::String, false, 0},
      {"tokens_per_program", ColumnType::Int, false, 1},
      {"num_waves", ColumnType::Int, false, 1},
      {"waves_per_eu", ColumnType::Int, false, 0},
      {"us", ColumnType::Real, false, 0},
      {"tbps", ColumnType::Real, false, 0}}},
    /*key=*/
    {{"arch", KeyRole::Arch},
     {"cu_num", KeyRole::CuNum},
     {"head_dim", KeyRole::Match, "head_dim"},
     {"kv_block_size", KeyRole::Match, "block_size"},
     {"k_dtype", KeyRole::Match, "k_bf16", {"f32", "bf16"}},
     {"preshuffle", KeyRole::Match, "preshuffle"},
     {"tokens", KeyRole::Bucket, "T"}},
    /*callKnobs=*/
    {{"k_bf16", "k_bf16", -1},
     {"preshuffle", "preshuffle", 0},
     {"scale_ue8m0", "scale_fmt", 0}},
    /*rowKnobs=*/
    {{"tokens_per_program", "tokens_per_program", 1},
     {"num_waves", "num_waves", 1},
     {"waves_per_eu", "waves_per_eu", 0}},
    /*rowValues=*/{},
    /*knobRules=*/
    {{"k_bf16", true, 0, 1},
     {"tokens_per_program", false, 1, INT32_MAX},
     {"preshuffle", false, 0, 1},
     {"scale_ue8m0", false, 0, 1}},
    /*workspaceBytes=*/nullptr,
    check,
    noop,
    heuristic,
    plan,
};
OpRegistrar registrar(spec);

} // namespace
} // namespace tessel

using namespace tessel;

extern "C" tessel_status tessel_indexer_k_cache_write_opts(
    tessel_context *ctx, const tessel_tensor *k,
    const tessel_tensor *slot_mapping, const tessel_tensor *kv_cache,
    const tessel_k_cache_write_options *options, tessel_stream stream) {
  const tessel_tensor *ts[] = {k, slot_mapping, kv_cache};
  int64_t opts[] = {options ? options->preshuffle : 0,
                    options ? options->scale_fmt : 0};
  return launchOp(ctx, spec, ts, 3, opts, 2, stream);
}

extern "C" tessel_status
tessel_indexer_k_cache_write(tessel_context *ctx, const tessel_tensor *k,
                             const tessel_tensor *slot_mapping,
                             const tessel_tensor *kv_cache,
                             tessel_stream stream) {
  return tessel_indexer_k_cache_write_opts(ctx, k, slot_mapping, kv_cache,
                                           nullptr, stream);
}
