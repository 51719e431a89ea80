// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that a reduction yields the slice of its source's layout and that
// expand_dims of that slice returns to the parent, so that reducing and
// broadcasting back needs no layout conversion.

// CHECK: tile.reduce max {{.*}} -> tensor<4xf32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>}>>
// CHECK: tile.expand_dims {{.*}} -> tensor<4x1xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>>
// CHECK: tile.broadcast {{.*}} -> tensor<4x128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NOT: tile.convert_layout
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  %m = tile.reduce max %v, 1 : tensor<4x128xf32> -> tensor<4xf32>
  %m1 = tile.expand_dims %m, 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x128xf32>
  %d = arith.subf %v, %mb : tensor<4x128xf32>
  tile.store %d, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
