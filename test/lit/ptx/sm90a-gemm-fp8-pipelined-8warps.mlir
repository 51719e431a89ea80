// RUN: tessel-translate %kernels/scaled_gemm_fp8_pipelined.mlir --target=sm_90a --emit=ptx --ptxas=none --knob num_waves=8 -o - | FileCheck %s
// Checks the pipelined fp8 GEMM on two warpgroups: the 24576 bytes of a K
// step are 24576 / 16 / 256 threads = 6 cp.async per thread, in the
// prologue and in the loop; each warpgroup holds 64 of the 128 columns of
// C, so it issues 128 / 32 = 4 m64n64k32 per step, after the wait that
// leaves 1 group in flight.

// CHECK-LABEL: .entry scaled_gemm_fp8_pipelined(
// CHECK-COUNT-6: cp.async.cg.shared.global {{.*}}, 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.commit_group;
// CHECK-COUNT-6: cp.async.cg.shared.global {{.*}}, 16, %r{{[0-9]+}};
// CHECK-NOT: cp.async.cg
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group {{[[:space:]]*}}1;
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: st.shared
// CHECK: ret;
