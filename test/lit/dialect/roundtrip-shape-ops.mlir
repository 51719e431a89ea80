// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that the tensor construction and reshaping ops (range, splat,
// broadcast, expand_dims, reshape, transpose, convert_layout) print in their
// custom syntax and parse back unchanged.

#b1 = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [2], threadsPerWave = [32], wavesPerCTA = [4], order = [0]}>

// CHECK-LABEL: tile.kernel @shapes(
// CHECK-SAME: %[[N:[a-z0-9_]+]]: i32, %[[F:[a-z0-9_]+]]: f32)
tile.kernel @shapes(%n: i32, %f: f32) {
  // CHECK: %[[R:.+]] = tile.range 0 to 128 : tensor<128xi32>
  %r = tile.range 0 to 128 : tensor<128xi32>
  // CHECK: tile.range -4 to 4 : tensor<8xi64>
  %r64 = tile.range -4 to 4 : tensor<8xi64>
  // CHECK: tile.splat %[[N]] : i32 -> tensor<4xi32>
  %s = tile.splat %n : i32 -> tensor<4xi32>
  // CHECK: %[[S2:.+]] = tile.splat %[[F]] : f32 -> tensor<4x128xf32>
  %s2 = tile.splat %f : f32 -> tensor<4x128xf32>
  // CHECK: %[[E:.+]] = tile.expand_dims %[[R]], 0 : tensor<128xi32> -> tensor<1x128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  // CHECK: tile.expand_dims %[[R]], 1 : tensor<128xi32> -> tensor<128x1xi32>
  %e1 = tile.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  // CHECK: tile.broadcast %[[E]] : tensor<1x128xi32> -> tensor<4x128xi32>
  %bc = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  // CHECK: %[[RS:.+]] = tile.reshape %[[S2]] : tensor<4x128xf32> -> tensor<512xf32>
  %rs = tile.reshape %s2 : tensor<4x128xf32> -> tensor<512xf32>
  // CHECK: tile.reshape %[[RS]] : tensor<512xf32> -> tensor<2x16x16xf32>
  %rs3 = tile.reshape %rs : tensor<512xf32> -> tensor<2x16x16xf32>
  // CHECK: tile.transpose %[[S2]], [1, 0] : tensor<4x128xf32> -> tensor<128x4xf32>
  %t = tile.transpose %s2, [1, 0] : tensor<4x128xf32> -> tensor<128x4xf32>
  // CHECK: %[[R3:.+]] = tile.reshape
  %r3 = tile.reshape %rs : tensor<512xf32> -> tensor<2x16x16xf32>
  // CHECK: tile.transpose %[[R3]], [2, 0, 1] : tensor<2x16x16xf32> -> tensor<16x2x16xf32>
  %t3 = tile.transpose %r3, [2, 0, 1] : tensor<2x16x16xf32> -> tensor<16x2x16xf32>
  // CHECK: %[[L:.+]] = tile.range 0 to 256 : tensor<256xi32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>>
  %l = tile.range 0 to 256 : tensor<256xi32, #b1>
  // CHECK: tile.convert_layout %[[L]] : tensor<256xi32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>> -> tensor<256xi32, #tile.blocked<{sizePerThread = [2], threadsPerWave = [32], wavesPerCTA = [4], order = [0]}>>
  %cl = tile.convert_layout %l : tensor<256xi32, #b1> -> tensor<256xi32, #b2>
  tile.return
}
