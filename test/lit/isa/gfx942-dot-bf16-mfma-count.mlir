// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=gfx942 --emit=asm --knob num_waves=4 -o - | FileCheck %s
// Checks that the scaled bf16 GEMM's tile.dot (a 64x64 tile, K step 32)
// issues exactly the arithmetic minimum of v_mfma_f32_16x16x16_bf16 per K
// step, inside the K loop: 64*64*32 / (16*16*16) = 32 per program, 8 per
// wave with 2x2 waves.

// CHECK-NOT: v_mfma
// CHECK: in Loop
// CHECK-COUNT-8: v_mfma_f32_16x16x16_bf16
// CHECK-NOT: v_mfma
