// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx942 --emit=asm --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// Checks the topk_per_row kernel on gfx942: the digit histograms add into
// LDS bins with LDS atomics (ds_add_u32) inside the per-bin peer loop
// (v_readfirstlane_b32 names the bin), the suffix scan runs through DPP
// (row_shr, row_bcast), the output positions come from ballot prefix
// counts (v_mbcnt_lo/hi), one
// workgroup of 1024 lanes, and nothing goes to scratch (no private
// segment, no VGPR spills).

// CHECK-LABEL: topk_per_row:
// CHECK-DAG: v_readfirstlane_b32
// CHECK-DAG: ds_add_u32
// CHECK-DAG: v_mbcnt_lo_u32_b32
// CHECK-DAG: v_mbcnt_hi_u32_b32
// CHECK-DAG: row_shr:1
// CHECK-DAG: row_bcast:15
// CHECK-DAG: row_bcast:31
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .max_flat_workgroup_size: 1024
// CHECK: .private_segment_fixed_size: 0
// CHECK: .vgpr_spill_count: 0
