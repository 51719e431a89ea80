// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob b_on_m=1 --knob groups=2 --knob num_waves=4 --knob tile_n=64 --knob stages=3 --knob full_c=0 -o - | FileCheck %s
// Checks the streaming logits kernel with the streamed B tile on wgmma's M
// side (b_on_m = 1, 128 rows of A on one warpgroup, 3 stages). A [128, 128]
// fp8 (16384 bytes) is 8 16-byte cp.async per thread of 128, each B tile
// [64, 128] (8192 bytes) 4; one wgmma m64n128k32 per K step (128 / 32 = 4)
// covers all 128 rows of A. The head sum runs along the accumulator's
// columns: each thread holds 2 rows x 2 head groups, each group's 64
// columns in its 16 registers and 4 adjacent lanes, so the epilogue is
// in-register adds and 2 shuffles (xor 1, xor 2) per output, 8 in all, with
// no shared memory and no barrier between the wgmmas' wait and the stores.

// CHECK-LABEL: .entry stream_logits_fp8(
// CHECK-COUNT-3: mbarrier.init.shared{{(::cta)?}}.b64
// CHECK-NOT: mbarrier.init
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK: bar.sync
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK: max.NaN.f32
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK: mul.rn.f32
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-4: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;{{[[:space:]]+}}add.rn.f32 {{.*}}{{[[:space:]]+}}shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: st.global
// CHECK: ret;
