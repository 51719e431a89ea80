// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx942 --emit=asm --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx950 --emit=asm --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// Checks the unsorted topk_per_row kernel's LDS on gfx942 and gfx950: the
// 8 KiB of histogram bins plus the 32 KiB candidate buffer (4096 keys and
// 4096 columns), zeroed by 16-byte LDS stores and filled by LDS exchanges
// (ds_wrxchg_rtn_b32; the unsorted kernel has no other scatter), with
// nothing in scratch.

// CHECK-LABEL: topk_per_row:
// CHECK-DAG: ds_wrxchg_rtn_b32
// CHECK-DAG: ds_write_b128
// CHECK: .amdhsa_group_segment_fixed_size 40960
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .group_segment_fixed_size: 40960
// CHECK: .private_segment_fixed_size: 0
// CHECK: .vgpr_spill_count: 0
