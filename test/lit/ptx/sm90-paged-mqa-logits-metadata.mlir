// RUN: tessel-translate %kernels/paged_mqa_logits_metadata.mlir --target=sm_90 --emit=ptx -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits_metadata.mlir --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks that the schedule metadata kernel compiles for sm_90 and sm_90a:
// the scan's warp part by shfl.sync.up, the gather through shared memory
// between barriers, 16 warps, and no local memory.

// CHECK: .visible .entry paged_mqa_logits_metadata(
// CHECK: .reqntid 512, 1, 1
// CHECK-NOT: .local
// CHECK: shfl.sync.up.b32
// CHECK: bar.sync
// CHECK: st.shared.v4.b32
// CHECK: bar.sync
// CHECK: ld.shared.b32
