// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob groups=1 --knob num_waves=4 --knob tile_n=64 --knob stages=4 --knob full_c=0 -o - | FileCheck %s
// Checks the persistent streaming logits kernel on one warpgroup (64 rows of
// A, tiles of 64 B rows, 4 stages). Lane 0 initialises the 4 mbarriers.
// A [64, 128] fp8 (8192 bytes) is copied once, 8192 / 16 / 128 threads = 4
// 16-byte cp.async per thread, and joins fill 0; each fill of the ring
// copies one B tile [64 rows, 128] (8192 bytes, again 4 per thread) and
// arrives on its barrier. Per tile: wait for the fill by try_wait.parity,
// 128 / 32 = 4 wgmma m64n64k32 e4m3 from shared memory, the refill of the
// stage just read (4 cp.async + arrival), then relu * w and the sum over
// the 64 heads in shared memory (TargetInfo::laneReduceScratchBytes, 8 KiB
// on Hopper). The heads lie on 2 registers, lane bits 2-4 and the 2 waves:
// 2^(3 + 2) = 32 partial sums for each of the 64 columns would need
// (32 + 1) * 64 * 4 = 8448 bytes, so one shuffle (xor 4) halves them first:
// each lane stores its 16 partials, pairs of adjacent lanes sum a column's
// 16 (8 loads each, one shuffle xor 1) and store it, and every lane reads
// its 16 column sums back before the store of the sums.

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
// CHECK-COUNT-16: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: st.shared
// CHECK: bar.sync
// CHECK-COUNT-8: ld.shared.b32
// CHECK-NOT: ld.shared
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK: st.shared.b32
// CHECK-NEXT: bar.sync
// CHECK: ld.shared
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK-NOT: shfl.sync
// CHECK: st.global.v2.b32
// CHECK: ret;
