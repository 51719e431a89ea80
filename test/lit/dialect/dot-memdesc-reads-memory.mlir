// RUN: tessel-opt %s -cse | FileCheck %s
// Checks that a tile.dot reading a memdesc operand has a read effect: two
// identical dots on a buffer with a local_store between them both stay
// (the second reads what the store wrote), while identical dots on
// tensors are pure and CSE keeps one.

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: tile.kernel @shared
// CHECK: tile.dot
// CHECK: tile.local_store
// CHECK: tile.dot
tile.kernel @shared(%x: !tile.ptr<f32>) {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = arith.constant dense<0.0> : tensor<128x64xf8E4M3FN>
  %t = arith.constant dense<1.0> : tensor<64x128xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d0 = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  tile.local_store %t, %a : tensor<64x128xf8E4M3FN> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %d1 = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  %s = arith.addf %d0, %d1 : tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %v = tile.reduce add %s, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %v, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}

// CHECK-LABEL: tile.kernel @tensors
// CHECK: tile.dot
// CHECK-NOT: tile.dot
tile.kernel @tensors(%x: !tile.ptr<f32>) {
  %a = arith.constant dense<1.0> : tensor<64x128xf8E4M3FN>
  %b = arith.constant dense<0.0> : tensor<128x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d0 = tile.dot %a, %b, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  %d1 = tile.dot %a, %b, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  %s = arith.addf %d0, %d1 : tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %v = tile.reduce add %s, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %v, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}
