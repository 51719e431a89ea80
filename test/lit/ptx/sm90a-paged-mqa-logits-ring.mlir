// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=4 --knob waves_per_eu=0 --knob preshuffle=0 --knob persistent=0 --knob kv_rows_aligned=1 --knob stages=4 -o - | FileCheck %s
// Checks the ring variant of the paged MQA logits kernel on sm_90a (64
// heads, one row, 64-token chunks, one warpgroup, 4 stages): 4 mbarriers;
// Q [64, 128] (8192 bytes over 128 threads) copied once by 4 masked
// 16-byte cp.async per lane; per chunk, a wait on the fill's barrier, 4
// wgmma m64n64k32 e4m3 reading Q and the K stage in shared memory, then the
// refill of that stage: K [128, 64] by 4 16-byte cp.async per lane and the
// arrival on its barrier.

// CHECK-LABEL: .entry paged_mqa_logits(
// CHECK-COUNT-4: mbarrier.init.shared{{(::cta)?}}.b64
// CHECK-NOT: mbarrier.init
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: Inner Loop Header
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1;
// CHECK-NOT: wgmma.mma_async
// CHECK: max.f32
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16;
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
