// RUN: tessel-opt %kernels/scaled_gemm_fp8.mlir -tile-specialize-knobs=target=gfx942 -canonicalize -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that tile-assign-layouts gives a tile.dot an MFMA accumulator with
// its 4 waves split 2x2 over M and N (transposed, so that each lane holds
// consecutive columns of C), gives the plain tile.loads that feed
// it the matching dot_operand layouts, carries the accumulator through the
// K loop, and needs no layout conversion anywhere in the kernel.

// CHECK-NOT: tile.convert_layout
// CHECK: arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>>)
// CHECK: tile.load {{.*}} -> tensor<64x32xi8, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 8}>>
// CHECK: tile.load {{.*}} -> tensor<32x64xi8, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>, kWidth = 8}>>
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>>
// CHECK: tile.store {{.*}} : tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [2, 2], transposed = true}>>
// CHECK-NOT: tile.convert_layout
