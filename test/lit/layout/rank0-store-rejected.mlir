// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 2>&1 | FileCheck %s
// RUN: not tessel-opt %s -tile-assign-layouts=target=sm_90 2>&1 | FileCheck %s
// RUN: not tessel-translate %s --target=gfx950 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that a store of a rank-0 tile through rank-0 offsets (which used to
// pass the verifier and crash layout assignment on every target) is an
// error at the store, on every path into the compiler.

// CHECK: rank0-store-rejected.mlir:[[# @LINE + 5]]:3: error: 'tile.store' op operand #0 is a rank-0 tensor 'tensor<f32>'; tiles must have rank >= 1: use a 1-element tile such as 'tensor<1xf32>'
// CHECK-NOT: Stack dump
tile.kernel @k(%x: !tile.ptr<f32>) {
  %o = arith.constant dense<0> : tensor<i32>
  %v = arith.constant dense<1.0> : tensor<f32>
  tile.store %v, %x[%o] : tensor<f32>, !tile.ptr<f32>, tensor<i32>
  tile.return
}
