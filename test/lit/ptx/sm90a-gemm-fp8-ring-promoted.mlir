// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring_promoted.mlir --target=sm_90a --emit=ptx --ptxas=none --knob num_waves=4 -o - | FileCheck %s
// Checks the f32 promotion of the ring GEMM's partial sums: in each step the
// 2 m64n128k32 are committed without a wait, the 6 cp.async of fill i + 2
// are issued while they run, and only then does the step wait for them (0
// in flight) and add their 64 partial sums per thread to the f32
// accumulator: no add.f32 in the loop before that wait.

// CHECK-LABEL: .entry scaled_gemm_fp8_ring_promoted(
// CHECK-COUNT-2: cp.async.mbarrier.arrive.noinc
// CHECK: $L__BB0_[[LOOP:[0-9]+]]:
// CHECK-NOT: add.rn.f32
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: add.rn.f32
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NOT: add.rn.f32
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group
// CHECK-NOT: add.rn.f32
// CHECK-COUNT-6: cp.async.cg.shared.global
// CHECK-NOT: add.rn.f32
// CHECK: cp.async.mbarrier.arrive.noinc
// CHECK-NOT: add.rn.f32
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-COUNT-64: add.rn.f32
// CHECK-NOT: add.rn.f32
// CHECK: bra {{[[:space:]]*}}$L__BB0_[[LOOP]];
// CHECK: ret;
