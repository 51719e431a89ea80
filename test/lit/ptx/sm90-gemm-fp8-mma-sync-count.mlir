// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=4 -o - | FileCheck %s --check-prefixes=W4,NOE4M3
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=1 -o - | FileCheck %s --check-prefixes=W1,NOE4M3
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=8 -o - | FileCheck %s --check-prefixes=W8,NOE4M3
// Checks that the fp8 GEMM's dot on sm_90 runs as f16 mma.sync m16n8k16,
// never the emulated e4m3 form, with exactly the arithmetic minimum per K
// step inside the K loop: a 64x64x32 step is (64/16)*(64/8)*(32/16) = 64
// instructions per program, so 16 per warp with 4 warps, 64 with one and 8
// with eight.

// NOE4M3-NOT: e4m3.e4m3

// W4-NOT: mma.sync
// W4: in Loop
// W4-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// W4-NOT: mma.sync

// W1-NOT: mma.sync
// W1: in Loop
// W1-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// W1-NOT: mma.sync

// W8-NOT: mma.sync
// W8: in Loop
// W8-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// W8-NOT: mma.sync
