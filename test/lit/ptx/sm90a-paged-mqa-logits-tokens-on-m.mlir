// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=2 --knob chunk_k=64 --knob num_waves=4 --knob waves_per_eu=0 --knob preshuffle=0 --knob persistent=0 --knob kv_rows_aligned=1 --knob stages=3 --knob tokens_on_m=1 -o - | FileCheck %s
// Checks the tokens_on_m variant of the paged MQA logits kernel on sm_90a
// (64 heads, 2 rows: M = 128 rows of Q; 64-token chunks; one warpgroup; 3
// stages). Q^T [128, 128] (16384 bytes over 128 threads) is copied once by
// 8 masked 16-byte cp.async per lane. Per chunk the 64 tokens are wgmma's
// M side and the 128 rows of Q its N side: 128 / 32 = 4 instructions
// m64n128k32 e4m3 (with Q on M it would be two m64n64 per K step, 8 in
// all). The head sum runs along the accumulator's columns: a thread holds
// 2 tokens x 2 rows x 16 of a row's 64 heads, so 15 adds and 2 shuffles
// (xor 1, xor 2) per output, 4 outputs, with no shared memory and no
// barrier between the wgmmas' wait and the stores. Then the refill of the
// stage: K [64, 128] (8192 bytes) by 4 16-byte cp.async per lane and the
// arrival on its barrier.

// CHECK-LABEL: .entry paged_mqa_logits(
// CHECK-COUNT-3: mbarrier.init.shared{{(::cta)?}}.b64
// CHECK-NOT: mbarrier.init
// CHECK-COUNT-8: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: Inner Loop Header
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK: max.f32
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-4: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;{{[[:space:]]+}}add.rn.f32 {{.*}}{{[[:space:]]+}}shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK-NOT: {{st|ld}}.shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: st.global
// CHECK: bar.sync
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
