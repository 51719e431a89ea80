// RUN: tessel-translate %kernels/scaled_gemm_fp8_k128.mlir --target=gfx950 --emit=asm --knob num_waves=4 -o - | awk '/^(\.LBB|; %%bb)/{l=($0 ~ /in Loop/)} /Loop Header/{l=1} l' | FileCheck %s --implicit-check-not=global_load
// Checks that the loads feeding gfx950's v_mfma_f32_16x16x128_f8f6f4 stay
// 16-byte loads: each lane's operand is two runs of 16 consecutive k, so
// per K step of 128 a wave (2x2 waves over the 64x64 tile) loads its 32x128
// block of A and its 128x32 block of B, 4096 bytes each, as
// 2 * 4096 / (64 lanes * 16 bytes) = 8 global_load_dwordx4 and nothing
// narrower. The awk keeps the blocks of the K loop.

// CHECK-COUNT-8: global_load_dwordx4
