// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that the num_waves knob spreads waves over the slowest dimension
// and is recorded for the launch.

// CHECK: tessel.num_waves = 4 : i32
// CHECK: tensor<16x128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [4, 1], order = [1, 0]}>>
tile.kernel @k(%x: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %o = tile.reshape %r : tensor<2048xi32> -> tensor<16x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<16x128xi32> -> tensor<16x128xf32>
  tile.store %v, %x[%o] : tensor<16x128xf32>, !tile.ptr<f32>, tensor<16x128xi32>
  tile.return
}
