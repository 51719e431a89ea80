// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that every layout attribute (blocked, slice, mfma, nv_mma,
// dot_operand, shared), used as a tensor encoding, prints in its custom
// syntax and parses back unchanged.

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWave = [2, 4, 8], wavesPerCTA = [1, 2, 2], order = [2, 0, 1]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#mfma = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>
#mfma4t = #tile.mfma<{version = 4, instrShape = [32, 32, 8], wavesPerCTA = [2, 2], transposed = true}>
#mma2 = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [4, 1]}>
#wgmma = #tile.nv_mma<{version = 3, instrShape = [64, 256, 16], wavesPerCTA = [4, 1]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma2, kWidth = 4}>
#sliceMfma = #tile.slice<{dim = 0, parent = #mfma}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// CHECK-LABEL: tile.kernel @layouts(
tile.kernel @layouts(%x: f32) {
  // CHECK: tensor<16x128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>>
  %b = tile.splat %x : f32 -> tensor<16x128xf32, #blocked>
  // CHECK: tensor<2x8x64xf32, #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWave = [2, 4, 8], wavesPerCTA = [1, 2, 2], order = [2, 0, 1]}>>
  %b3 = tile.splat %x : f32 -> tensor<2x8x64xf32, #blocked3>
  // CHECK: tensor<16xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>}>>
  %s = tile.splat %x : f32 -> tensor<16xf32, #slice>
  // CHECK: tensor<64x64xf32, #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>>
  %m = tile.splat %x : f32 -> tensor<64x64xf32, #mfma>
  // CHECK: tensor<64x64xf32, #tile.mfma<{version = 4, instrShape = [32, 32, 8], wavesPerCTA = [2, 2], transposed = true}>>
  %m4 = tile.splat %x : f32 -> tensor<64x64xf32, #mfma4t>
  // CHECK: tensor<64x64xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [4, 1]}>>
  %n2 = tile.splat %x : f32 -> tensor<64x64xf32, #mma2>
  // CHECK: tensor<256x256xf32, #tile.nv_mma<{version = 3, instrShape = [64, 256, 16], wavesPerCTA = [4, 1]}>>
  %n3 = tile.splat %x : f32 -> tensor<256x256xf32, #wgmma>
  // CHECK: tensor<64x128xf32, #tile.dot_operand<{opIdx = 0, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>, kWidth = 8}>>
  %a = tile.splat %x : f32 -> tensor<64x128xf32, #opA>
  // CHECK: tensor<128x64xf32, #tile.dot_operand<{opIdx = 1, parent = #tile.nv_mma<{version = 2, instrShape = [16, 8, 32], wavesPerCTA = [4, 1]}>, kWidth = 4}>>
  %bb = tile.splat %x : f32 -> tensor<128x64xf32, #opB>
  // CHECK: tensor<64xf32, #tile.slice<{dim = 0, parent = #tile.mfma<{version = 3, instrShape = [16, 16, 32], wavesPerCTA = [4, 1], transposed = false}>}>>
  %sm = tile.splat %x : f32 -> tensor<64xf32, #sliceMfma>
  // CHECK: tensor<64x128xf32, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  %sh = tile.splat %x : f32 -> tensor<64x128xf32, #shared>
  tile.return
}
