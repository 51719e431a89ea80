// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=2048 --knob num_waves=16 --knob sorted=1 -o - | FileCheck %s --check-prefixes=CHECK,K2048
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=512 --knob num_waves=8 --knob sorted=1 -o - | FileCheck %s --check-prefixes=CHECK,K512
// Checks the sorted topk_per_row variant on Hopper: shared memory holds the
// 2048 histogram bins (8 KiB) plus the row's k keys and k columns (8 KiB
// each for k = 2048, 2 KiB each for k = 512) plus the candidate buffer of
// 2048 keys and 2048 columns (16 KiB; 48 KiB less 16 KiB kept and the k
// pairs leaves room for 2048 pairs both times), the pairs are scattered
// into it with shared exchanges between barriers, and nothing lives in
// local memory.

// CHECK: .visible .entry topk_per_row(
// K2048: .shared .align 16 .b8 __wg_topk_per_row_0[40960];
// K512: .shared .align 16 .b8 __wg_topk_per_row_0[28672];
// CHECK-NOT: .local
// CHECK-DAG: atom.shared.exch.b32
// CHECK-DAG: atom.shared.add.u32
// CHECK-DAG: bar.sync
