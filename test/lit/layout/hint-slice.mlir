// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that a per-row vector computed before an expand_dims is produced
// directly in the slice layout the expand_dims needs (the wish flows back
// through elementwise ops and loads), instead of being converted.

// CHECK: tile.range 0 to 4 : tensor<4xi32, #tile.slice<{dim = 1, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>}>>
// CHECK: tile.load {{.*}} -> tensor<4xi32, #tile.slice<{dim = 1
// CHECK-NOT: tile.convert_layout
tile.kernel @k(%rows: !tile.ptr<i32>, %x: !tile.ptr<f32>) {
  %r = tile.range 0 to 4 : tensor<4xi32>
  %base = tile.load %rows[%r] : !tile.ptr<i32>, tensor<4xi32> -> tensor<4xi32>
  %b1 = tile.expand_dims %base, 1 : tensor<4xi32> -> tensor<4x1xi32>
  %b2 = tile.broadcast %b1 : tensor<4x1xi32> -> tensor<4x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %o = arith.addi %b2, %c2 : tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
