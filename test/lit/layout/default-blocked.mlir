// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 | FileCheck %s --check-prefix=NV
// Checks the default layout of a [4, 128] tile: 8 contiguous elements per
// lane along the last dimension, the rest of the wave (64 lanes on CDNA, 32
// on Hopper) spread over rows.

// AMD: tile.load {{.*}} -> tensor<4x128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>>
// NV: tile.load {{.*}} -> tensor<4x128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [2, 16], wavesPerCTA = [1, 1], order = [1, 0]}>>
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
