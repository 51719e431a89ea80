// RUN: tessel-translate %kernels/paged_mqa_logits_metadata.mlir --target=gfx942 --emit=asm --knob num_waves=16 -o - | FileCheck %s
// Checks the schedule metadata kernel on gfx942: the prefix sum of a batch
// tile as a DPP scan (row_shr, row_bcast), the scanned tile written to LDS
// once (16 bytes per lane, between barriers) before the binary search's
// loop of tile.gather steps, which reads it with one ds_read_b32 per unit
// and no barrier, both schedule words of a unit in one 8-byte store, one
// workgroup of 1024 lanes, and no scratch or spills.

// CHECK-LABEL: paged_mqa_logits_metadata:
// CHECK: v_add_u32_dpp {{.*}} row_shr:1
// CHECK: v_add_u32_dpp {{.*}} row_bcast:31
// CHECK: s_barrier
// CHECK: ds_write_b128
// CHECK: s_barrier
// CHECK: [[SEARCH:\.LBB0_[0-9]+]]:
// CHECK-NEXT: Parent Loop
// CHECK-NEXT: Parent Loop
// CHECK-NEXT: This Inner Loop Header
// CHECK-NOT: s_barrier
// CHECK: ds_read_b32
// CHECK-NOT: s_barrier
// CHECK: s_cbranch_scc1 [[SEARCH]]
// CHECK: global_store_dwordx2
// CHECK: .amdhsa_group_segment_fixed_size 16384
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .max_flat_workgroup_size: 1024
// CHECK: .sgpr_spill_count: 0
// CHECK: .vgpr_spill_count: 0
// CHECK: .wavefront_size: 64
