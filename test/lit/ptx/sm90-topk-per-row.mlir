// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=2048 --knob num_waves=16 -o - | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=512 --knob num_waves=8 -o - | FileCheck %s --check-prefix=W8
// Checks the topk_per_row kernel on Hopper: the digit histograms combine a
// warp's lanes of one bin with match.any.sync and add into shared-memory
// bins with shared atomics, the suffix and exclusive scans
// run through shfl.sync.up, the reductions through shfl.sync.bfly, the
// workgroup is num_waves warps, and nothing lives in local memory.

// CHECK: .visible .entry topk_per_row(
// CHECK: .reqntid 512, 1, 1
// CHECK-NOT: .local
// CHECK-DAG: match.any.sync.b32
// CHECK-DAG: atom.shared.add.u32
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: bar.sync

// W8: .visible .entry topk_per_row(
// W8: .reqntid 256, 1, 1
// W8-NOT: .local
// W8: match.any.sync.b32
// W8: atom.shared.add.u32
