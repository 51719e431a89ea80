// RUN: tessel-opt %s -tile-specialize-knobs="target=sm_90a knobs=num_waves=4" -tile-assign-layouts=target=sm_90a | FileCheck %s --check-prefix=M32
// RUN: tessel-opt %s -tile-specialize-knobs="target=sm_90a knobs=num_waves=2" -tile-assign-layouts=target=sm_90a | FileCheck %s --check-prefix=W2
// Checks sm_90a's documented fallback: a tile.dot that wgmma cannot serve
// takes the next instruction of the table, mma.sync. With 4 warps the
// 32x32x64 dot has M = 32, not a multiple of wgmma's 64 rows; with 2 warps
// there is no warpgroup (4 warps) for any shape.

// M32: tile.dot {{.*}} -> tensor<32x32xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 32]
// W2: tile.dot {{.*}} -> tensor<32x32xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 32]

tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [2, 4]>]} {
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
