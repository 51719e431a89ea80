// RUN: tessel-opt %kernels/scaled_gemm_fp8_k128.mlir -tile-specialize-knobs=target=gfx950 -canonicalize -tile-assign-layouts=target=gfx950 | FileCheck %s
// Checks that on gfx950 a tile.dot whose K (128) is a multiple of 128 gets
// the double-rate v_mfma_f32_16x16x128_f8f6f4 accumulator layout, and that
// the loads feeding it get operand layouts of kWidth 16: the instruction's
// own run of consecutive K per lane (its lanes hold two such runs).

// CHECK-NOT: tile.convert_layout
// CHECK: tile.load {{.*}} -> tensor<64x128xi8, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 16}>>
// CHECK: tile.load {{.*}} -> tensor<128x64xi8, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 16}>>
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = true}>>
// CHECK-NOT: tile.convert_layout
