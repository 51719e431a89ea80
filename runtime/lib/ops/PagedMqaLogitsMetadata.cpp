//===- PagedMqaLogitsMetadata.cpp - The paged_mqa_logits_metadata op ------===//
//
// The work schedule of the persistent paged_mqa_logits variants (DESIGN.md
// 3.3; kernels_dsl/paged_mqa_logits_metadata.mlir), declared for the op
// registry. One workgroup; no tuned table (the first variant serves).
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "OpRegistry.h"

#include <cinttypes>

namespace tessel {
namespace {

enum Sym { B, NextN, Lens2d, SplitTokens, NumCus };
enum Tensor { ContextLens, Schedule };

Status check(OpCall &c) {
  c.set(Lens2d, c.rankAlt[ContextLens] == 1);
  if (!c.bound[NextN])
    c.set(NextN, 1);
  if (c.device && c.device->hostMemory())
    return checkContextLens(c, ContextLens, 0, nullptr);
  return Status::ok();
}

OpSpec spec = {
    "paged_mqa_logits_metadata",
    "paged_mqa_logits_metadata",
    /*symbols=*/
    {{"B", 1, INT32_MAX},
     {"next_n", 1, 8},
     {"lens_2d", 0, 1},
     {"split_tokens", 1, INT32_MAX},
     {"num_cus", 1, 1 << 20}},
    /*tensors=*/
    {contextLensTensor(),
     {"schedule",
      dtypeBit(TESSEL_DTYPE_I32),
      {{"num_cus+1", "2"}},
      StrideRule::Contiguous,
      nullptr,
      1,
      4,
      /*written=*/true,
      /*allocatable=*/true}},
    /*options=*/
    {{"split_tokens", 1}, {"num_cus", 0, {}, /*zeroIsCuCount=*/true}},
    /*params (kernels_dsl/variants.json signature)=*/
    {contextLensParam(), memrefParam("schedule", "schedule", 4),
     scalarParam("batch", ArgKind::I32, "B"),
     scalarParam("next_n", ArgKind::I32, "next_n"),
     scalarParam("lens_2d", ArgKind::I32, "lens_2d"),
     scalarParam("split_tokens", ArgKind::I32, "split_tokens"),
     scalarParam("num_cus", ArgKind::I32, "num_cus")},
    /*schema: none*/ {"paged_mqa_logits_metadata", {}},
    /*key=*/{},
    /*callKnobs=*/{},
    /*rowKnobs=*/{},
    /*rowValues=*/{},
    /*knobRules=*/{},
    /*workspaceBytes=*/nullptr,
    check,
};
OpRegistrar registrar(spec);

} // namespace
} // namespace tessel

using namespace tessel;

extern "C" tessel_status tessel_paged_mqa_logits_metadata(
    tessel_context *ctx, const tessel_tensor *context_lens,
    int32_t split_tokens, int32_t num_cus, const tessel_tensor *schedule,
    tessel_stream stream) {
  const tessel_tensor *ts[] = {context_lens, schedule};
  int64_t opts[] = {split_tokens, num_cus};
  return launchOp(ctx, spec, ts, 2, opts, 2, stream);
}
