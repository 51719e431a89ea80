// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 | FileCheck %s --check-prefix=NV
// Checks that a copy of 1024 fp8 elements gets 16 contiguous elements per
// lane (16 bytes, the widest access), on its offsets and on the loaded and
// stored values: 1024 elements over 64 lanes on CDNA is exactly 16; over 32
// lanes on Hopper, two runs of 16 per lane.

// AMD: tile.range 0 to 1024 : tensor<1024xi32, #tile.blocked<{sizePerThread = [16], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// AMD: tile.load {{.*}} -> tensor<1024xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [16], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// AMD: tile.store {{.*}} : tensor<1024xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [16], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// NV: tile.load {{.*}} -> tensor<1024xf8E4M3FNUZ, #tile.blocked<{sizePerThread = [16], threadsPerWave = [32], wavesPerCTA = [1], order = [0]}>>
tile.kernel @k(%x: !tile.ptr<f8E4M3FNUZ>, %y: !tile.ptr<f8E4M3FNUZ>) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f8E4M3FNUZ>, tensor<1024xi32> -> tensor<1024xf8E4M3FNUZ>
  tile.store %v, %y[%r] : tensor<1024xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<1024xi32>
  tile.return
}
