// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that a version 4 (CDNA4) #tile.mfma accepts gfx950's double-rate
// fp8 shapes 16x16x128 and 32x32x64, with their dot operands, and that they
// round-trip.

#m16 = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = false}>
#m32 = #tile.mfma<{version = 4, instrShape = [32, 32, 64], wavesPerCTA = [1, 4], transposed = false}>
#a16 = #tile.dot_operand<{opIdx = 0, parent = #m16, kWidth = 16}>
#b32 = #tile.dot_operand<{opIdx = 1, parent = #m32, kWidth = 16}>

// CHECK-LABEL: tile.kernel @double_rate(
tile.kernel @double_rate(%x: f32) {
  // CHECK: tensor<32x32xf32, #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = false}>>
  %d16 = tile.splat %x : f32 -> tensor<32x32xf32, #m16>
  // CHECK: tensor<32x128xf32, #tile.mfma<{version = 4, instrShape = [32, 32, 64], wavesPerCTA = [1, 4], transposed = false}>>
  %d32 = tile.splat %x : f32 -> tensor<32x128xf32, #m32>
  // CHECK: tensor<32x128xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 4, instrShape = [16, 16, 128], wavesPerCTA = [2, 2], transposed = false}>, kWidth = 16}>>
  %a = tile.splat %x : f32 -> tensor<32x128xf32, #a16>
  // CHECK: tensor<64x128xf32, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{version = 4, instrShape = [32, 32, 64], wavesPerCTA = [1, 4], transposed = false}>, kWidth = 16}>>
  %b = tile.splat %x : f32 -> tensor<64x128xf32, #b32>
  tile.return
}
