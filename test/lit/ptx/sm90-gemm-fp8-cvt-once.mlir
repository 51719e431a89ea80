// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=4 -o - | FileCheck %s --check-prefix=W4
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=1 -o - | FileCheck %s --check-prefix=W1
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=8 -o - | FileCheck %s --check-prefix=W8
// Checks that the fp8 GEMM converts each loaded fp8 operand element to f16
// exactly once per K step (cvt.rn.f16x2.e4m3x2 converts two), although each
// converted register feeds several mma.sync. Per K step A is [64, 32] split
// over the warps along M and B [32, 64] over those along N: with 2x2 warps
// a lane holds 32 + 32 fp8, so 32 cvt; one warp holds 64 + 64, so 64 cvt;
// 2x4 warps hold 32 + 16, so 24 cvt.

// W4-NOT: cvt.rn.f16x2.e4m3x2
// W4: in Loop
// W4-COUNT-32: cvt.rn.f16x2.e4m3x2
// W4-NOT: cvt.rn.f16x2.e4m3x2

// W1-NOT: cvt.rn.f16x2.e4m3x2
// W1: in Loop
// W1-COUNT-64: cvt.rn.f16x2.e4m3x2
// W1-NOT: cvt.rn.f16x2.e4m3x2

// W8-NOT: cvt.rn.f16x2.e4m3x2
// W8: in Loop
// W8-COUNT-24: cvt.rn.f16x2.e4m3x2
// W8-NOT: cvt.rn.f16x2.e4m3x2
