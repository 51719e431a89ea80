//===- TopKPerRow.cpp - The topk_per_row op -------------------------------===//
//
// Top-k per row of the sparse-attention indexer (DESIGN.md 3.2), declared
// for the op registry. The kernel ABI is kernels_dsl/topk_per_row.mlir's:
// one workgroup per row, a variant per k, workgroup size (num_waves) and
// output order (sorted). The call's k and sorted flag choose among the
// variants; the tuned table (runtime/tuned/topk_per_row.csv) picks
// num_waves by rows and columns for both orders; without a row, the first
// variant built for the call's k and order serves.
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "OpRegistry.h"

#include <cinttypes>

namespace tessel {
namespace {

enum Sym { R, L, RowStride, B, NextN, Lens2d, K, Stable, Sorted };
enum Tensor { Logits, ContextLens, Indices };

Status check(OpCall &c) {
  c.set(Lens2d, c.rankAlt[ContextLens] == 1);
  if (c[R] != c[B] * c[NextN])
    return opError(c,
                   "logits: %" PRId64 " rows, but context_lens describes "
                   "B * next_n = %" PRId64 " * %" PRId64 " = %" PRId64,
                   c[R], c[B], c[NextN], c[B] * c[NextN]);
  if (c.device && c.device->hostMemory() && c[B] > 0)
    return checkContextLens(c, ContextLens, c[L], "the logits' columns, L");
  return Status::ok();
}

bool noop(const OpCall &c) { return c[R] == 0; }

void plan(OpCall &c, const Variant &, uint32_t grid[3]) {
  grid[0] = static_cast<uint32_t>(c[R]);
}

OpSpec spec = {
    "topk_per_row",
    "topk_per_row",
    /*symbols=*/
    {{"R", 0, INT32_MAX},
     {"L", 0, INT32_MAX},
     {"row_stride"},
     {"B", 0, INT32_MAX},
     {"next_n", 1, 8},
     {"lens_2d", 0, 1},
     {"k", 0, 0, {512, 1024, 2048}},
     {"stable", 0, 1},
     {"sorted", 0, 1}},
    /*tensors=*/
    {{"logits",
      dtypeBit(TESSEL_DTYPE_F32),
      {{"R", "L"}},
      StrideRule::Rows,
      "row_stride",
      1,
      4},
     contextLensTensor(),
     {"indices",
      dtypeBit(TESSEL_DTYPE_I32),
      {{"R", "k"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      4,
      /*written=*/true,
      /*allocatable=*/true}},
    /*options=*/
    {{"next_n", 1}, {"k", 2048}, {"stable", 0}, {"sorted", 0}},
    /*params (kernels_dsl/variants.json signature)=*/
    {memrefParam("logits", "logits", 4), contextLensParam(),
     memrefParam("indices", "indices", 4),
     scalarParam("rows", ArgKind::I32, "R"),
     scalarParam("cols", ArgKind::I32, "L"),
     scalarParam("row_stride", ArgKind::I64, "row_stride"),
     scalarParam("next_n", ArgKind::I32, "next_n"),
     scalarParam("lens_2d", ArgKind::I32, "lens_2d")},
    /*schema=*/
    {"topk_per_row",
     {{"arch", ColumnType::String, true, 0},
      {"cu_num", ColumnType::Int, true, 1},
      {"k", ColumnType::Int, true, 1},
      {"rows", ColumnType::Int, true, 1},
      {"cols", ColumnType::Int, true, 1},
      {"kernel", ColumnType::String, false, 0},
      {"num_waves", ColumnType::Int, false, 1},
      {"us", ColumnType::Real, false, 0}}},
    /*key=*/
    {{"arch", KeyRole::Arch},
     {"cu_num", KeyRole::CuNum},
     {"k", KeyRole::Match, "k"},
     {"rows", KeyRole::Bucket, "R"},
     {"cols", KeyRole::Bucket, "L"}},
    /*callKnobs=*/{{"k", "k", -1}, {"sorted", "sorted", 0}},
    /*rowKnobs=*/{{"num_waves", "num_waves", 16}},
    /*rowValues=*/{},
    /*knobRules=*/{{"k", true, 512, 2048}},
    /*workspaceBytes=*/nullptr,
    check,
    noop,
    /*heuristic=*/nullptr,
    plan,
};
OpRegistrar registrar(spec);

} // namespace
} // namespace tessel

using namespace tessel;

extern "C" tessel_status
tessel_topk_per_row(tessel_context *ctx, const tessel_tensor *logits,
                    const tessel_tensor *context_lens, int32_t next_n,
                    int32_t k, uint32_t flags, const tessel_tensor *indices,
                    tessel_stream stream) {
  const uint32_t known = TESSEL_TOPK_STABLE | TESSEL_TOPK_SORTED;
  if (flags & ~known)
    return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                        "topk_per_row: flags 0x%x has unknown bits 0x%x", flags,
                        flags & ~known);
  const tessel_tensor *ts[] = {logits, context_lens, indices};
  int64_t opts[] = {next_n, k, (flags & TESSEL_TOPK_STABLE) ? 1 : 0,
                    (flags & TESSEL_TOPK_SORTED) ? 1 : 0};
  return launchOp(ctx, spec, ts, 3, opts, 4, stream);
}
