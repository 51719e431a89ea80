// RUN: tessel-translate %kernels/stream_logits_fp8.mlir --target=sm_90a --emit=ptx --ptxas=none --knob groups=2 --knob num_waves=8 --knob tile_n=64 --knob stages=3 --knob full_c=1 -o - | FileCheck %s
// Checks the full-C epilogue of the streaming kernel with two warpgroups
// (128 rows of A, 3 stages): 256 threads copy A [128, 128] fp8 (16384 bytes,
// 4 cp.async of 16 bytes each) and each B tile [64, 128] (8192 bytes, 2
// each); each warpgroup issues the 4 m64n64k32 of its 64 rows; the tile of
// C is stored from the accumulator registers, two consecutive f32 per
// store, with no shuffles and no shared memory between the wgmmas and the
// stores.

// CHECK-LABEL: .entry stream_logits_fp8(
// CHECK-COUNT-3: mbarrier.init.shared{{(::cta)?}}.b64
// CHECK-NOT: mbarrier.init
// CHECK-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-COUNT-2: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK: mbarrier.try_wait.parity.shared{{(::cta)?}}.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-COUNT-2: cp.async.cg.shared.global [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.mbarrier.arrive.noinc.shared{{(::cta)?}}.b64
// CHECK-NOT: shfl.sync
// CHECK-NOT: st.shared
// CHECK-NOT: ld.shared
// CHECK: st.global.v2.b32
// CHECK-NOT: shfl.sync
// CHECK: ret;
