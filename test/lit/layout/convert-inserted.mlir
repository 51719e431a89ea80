// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that when an author-chosen layout meets a different one that is
// not cheap to recompute (gathered offsets), a tile.convert_layout
// reconciles them.

// CHECK: %[[I:.*]] = tile.load {{.*}} -> tensor<128xi32, #tile.blocked<{sizePerThread = [2], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// CHECK: %[[A:.*]] = tile.convert_layout %{{.*}} -> tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// CHECK: %[[B:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<128xf32, #tile.blocked<{sizePerThread = [2], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// CHECK: tile.store %[[B]], %{{.*}}[%[[I]]]
tile.kernel @k(%x: !tile.ptr<f32>, %idx: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %i = tile.load %idx[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %b = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %a = tile.convert_layout %b : tensor<128xf32> -> tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
  tile.store %a, %x[%i] : tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
