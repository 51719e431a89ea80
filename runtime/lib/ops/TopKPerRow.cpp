//===- TopKPerRow.cpp - The topk_per_row op -------------------------------===//
//
// Top-k per row of the sparse-attention indexer (DESIGN.md 3.2), declared
// for the op registry. The kernel ABI is kernels_dsl/topk_per_row.mlir's,
// with a variant per k, workgroup size (num_waves), output order (sorted)
// and grid (persistent):
//
//  - persistent = 0: one workgroup per row, grid (R);
//  - persistent = 1: `parts` workgroups per row joined by grid barriers,
//    grid (parts, R), for few long rows. It serves R <= kSplitMaxRows
//    (tessel/topk_workspace.h) and no more rows than the device holds
//    programs of it at once; parts is the table's value, or the rule of
//    splitParts(), never more than fit resident. Its workspace is one
//    buffer per context and stream, zeroed when allocated; the kernel
//    leaves what the next launch reads zero (tessel/topk_workspace.h).
//
// The call's k and sorted flag choose among the variants; the tuned table
// (runtime/tuned/topk_per_row.csv) picks num_waves and persistent (and
// may fix parts) by rows and columns for both orders. Without a row that
// serves the call, the heuristic takes the first variant built for the
// call's k and order, persistent where R <= 8 and L >= 16384 (a
// one-workgroup grid of that few rows leaves most of the device idle),
// one-workgroup otherwise, either where only it serves.
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "OpRegistry.h"
#include "tessel/topk_workspace.h"

#include <algorithm>
#include <cinttypes>

namespace tessel {
namespace {

enum Sym { R, L, RowStride, B, NextN, Lens2d, K, Stable, Sorted, Parts };
enum Tensor { Logits, ContextLens, Indices };

Status check(OpCall &c) {
  c.set(Lens2d, c.rankAlt[ContextLens] == 1);
  c.set(Parts, 0); // the rule of splitParts(), unless a table row fixes it
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

bool isPersistent(const Variant &v) { return v.knob("persistent", 0) != 0; }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows and widths from which the heuristic prefers the persistent variant
// (runtime/README.md).
constexpr int64_t kPersistentMaxRows = 8;
constexpr int64_t kPersistentMinCols = 16384;

// Every program of a persistent variant's grid must be resident at once
// (its grid barriers wait for all of them), and each row has a region of
// the workspace.
const char *refusal(const OpCall &c, const Variant &v) {
  if (!isPersistent(v))
    return nullptr;
  if (c[R] > topk::kSplitMaxRows)
    return "the persistent variant serves at most 64 rows (kSplitMaxRows, "
           "tessel/topk_workspace.h)";
  if (c[R] > v.residentPrograms)
    return "the persistent variant needs a program per row resident at "
           "once, and the device holds fewer of it";
  return nullptr;
}
static_assert(topk::kSplitMaxRows == 64, "refusal() names the limit");

bool accepts(const OpCall &c, const Variant &v) { return !refusal(c, v); }

// The most parts per row the rule gives: on the H200 more cost more in the
// three grid barriers and the histogram atomics than the shorter slices
// save (1 x 131072 at 8 warps: 26.0 us with 32 parts, 29.2 with 64).
constexpr int64_t kRuleMaxParts = 32;

// Programs per row of a persistent variant: the table's `parts` where a row
// gives one (> 0), else one per chunk of the row (num_waves * 256 columns)
// up to kRuleMaxParts; at most kSplitMaxParts, and never more than the
// device holds resident for R rows at once.
int64_t splitParts(const OpCall &c, const Variant &v) {
  int64_t resident = std::min(v.residentPrograms / c[R], topk::kSplitMaxParts);
  int64_t chunk = 256 * v.knob("num_waves", 16);
  int64_t want =
      c[Parts] > 0 ? c[Parts] : std::min(ceilDiv(c[L], chunk), kRuleMaxParts);
  return std::max<int64_t>(1, std::min(want, resident));
}

void plan(OpCall &c, const Variant &v, uint32_t grid[3]) {
  if (!isPersistent(v)) {
    c.set(Parts, 1);
    grid[0] = static_cast<uint32_t>(c[R]);
    return;
  }
  c.set(Parts, splitParts(c, v));
  grid[0] = static_cast<uint32_t>(c[Parts]);
  grid[1] = static_cast<uint32_t>(c[R]);
}

// The documented rule (file header): of the variants that serve the call,
// the first of the preferred grid, else the first.
const Variant *heuristic(OpCall &c, const Variant *const *vs, size_t n) {
  bool persistent = c[R] <= kPersistentMaxRows && c[L] >= kPersistentMinCols;
  for (size_t i = 0; i < n; ++i)
    if (isPersistent(*vs[i]) == persistent)
      return vs[i];
  return vs[0];
}

uint64_t workspaceBytes(int) { return topk::kSplitWorkspaceBytes; }

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
     {"sorted", 0, 1},
     {"parts", 0, topk::kSplitMaxParts}},
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
     scalarParam("lens_2d", ArgKind::I32, "lens_2d"),
     memrefParam("workspace", nullptr, 4),
     scalarParam("parts", ArgKind::I32, "parts")},
    /*schema=*/
    {"topk_per_row",
     {{"arch", ColumnType::String, true, 0},
      {"cu_num", ColumnType::Int, true, 1},
      {"k", ColumnType::Int, true, 1},
      {"rows", ColumnType::Int, true, 1},
      {"cols", ColumnType::Int, true, 1},
      {"kernel", ColumnType::String, false, 0},
      {"num_waves", ColumnType::Int, false, 1},
      {"persistent", ColumnType::Int, false, 0},
      {"parts", ColumnType::Int, false, 0},
      {"us", ColumnType::Real, false, 0}}},
    /*key=*/
    {{"arch", KeyRole::Arch},
     {"cu_num", KeyRole::CuNum},
     {"k", KeyRole::Match, "k"},
     {"rows", KeyRole::Bucket, "R"},
     {"cols", KeyRole::Bucket, "L"}},
    /*callKnobs=*/{{"k", "k", -1}, {"sorted", "sorted", 0}},
    /*rowKnobs=*/
    {{"num_waves", "num_waves", 16}, {"persistent", "persistent", 0}},
    /*rowValues=*/{{"parts", "parts"}},
    /*knobRules=*/{{"k", true, 512, 2048}, {"persistent", false, 0, 1}},
    workspaceBytes,
    check,
    noop,
    heuristic,
    plan,
    /*before=*/nullptr,
    accepts,
    /*usesWorkspace=*/isPersistent,
    /*zeroWorkspace=*/true,
    refusal,
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
