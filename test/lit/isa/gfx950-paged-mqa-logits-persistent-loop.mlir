// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx950 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 -o - | FileCheck %s
// Checks the chunk loop of the persistent paged MQA logits variant on
// gfx950 (64 heads, one row, 128-token chunks over 4 waves), the innermost of
// the batch and segment loops: each iteration first issues the next
// chunk's K as 4 global_load_dwordx4 per lane (32 tokens x 128 bytes per
// wave, 16 contiguous bytes per load), then runs the current chunk's
// arithmetic minimum of v_mfma_f32_16x16x128_f8f6f4:
// (64/16) x (32/16) x (128/128) = 8 per wave. It is the kernel's only loop with MFMAs,
// and the variant uses no LDS, no AGPRs and no scratch.

// CHECK: Inner Loop Header: Depth=3
// CHECK-NOT: v_mfma
// CHECK-COUNT-4: global_load_dwordx4
// CHECK-NOT: global_load_dwordx4
// CHECK-COUNT-8: v_mfma_f32_16x16x128_f8f6f4
// CHECK-NOT: v_mfma
// CHECK-NOT: global_load_dwordx4
// CHECK: %._crit_edge
// CHECK-NOT: v_mfma
// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
