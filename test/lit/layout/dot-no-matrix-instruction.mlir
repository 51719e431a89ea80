// RUN: not tessel-opt %s -tile-assign-layouts=target=sm_90 2>&1 | FileCheck %s
// Checks that a tile.dot whose operand type no matrix instruction of the
// target takes (gfx942's e4m3fnuz on sm_90) is a clear error that names the
// target and the types it supports, not a crash or a silent fallback.

// CHECK: error: no matrix instruction for this tile.dot: no matrix instruction of sm_90 takes f8E4M3FNUZ operands (supported: f8E4M3FN bf16)
tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i8>, tensor<256xi32> -> tensor<256xi8>
  %f = arith.bitcast %v : tensor<256xi8> to tensor<256xf8E4M3FNUZ>
  %a = tile.reshape %f : tensor<256xf8E4M3FNUZ> -> tensor<16x16xf8E4M3FNUZ>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %a, %c : tensor<16x16xf8E4M3FNUZ>, tensor<16x16xf8E4M3FNUZ> -> tensor<16x16xf32>
  %o = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  tile.store %o, %y[%r] : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
