// RUN: not tessel-opt %s -tile-specialize-knobs="target=sm_90 knobs=num_waves=4" -tile-assign-layouts=target=sm_90 2>&1 | FileCheck %s
// Checks that a wgmma accumulator (#tile.nv_mma version 3) written by the
// author is a clear error on portable sm_90, whose code objects cannot use
// wgmma, not a crash or a silent change of instruction.

// CHECK: error: no matrix instruction for this tile.dot: wgmma (#tile.nv_mma version 3) needs sm_90a, not sm_90

#acc = #tile.nv_mma<{version = 3, instrShape = [64, 64, 32], wavesPerCTA = [4, 1]}>
tile.kernel @k(%x: !tile.ptr<i8>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<2048xi32> -> tensor<2048xi8>
  %f = arith.bitcast %v : tensor<2048xi8> to tensor<2048xf8E4M3FN>
  %a = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %b = tile.reshape %f : tensor<2048xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %d = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32, #acc>
  tile.return
}
