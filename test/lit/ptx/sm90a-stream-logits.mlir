// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=0 -o - | FileCheck %s
// Checks the persistent streaming logits kernel on one warpgroup (64 rows of
// A, tiles of 64 B rows, 4 stages). Lane 0 initialises the 4 mbarriers.
// A [64, 128] fp8 (8192 bytes) is copied once, 8192 / 16 / 128 threads = 4
// 16-byte cp.async per thread, and joins fill 0; each fill of the ring
// copies one B tile [64 rows, 128] (8192 bytes, again 4 per thread) and
// arrives on its barrier. Per tile: wait for the fill by try_wait.parity,
// 128 / 32 = 4 wgmma m64n64k32 e4m3 from shared memory, the refill of the
// stage just read (4 cp.async + arrival), then relu * w and the sum over
// the 64 heads: registers, the lane bits of the accumulator's rows (xor 4,
// 8, 16), shared memory across the 4 warps, and the store of the sums.

// CHECK-LABEL: .entry stream_logits_fp8(
// CHECK-COUNT-4: mbarrier.init.shared{{(::cta)?}}.b64
// CHECK-NOT: mbarrier.init
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK: bar.sync
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: max.NaN.f32
// CHECK: mul.rn.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: st.shared
// CHECK: bar.sync
// CHECK: ld.shared
// CHECK: st.global.v2.b32
// CHECK: ret;
