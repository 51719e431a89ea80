// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90a --emit=ptx --knob num_waves=4 --ptxas=none -o %t.w4.ptx
// RUN: FileCheck %s --check-prefix=W4 < %t.w4.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.w4.ptx -o %t.w4.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90a --emit=ptx --knob num_waves=8 --ptxas=none -o %t.w8.ptx
// RUN: FileCheck %s --check-prefix=W8 < %t.w8.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.w8.ptx -o %t.w8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// Checks that the scaled fp8 GEMM's tile.dot (a 64x64 tile, K step 32)
// lowers on sm_90a to the arithmetic minimum of wgmma per K step (the
// kernel's only dot), after the operands are staged in shared memory and
// fenced for the async proxy: 64*64*32 / (64*64*32) = 1 m64n64k32 for the one
// warpgroup of 4 warps; with 8 warps the two warpgroups split N (M has one
// 64-row tile), 64*64*32 / (64*32*32) = 2, one m64n32k32 each.

// W4-NOT: wgmma
// W4: st.shared
// W4: fence.proxy.async.shared::cta;
// W4: bar.sync
// W4: wgmma.fence.sync.aligned;
// W4-COUNT-1: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// W4-NOT: wgmma.mma_async
// W4: wgmma.commit_group.sync.aligned;
// W4-NEXT: wgmma.wait_group.sync.aligned 0;
// W4-NOT: wgmma

// W8-NOT: wgmma
// W8: fence.proxy.async.shared::cta;
// W8: wgmma.fence.sync.aligned;
// W8-COUNT-1: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// W8-NOT: wgmma.mma_async
// W8: wgmma.commit_group.sync.aligned;
// W8-NEXT: wgmma.wait_group.sync.aligned 0;
// W8-NOT: wgmma

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
