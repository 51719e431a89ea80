// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -verify-diagnostics
// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s --check-prefix=GFX
// Checks that an explicit layout whose threadsPerWave does not multiply to
// the target's wave size is an error at the op that names it (sm_90 has 32
// lanes per wave; such a layout used to compile and sum wrongly), while the
// same kernel is fine on gfx942, whose waves have 64 lanes.

// GFX: tile.convert_layout {{.*}} threadsPerWave = [64]
#wide = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>
tile.kernel @sum(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{layout of 'tensor<128xi32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>' spreads over 64 lanes (threadsPerWave), but a wave of sm_90 has 32}}
  %c = tile.convert_layout %r : tensor<128xi32> -> tensor<128xi32, #wide>
  %s = tile.reduce add %c, 0 : tensor<128xi32, #wide> -> i32
  tile.store %s, %x[%s] : i32, !tile.ptr<i32>, i32
  tile.return
}
