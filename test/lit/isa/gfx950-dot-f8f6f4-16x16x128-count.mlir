// RUN: tessel-translate %kernels/scaled_gemm_fp8_k128.mlir --target=gfx950 --emit=asm --knob num_waves=4 -o - | FileCheck %s --check-prefix=W4
// RUN: tessel-translate %kernels/scaled_gemm_fp8_k128.mlir --target=gfx950 --emit=asm --knob num_waves=1 -o - | FileCheck %s --check-prefix=W1
// RUN: tessel-translate %kernels/scaled_gemm_fp8_k128.mlir --target=gfx950 --emit=asm --knob num_waves=8 -o - | FileCheck %s --check-prefix=W8
// Checks that on gfx950 the fp8 GEMM with K steps of 128 (a 64x64 tile of
// C) issues exactly the arithmetic minimum of double-rate
// v_mfma_f32_16x16x128_f8f6f4 per K step, inside the K loop, and no
// v_mfma_f32_16x16x32_fp8_fp8: (64/16) * (64/16) * (128/128) = 16 per
// program, i.e. 4 per wave with 2x2 waves, 16 with one wave and 2 with 4x2
// waves.

// W4-NOT: v_mfma
// W4: in Loop
// W4-COUNT-4: v_mfma_f32_16x16x128_f8f6f4
// W4-NOT: v_mfma

// W1-NOT: v_mfma
// W1: in Loop
// W1-COUNT-16: v_mfma_f32_16x16x128_f8f6f4
// W1-NOT: v_mfma

// W8-NOT: v_mfma
// W8: in Loop
// W8-COUNT-2: v_mfma_f32_16x16x128_f8f6f4
// W8-NOT: v_mfma
