// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90 --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=8 --knob waves_per_eu=0 --knob preshuffle=0 --knob persistent=0 --knob kv_rows_aligned=1 -o - | FileCheck %s
// Checks the portable sm_90 variant of the paged MQA logits kernel (64
// heads, 64-token chunks, 8 warps): no wgmma; e4m3 converted to f16 pairs
// and the dot on mma.sync m16n8k16 f16: M 64 x N 64 x K 128 over 8 warps
// (8 tokens each) is (64/16) x (8/8) x (128/16) = 32 per warp and chunk.

// CHECK-NOT: wgmma
// CHECK-LABEL: .entry paged_mqa_logits(
// CHECK: Inner Loop Header
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// CHECK: max.f32
// CHECK: %._crit_edge
// CHECK-NOT: wgmma
