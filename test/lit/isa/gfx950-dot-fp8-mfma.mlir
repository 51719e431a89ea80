// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=gfx950 --emit=asm --knob num_waves=4 -o - | FileCheck %s
// Checks that on gfx950 the scaled fp8 GEMM reads e4m3fn operands with the
// same v_mfma_f32_16x16x32_fp8_fp8, 4 per wave and K step with 2x2 waves.

// CHECK-NOT: v_mfma
// CHECK: in Loop
// CHECK-COUNT-4: v_mfma_f32_16x16x32_fp8_fp8
// CHECK-NOT: v_mfma
