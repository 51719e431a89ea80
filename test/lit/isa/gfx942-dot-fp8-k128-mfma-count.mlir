// RUN: tessel-translate %kernels/scaled_gemm_fp8_k128.mlir --target=gfx942 --emit=asm --knob num_waves=4 -o - | FileCheck %s
// Checks that gfx942 (no double-rate fp8 MFMA) runs the K-step-128 fp8 GEMM
// on v_mfma_f32_16x16x32_fp8_fp8 with the arithmetic minimum per K step:
// (64/16) * (64/16) * (128/32) = 64 per program, 16 per wave with 2x2
// waves, and never on an f8f6f4 instruction.

// CHECK-NOT: v_mfma
// CHECK: in Loop
// CHECK-COUNT-16: v_mfma_f32_16x16x32_fp8_fp8
// CHECK-NOT: v_mfma
