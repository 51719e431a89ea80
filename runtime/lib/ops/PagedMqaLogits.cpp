//===- PagedMqaLogits.cpp - The paged_mqa_logits op -----------------------===//
//
// Fp8 paged MQA logits of the sparse-attention indexer (DESIGN.md 3.1),
// declared for the op registry. The kernel ABI is kernels_dsl/
// paged_mqa_logits.mlir's; persistent variants read a schedule that the
// paged_mqa_logits_metadata op writes into this op's workspace first.
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "OpRegistry.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdlib>

namespace tessel {
namespace {

enum Sym {
  B,
  NextN,
  Heads,
  HeadDim,
  NumBlocks,
  BlockSize,
  RowBytes,
  MaxBlocks,
  BlockTableStride,
  OutRowStride,
  MaxModelLen,
  Preshuffle,
  WriteTail,
  Lens2d,
  BlockShift,
  SplitKv,
  SplitTokens,
};

enum Tensor { Q, KvCache, Weights, ContextLens, BlockTables, Out };

int log2Exact(int64_t v) {
  int l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return l;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Lengths and block ids, where device memory is host memory.
Status checkValues(OpCall &c) {
  int64_t perBatch = c[Lens2d] ? c[NextN] : 1;
  if (Status s =
          checkContextLens(c, ContextLens, c[MaxModelLen], "max_model_len"))
    return s;
  const int32_t *lens = static_cast<const int32_t *>(c.t[ContextLens]->data);
  const int32_t *tables = static_cast<const int32_t *>(c.t[BlockTables]->data);
  for (int64_t b = 0; b < c[B]; ++b) {
    int64_t longest = 0;
    for (int64_t j = 0; j < perBatch; ++j)
      longest = std::max<int64_t>(longest, lens[b * perBatch + j]);
    int64_t blocks = ceilDiv(longest, c[BlockSize]);
    if (blocks > c[MaxBlocks])
      return opError(c,
                     "block_tables: batch %" PRId64 " has %" PRId64
                     " tokens, which need %" PRId64
                     " blocks, but block_tables has %" PRId64 " per sequence",
                     b, longest, blocks, c[MaxBlocks]);
    for (int64_t i = 0; i < blocks; ++i) {
      int64_t id = tables[b * c[BlockTableStride] + i];
      if (id < 0 || id >= c[NumBlocks])
        return opError(c,
                       "block_tables[%" PRId64 "][%" PRId64 "] = %" PRId64
                       " is not a block of kv_cache (num_blocks = %" PRId64 ")",
                       b, i, id, c[NumBlocks]);
    }
  }
  return Status::ok();
}

Status check(OpCall &c) {
  c.set(Lens2d, c.rankAlt[ContextLens] == 1);
  c.set(BlockShift, log2Exact(c[BlockSize]));
  if (c[Preshuffle] && c[BlockSize] % 16 != 0)
    return opError(c,
                   "kv_cache: a preshuffled cache needs block_size %% 16 == 0, "
                   "got block_size %" PRId64,
                   c[BlockSize]);
  if (!c.device)
    return Status::ok();
  tessel_dtype qt = c.t[Q]->dtype, fp8 = fp8DtypeOfArch(c.device->arch());
  if (qt != TESSEL_DTYPE_U8 && qt != fp8)
    return opError(c,
                   "q: dtype %s is not the fp8 format of %s (%s); pass that "
                   "dtype or uint8 bytes of it",
                   dtypeName(qt), c.device->arch().c_str(), dtypeName(fp8));
  if (c.device->hostMemory() && c[B] > 0)
    return checkValues(c);
  return Status::ok();
}

bool noop(const OpCall &c) { return c[B] == 0 || c[MaxModelLen] == 0; }

// The available value of `knob` nearest to `want` in log2 (ties: larger).
int64_t nearestKnob(const Variant *const *vs, size_t n, const char *knob,
                    int64_t dflt, int64_t want) {
  int64_t best = -1;
  double bestD = 1e300;
  for (size_t i = 0; i < n; ++i) {
    int64_t v = vs[i]->knob(knob, dflt);
    double d = std::abs(std::log2(double(std::max<int64_t>(v, 1))) -
                        std::log2(double(std::max<int64_t>(want, 1))));
    if (d < bestD || (d == bestD && v > best)) {
      best = v;
      bestD = d;
    }
  }
  return best;
}

// rows_per_program: the smallest that holds all next_n rows in one M tile
// of at most 128 (rpp * heads), else the largest within 128, else the
// smallest available.
int64_t pickRows(const OpCall &c, const Variant *const *vs, size_t n) {
  int64_t cover = INT64_MAX, fit = 0, any = INT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    int64_t r = vs[i]->knob("rows_per_program", 1);
    any = std::min(any, r);
    if (r * c[Heads] > 128)
      continue;
    fit = std::max(fit, r);
    if (r >= c[NextN])
      cover = std::min(cover, r);
  }
  return cover != INT64_MAX ? cover : fit ? fit : any;
}

// Contexts from which a persistent variant is preferred (runtime/README.md):
// below it the kernel is short enough that the schedule's extra launch
// would cost more than the imbalance it removes.
constexpr int64_t kPersistentMinContext = 16384;

// Whether the persistent variants `vs` should serve the call: several
// batches, fewer programs of row groups than CUs (the split-grid variant
// must split rows, and splits of short rows finish early while those of
// long rows still run), and long contexts. The lengths themselves are in
// device memory, so unevenness is assumed wherever it can hurt.
bool prefersPersistent(const OpCall &c, const Variant *const *vs, size_t n) {
  if (n == 0 || c[B] < 2 || c[MaxModelLen] < kPersistentMinContext)
    return false;
  int64_t groups = ceilDiv(c[NextN], pickRows(c, vs, n));
  return c[B] * groups < int64_t(std::max(c.cuNum, 1));
}

// The documented heuristic (runtime/README.md): persistent variants where
// prefersPersistent says so (or where only they serve), else split-grid
// ones; of those, rows_per_program by pickRows; chunk_k nearest to 64 for
// max_model_len <= 4096, else to 256; waves_per_eu nearest to 2; the most
// num_waves; then for a split-grid variant split_kv = clamp(ceil(2 *
// cu_num / (B * groups)), 1, ceil(max_model_len / chunk_k)): about two
// waves of programs per CU, never more splits than chunks. Where a call
// accepts both, kv_rows_aligned variants are preferred.
const Variant *heuristic(OpCall &c, const Variant *const *all, size_t n) {
  const Variant *plain[kMaxHeuristicVariants], *pers[kMaxHeuristicVariants];
  size_t np = 0, nq = 0;
  for (size_t i = 0; i < n; ++i)
    if (all[i]->knob("persistent", 0) == 0)
      plain[np++] = all[i];
    else
      pers[nq++] = all[i];
  const bool persistent = np == 0 || prefersPersistent(c, pers, nq);
  const Variant **vs = persistent ? pers : plain;
  size_t m = persistent ? nq : np;
  if (m == 0)
    return nullptr;
  int64_t rpp = pickRows(c, vs, m);
  auto keep = [&](const char *knob, int64_t dflt, int64_t v) {
    size_t k = 0;
    for (size_t i = 0; i < m; ++i)
      if (vs[i]->knob(knob, dflt) == v)
        vs[k++] = vs[i];
    m = k;
  };
  keep("rows_per_program", 1, rpp);
  int64_t chunk =
      nearestKnob(vs, m, "chunk_k", 64, c[MaxModelLen] <= 4096 ? 64 : 256);
  keep("chunk_k", 64, chunk);
  keep("waves_per_eu", 0, nearestKnob(vs, m, "waves_per_eu", 0, 2));
  keep("kv_rows_aligned", 0, nearestKnob(vs, m, "kv_rows_aligned", 0, 1));
  const Variant *best = vs[0];
  for (size_t i = 1; i < m; ++i)
    if (vs[i]->knob("num_waves", 1) > best->knob("num_waves", 1))
      best = vs[i];
  if (persistent) {
    c.set(SplitKv, 1);
    return best;
  }
  int64_t groups = ceilDiv(c[NextN], rpp);
  int64_t split = ceilDiv(2 * int64_t(std::max(c.cuNum, 1)), c[B] * groups);
  split = std::min(split, std::max<int64_t>(1, ceilDiv(c[MaxModelLen], chunk)));
  c.set(SplitKv, std::max<int64_t>(split, 1));
  return best;
}

void plan(OpCall &c, const Variant &v, uint32_t grid[3]) {
  int64_t rpp = std::max<int64_t>(1, v.knob("rows_per_program", 1));
  int64_t chunk = std::max<int64_t>(1, v.knob("chunk_k", 64));
  int64_t groups = ceilDiv(c[NextN], rpp);
  grid[2] = static_cast<uint32_t>(groups);
  if (v.knob("persistent", 0)) {
    // Segments of whole chunks, about two per CU over the longest rows.
    int64_t chunks = ceilDiv(c[MaxModelLen], chunk) * c[B];
    int64_t per = ceilDiv(chunks, 2 * int64_t(std::max(c.cuNum, 1)));
    c.set(SplitTokens, chunk * std::max<int64_t>(per, 1));
    grid[0] = static_cast<uint32_t>(std::max(c.cuNum, 1));
    grid[1] = 1;
    return;
  }
  if (!c.bound[SplitKv] || c[SplitKv] < 1)
    c.set(SplitKv, 1);
  c.set(SplitTokens, chunk);
  grid[0] = static_cast<uint32_t>(std::min<int64_t>(c[SplitKv], INT32_MAX));
  grid[1] = static_cast<uint32_t>(c[B]);
}

// A persistent variant's schedule, on the same stream, into the workspace.
Status before(tessel_context *ctx, OpCall &c, const Variant &v, void *stream) {
  if (!v.knob("persistent", 0))
    return Status::ok();
  const OpSpec *meta = findOp("paged_mqa_logits_metadata");
  if (!meta || !c.workspace)
    return Status::error(TESSEL_ERROR_NO_KERNEL,
                         "paged_mqa_logits: the persistent variant needs the "
                         "schedule workspace and the metadata op");
  tessel_tensor sched{};
  sched.data = c.workspace;
  sched.dtype = TESSEL_DTYPE_I32;
  sched.rank = 2;
  sched.shape[0] = c.cuNum + 1;
  sched.shape[1] = 2;
  sched.strides[0] = 2;
  sched.strides[1] = 1;
  const tessel_tensor *ts[] = {c.t[ContextLens], &sched};
  int64_t opts[] = {c[SplitTokens], c.cuNum};
  return launchOpLocked(ctx, *meta, ts, 2, opts, 2, stream);
}

// A kv_rows_aligned variant strides blocks by 4*(block_size/4) tokens so
// that its K rows load 16 bytes at a time: right only for block_size % 4 == 0.
bool accepts(const OpCall &c, const Variant &v) {
  return v.knob("kv_rows_aligned", 0) == 0 || c[BlockSize] % 4 == 0;
}

// Only the persistent variants read the schedule in the workspace.
bool usesWorkspace(const Variant &v) { return v.knob("persistent", 0) != 0; }

uint64_t workspaceBytes(int cuNum) {
  return uint64_t(std::max(cuNum, 1) + 1) * 2 * sizeof(int32_t);
}

constexpr DtypeSet kFp8Bytes = dtypeBit(TESSEL_DTYPE_U8) |
                               dtypeBit(TESSEL_DTYPE_FP8_E4M3FN) |
                               dtypeBit(TESSEL_DTYPE_FP8_E4M3FNUZ);

OpSpec spec = {
    "paged_mqa_logits",
    "paged_mqa_logits",
    /*symbols=*/
    {{"B", 0, INT32_MAX},
     {"next_n", 1, 8},
     {"heads", 0, 0, {16, 32, 64, 128}},
     {"head_dim", 128, 128},
     {"num_blocks", 1, INT32_MAX},
     {"block_size", 0, 0, {1, 16, 32, 64, 128, 256}},
     {"row_bytes", 132, 132},
     {"max_blocks_per_seq", 0, INT32_MAX},
     {"block_table_stride"},
     {"out_row_stride"},
     {"max_model_len", 0, INT32_MAX},
     {"preshuffle", 0, 1},
     {"write_tail", 0, 1},
     {"lens_2d", 0, 1},
     {"block_shift", 0, 8},
     {"split_kv", 1, INT32_MAX},
     {"split_tokens", 1, INT32_MAX}},
    /*tensors=*/
    {{"q",
      kFp8Bytes,
      {{"B", "next_n", "heads", "head_dim"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      16},
     {"kv_cache",
      dtypeBit(TESSEL_DTYPE_U8),
      {{"num_blocks", "block_size", "1", "row_bytes"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      16},
     {"weights",
      dtypeBit(TESSEL_DTYPE_F32),
      {{"B*next_n", "heads"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      4},
     contextLensTensor(),
     {"block_tables",
      dtypeBit(TESSEL_DTYPE_I32),
      {{"B", "max_blocks_per_seq"}},
      StrideRule::Rows,
      "block_table_stride",
      1,
      4},
     {"out",
      dtypeBit(TESSEL_DTYPE_F32),
      {{"B*next_n", "max_model_len"}},
      StrideRule::Rows,
      "out_row_stride",
      1,
      4,
      /*written=*/true,
      /*allocatable=*/true}},
    /*options=*/
    {{"max_model_len", 0}, {"preshuffle", 0}, {"write_tail", 1}},
    /*params (kernels_dsl/variants.json signature)=*/
    {memrefParam("q", "q", 1), memrefParam("kv_cache", "kv_cache", 1),
     memrefParam("weights", "weights", 4), contextLensParam(),
     memrefParam("block_tables", "block_tables", 4),
     memrefParam("out", "out", 4), memrefParam("schedule", nullptr, 4),
     scalarParam("batch", ArgKind::I32, "B"),
     scalarParam("next_n", ArgKind::I32, "next_n"),
     scalarParam("lens_2d", ArgKind::I32, "lens_2d"),
     scalarParam("block_table_stride", ArgKind::I64, "block_table_stride"),
     scalarParam("block_shift", ArgKind::I32, "block_shift"),
     scalarParam("out_row_stride", ArgKind::I64, "out_row_stride"),
     scalarParam("max_model_len", ArgKind::I32, "max_model_len"),
     scalarParam("write_tail", ArgKind::I32, "write_tail"),
     scalarParam("split_tokens", ArgKind::I32, "split_tokens")},
    /*schema (DESIGN.md section 4)=*/
    {"paged_mqa_logits",
     {{"arch", ColumnType::String, true, 0},
      {"cu_num", ColumnType::Int, true, 1},
      {"heads", ColumnType::Int, true, 1},
      {"head_dim", ColumnType::Int, true, 1},
      {"kv_block_size", ColumnType::Int, true, 1},
      {"preshuffle", ColumnType::Int, true, 0},
      {"batch", ColumnType::Int, true, 1},
      {"next_n", ColumnType::Int, true, 1},
      {"context", ColumnType::Int, true, 1},
      {"kernel", ColumnType::String, false, 0},
      {"chunk_k", ColumnType::Int, false, 1},
      {"waves_per_eu", ColumnType::Int, false, 0},
      {"split_kv", ColumnType::Int, false, 1},
      {"rows_per_program", ColumnType::Int, false, 1},
      {"num_waves", ColumnType::Int, false, 1},
      {"persistent", ColumnType::Int, false, 0},
      {"tokens_on_m", ColumnType::Int, false, 0},
      {"us", ColumnType::Real, false, 0},
      {"tbps", ColumnType::Real, false, 0}}},
    /*key=*/
    {{"arch", KeyRole::Arch},
     {"cu_num", KeyRole::CuNum},
     {"heads", KeyRole::Match, "heads"},
     {"head_dim", KeyRole::Match, "head_dim"},
     {"kv_block_size", KeyRole::Match, "block_size"},
     {"preshuffle", KeyRole::Match, "preshuffle"},
     {"batch", KeyRole::Bucket, "B"},
     {"next_n", KeyRole::Match, "next_n"},
     // The longest row a call may have: the lengths are in device memory.
     {"context", KeyRole::Bucket, "max_model_len"}},
    /*callKnobs=*/
    {{"heads", "heads", -1}, {"preshuffle", "preshuffle", 0}},
    /*rowKnobs=*/
    {{"chunk_k", "chunk_k", 64},
     {"waves_per_eu", "waves_per_eu", 0},
     {"rows_per_program", "rows_per_program", 1},
     {"num_waves", "num_waves", 1},
     {"persistent", "persistent", 0},
     {"tokens_on_m", "tokens_on_m", 0}},
    /*rowValues=*/{{"split_kv", "split_kv"}},
    /*knobRules=*/
    {{"heads", true, 16, 128},
     {"rows_per_program", false, 1, 8},
     {"chunk_k", false, 1, 1 << 16},
     {"preshuffle", false, 0, 1},
     {"persistent", false, 0, 1},
     {"kv_rows_aligned", false, 0, 1},
     {"tokens_on_m", false, 0, 1}},
    workspaceBytes,
    check,
    noop,
    heuristic,
    plan,
    before,
    accepts,
    usesWorkspace,
};
OpRegistrar registrar(spec);

} // namespace
} // namespace tessel

using namespace tessel;

extern "C" tessel_status tessel_paged_mqa_logits(
    tessel_context *ctx, const tessel_tensor *q, const tessel_tensor *kv_cache,
    const tessel_tensor *weights, const tessel_tensor *context_lens,
    const tessel_tensor *block_tables, int64_t max_model_len, uint32_t flags,
    const tessel_tensor *out, tessel_stream stream) {
  const uint32_t known = TESSEL_LOGITS_PRESHUFFLED | TESSEL_LOGITS_NO_TAIL;
  if (flags & ~known)
    return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                        "paged_mqa_logits: flags 0x%x has unknown bits 0x%x",
                        flags, flags & ~known);
  const tessel_tensor *ts[] = {
      q, kv_cache, weights, context_lens, block_tables, out};
  int64_t opts[] = {max_model_len, (flags & TESSEL_LOGITS_PRESHUFFLED) ? 1 : 0,
                    (flags & TESSEL_LOGITS_NO_TAIL) ? 0 : 1};
  return launchOp(ctx, spec, ts, 6, opts, 3, stream);
}
