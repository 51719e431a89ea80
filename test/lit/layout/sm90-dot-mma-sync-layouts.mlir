// RUN: tessel-opt %kernels/scaled_gemm_fp8.mlir -tile-specialize-knobs="target=sm_90 knobs=num_waves=4" -canonicalize -tile-assign-layouts=target=sm_90 | FileCheck %s --check-prefix=FP8
// RUN: tessel-opt %kernels/scaled_gemm_bf16.mlir -tile-specialize-knobs="target=sm_90 knobs=num_waves=8" -canonicalize -tile-assign-layouts=target=sm_90 | FileCheck %s --check-prefix=BF16
// Checks that on sm_90 the GEMM dots get mma.sync layouts: a version-2
// #tile.nv_mma accumulator over the 16x8xK instruction tile, with 4 warps
// split 2x2 over the 4x8 tiles of 64x64 and 8 warps 2x4 (doubling the
// dimension with more tiles left per warp: N, M, then N at 2 vs 4), and
// operands in the 8-bit m16n8k32 fragment layout (kWidth 4: four
// consecutive K per lane and row), which the bf16 dot (K step 32) uses too.

// FP8: tile.dot {{.*}} : tensor<64x32xf8E4M3FN, #tile.dot_operand<{opIdx = 0, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 2]}>, kWidth = 4}>>, tensor<32x64xf8E4M3FN, #tile.dot_operand<{opIdx = 1, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 2]}>, kWidth = 4}>> -> tensor<64x64xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 2]}>>
// BF16: tile.dot {{.*}} : tensor<64x32xbf16, #tile.dot_operand<{opIdx = 0, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 4]}>, kWidth = 4}>>, tensor<32x64xbf16, #tile.dot_operand<{opIdx = 1, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 4]}>, kWidth = 4}>> -> tensor<64x64xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [2, 4]}>>
