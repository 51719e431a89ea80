// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx942 --emit=asm --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=gfx950 --emit=asm --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// Checks that topk_per_row reads its row 16 bytes per lane on gfx942 and
// gfx950: the row loads of the histogram pass and of the write-out pass
// (4 consecutive columns per lane, masked by column < len) are one
// global_load_dwordx4 each, taken where the lane's last column is in the
// row; dword loads remain only for a row's partial last group.

// CHECK-LABEL: topk_per_row:
// CHECK: global_load_dword {{.*}}, off
// CHECK: global_load_dwordx4
// CHECK: global_load_dwordx4
// CHECK-NOT: global_load_dwordx4
// CHECK: .amdhsa_private_segment_fixed_size 0
