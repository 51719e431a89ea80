// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx942 --emit=asm --knob k=2048 --knob num_waves=16 --knob sorted=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx950 --emit=asm --knob k=2048 --knob num_waves=16 --knob sorted=1 -o - | FileCheck %s
// Checks the sorted topk_per_row variant on gfx942 and gfx950: the pairs
// go into LDS by LDS exchanges (ds_wrxchg_rtn_b32), the sort's splits use
// ballot prefix counts (v_mbcnt), LDS is the 8 KiB of histogram bins plus
// 16 KiB for 2048 keys and 2048 columns plus the 32 KiB candidate buffer
// (4096 keys and columns), and nothing goes to scratch.

// CHECK-LABEL: topk_per_row:
// CHECK-DAG: ds_wrxchg_rtn_b32
// CHECK-DAG: v_mbcnt_lo_u32_b32
// CHECK-DAG: ds_add_u32
// CHECK: .amdhsa_group_segment_fixed_size 57344
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .group_segment_fixed_size: 57344
// CHECK: .private_segment_fixed_size: 0
// CHECK: .vgpr_spill_count: 0
