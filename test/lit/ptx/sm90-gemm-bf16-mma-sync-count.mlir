// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=sm_90 --emit=ptx --knob num_waves=4 -o - | FileCheck %s --check-prefix=W4
// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=sm_90 --emit=ptx --knob num_waves=1 -o - | FileCheck %s --check-prefix=W1
// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=sm_90 --emit=ptx --knob num_waves=8 -o - | FileCheck %s --check-prefix=W8
// Checks that the bf16 GEMM's dot on sm_90 issues exactly the arithmetic
// minimum of bf16 mma.sync m16n8k16 per K step, inside the K loop, with no
// conversions: (64/16)*(64/8)*(32/16) = 64 per program of 64x64x32, so 16
// per warp with 4 warps, 64 with one and 8 with eight.

// W4-NOT: mma.sync
// W4-NOT: cvt.{{.*}}bf16
// W4: in Loop
// W4-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// W4-NOT: mma.sync

// W1-NOT: mma.sync
// W1: in Loop
// W1-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// W1-NOT: mma.sync

// W8-NOT: mma.sync
// W8: in Loop
// W8-COUNT-8: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// W8-NOT: mma.sync
