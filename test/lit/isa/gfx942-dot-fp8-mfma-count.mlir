// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=gfx942 --emit=asm --knob num_waves=4 -o - | FileCheck %s --check-prefix=W4
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=gfx942 --emit=asm --knob num_waves=1 -o - | FileCheck %s --check-prefix=W1
// Checks that the scaled fp8 GEMM's tile.dot (a 64x64 tile, K step 32)
// issues exactly the arithmetic minimum of v_mfma_f32_16x16x32_fp8_fp8 per
// K step, inside the K loop: 64*64*32 / (16*16*32) = 16 per program, i.e.
// 4 per wave with 2x2 waves and 16 with one wave.

// W4-NOT: v_mfma
// W4: in Loop
// W4-COUNT-4: v_mfma_f32_16x16x32_fp8_fp8
// W4-NOT: v_mfma

// W1-NOT: v_mfma
// W1: in Loop
// W1-COUNT-16: v_mfma_f32_16x16x32_fp8_fp8
// W1-NOT: v_mfma
