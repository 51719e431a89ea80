// RUN: tessel-opt %kernels/scaled_gemm_bf16.mlir -tile-specialize-knobs="target=gfx950 knobs=num_waves=8" -canonicalize -tile-assign-layouts=target=gfx950 | FileCheck %s
// Checks that 8 waves over a 64x64 bf16 dot (4x4 tiles of 16x16) split 4
// along M and 2 along N, with gfx950's #tile.mfma version 4 and 8
// consecutive K elements per lane (one 16-byte load, read by two of the
// bf16 instructions, which take 4 each).

// CHECK: tile.dot {{.*}} tensor<64x32xbf16, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 16], wavesPerCTA = [4, 2], transposed = true}>, kWidth = 8}>>
