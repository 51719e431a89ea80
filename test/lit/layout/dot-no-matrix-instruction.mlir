// RUN: not tessel-opt %s -tile-assign-layouts=target=sm_90 2>&1 | FileCheck %s
// Checks that a tile.dot on a target without a matrix-instruction table is
// a clear error that names the target, not a crash or a silent fallback.

// CHECK: error: no matrix instruction for this tile.dot: tile.dot is not lowered on sm_90 yet
tile.kernel @k(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<bf16>, tensor<256xi32> -> tensor<256xbf16>
  %a = tile.reshape %v : tensor<256xbf16> -> tensor<16x16xbf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %a, %c : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %o = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  tile.store %o, %y[%r] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
