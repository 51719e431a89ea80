// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring.mlir --target=sm_90a --emit=ptx --ptxas=none --knob num_waves=4 -o - | FileCheck %s
// Checks the three-stage mbarrier ring of the sm_90a fp8 GEMM on one
// warpgroup. Lane 0 initialises the 3 mbarriers for 128 arrivals. A fill
// copies A [64, 64] and B [64 k, 128 n] fp8 (4096 + 8192 bytes) with
// cp.async of 16 bytes: 12288 / 16 / 128 threads = 6 per thread, then the
// thread's arrival on the fill's barrier (cp.async.mbarrier.arrive.noinc);
// two fills in the prologue, one per loop step. A step waits for its fill
// by try_wait.parity (no cp.async groups are counted), fences the copies
// for the async proxy, issues 64 / 32 = 2 m64n128k32 from the stage, commits
// them and waits until 1 group is in flight (the previous step's has
// retired), then copies the next fill. The last wgmma is waited for (0)
// after the loop. Nothing goes through st.shared.

// CHECK-LABEL: .entry scaled_gemm_fp8_ring(
// CHECK-NOT: st.shared
// CHECK: mov.b32 {{[[:space:]]*}}%r[[ARRIVALS:[0-9]+]], 128;
// CHECK-COUNT-3: mbarrier.init.shared{{(::cta)?}}.b64 {{[[:space:]]*}}[%rd{{[0-9]+}}], %r[[ARRIVALS]];
// CHECK: bar.sync
// CHECK-COUNT-6: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK-COUNT-6: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: $L__BB0_[[LOOP:[0-9]+]]:
// CHECK-NOT: cp.async.wait_group
// CHECK-NOT: cp.async.commit_group
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK-NOT: wgmma.wait_group
// CHECK: bar.sync
// CHECK-COUNT-6: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: wgmma
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK-NOT: wgmma
// CHECK: bra {{[[:space:]]*}}$L__BB0_[[LOOP]];
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-NOT: cp.async
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: st.shared
// CHECK: ret;
