// RUN: not tessel-opt %s -tile-specialize-knobs="target=sm_90a knobs=num_waves=2" -tile-assign-layouts=target=sm_90a 2>&1 | FileCheck %s
// Checks that a 64x64x32 fp8 tile.dot on sm_90a with 2 warps, fewer than
// wgmma's warpgroup of 4, is a clear error that names the num_waves need.

// CHECK: error: no matrix instruction for this tile.dot: {{.*}} tiles 64x64x32 (MxNxK){{.*}} (64x256x32 needs num_waves a multiple of 4, got 2)

tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [2, 4]>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<2048xi32> -> tensor<2048xi8>
  %f = arith.bitcast %v : tensor<2048xi8> to tensor<2048xf8E4M3FN>
  %a = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %b = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  %r2 = tile.range 0 to 4096 : tensor<4096xi32>
  %o = tile.reshape %d : tensor<64x64xf32> -> tensor<4096xf32>
  tile.store %o, %y[%r2] : tensor<4096xf32>, !tile.ptr<f32>, tensor<4096xi32>
  tile.return
}
