// RUN: not tessel-opt %s -tile-specialize-knobs="target=sm_90a knobs=num_waves=4" -tile-assign-layouts=target=sm_90a 2>&1 | FileCheck %s
// Checks that a tile.dot with M = 32 on sm_90a, which wgmma (64 rows per
// warpgroup) cannot serve, is a clear error listing the shapes, not a crash.
// (sm_90a takes the next instruction of its table where one fits; the
// table holds only wgmma here.)

// CHECK: error: no matrix instruction for this tile.dot: no matrix instruction of sm_90a for f8E4M3FN tiles 32x32x64 (MxNxK): supported shapes are 64x256x32 64x128x32 64x64x32 64x32x32 64x16x32 64x8x32, and the tile must be a multiple of one

tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<2048xi32> -> tensor<2048xi8>
  %f = arith.bitcast %v : tensor<2048xi8> to tensor<2048xf8E4M3FN>
  %a = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %b = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  %r2 = tile.range 0 to 1024 : tensor<1024xi32>
  %o = tile.reshape %d : tensor<32x32xf32> -> tensor<1024xf32>
  tile.store %o, %y[%r2] : tensor<1024xf32>, !tile.ptr<f32>, tensor<1024xi32>
  tile.return
}
