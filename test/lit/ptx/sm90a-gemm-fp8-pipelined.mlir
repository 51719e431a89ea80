// RUN: tessel-translate %kernels/scaled_gemm_fp8_pipelined.mlir --target=sm_90a --emit=ptx --ptxas=none --knob num_waves=4 -o - | FileCheck %s
// Checks the two-stage pipeline of the sm_90a fp8 GEMM on one warpgroup.
// A K step copies A [64, 128] and B [128 k, 128 n] fp8 (8192 + 16384
// bytes) with cp.async of 16 bytes: 24576 / 16 / 128 threads = 12 per
// thread (4 of A, 8 of B), once in the prologue (step 0) and once in the
// loop (step i + 1), then a commit. In the loop, after the commit, the
// wait leaves 1 group in flight, the writes are fenced for the async proxy
// and the warpgroup issues 128 / 32 = 4 m64n128k32 reading descriptors of
// the copied buffers: nothing is stored to shared memory by st.shared.

// CHECK-LABEL: .entry scaled_gemm_fp8_pipelined(
// CHECK-NOT: st.shared
// CHECK-COUNT-12: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.commit_group;
// CHECK-NOT: cp.async.wait_group
// CHECK: $L__BB0_[[LOOP:[0-9]+]]:
// CHECK-NOT: cp.async.wait_group
// CHECK-COUNT-12: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}1;
// CHECK-NEXT: bar.sync
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK: bra {{[[:space:]]*}}$L__BB0_[[LOOP]];
// CHECK-NOT: cp.async
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: st.shared
// CHECK: ret;
