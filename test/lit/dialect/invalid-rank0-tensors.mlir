// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that rank-0 tensors are rejected wherever they appear in a kernel
// (operands and results of tile ops, arith ops in a kernel), with a message
// that points to a 1-element tile.

tile.kernel @splat(%v: f32) {
  // expected-error @+1 {{'tile.splat' op result #0 is a rank-0 tensor 'tensor<f32>'; tiles must have rank >= 1: use a 1-element tile such as 'tensor<1xf32>' (or a scalar)}}
  %s = tile.splat %v : f32 -> tensor<f32>
  tile.return
}

// -----

tile.kernel @store_through_rank0_offsets(%x: !tile.ptr<f32>) {
  %o = arith.constant dense<0> : tensor<i32>
  %v = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{'tile.store' op operand #0 is a rank-0 tensor 'tensor<f32>'; tiles must have rank >= 1: use a 1-element tile such as 'tensor<1xf32>'}}
  tile.store %v, %x[%o] : tensor<f32>, !tile.ptr<f32>, tensor<i32>
  tile.return
}

// -----

tile.kernel @load(%x: !tile.ptr<f32>) {
  %o = arith.constant dense<0> : tensor<i32>
  // expected-error @+1 {{'tile.load' op operand #1 is a rank-0 tensor 'tensor<i32>'}}
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<i32> -> tensor<f32>
  tile.return
}

// -----

tile.kernel @reduce_to_rank0(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  // expected-error @+1 {{'tile.reduce' op result #0 is a rank-0 tensor 'tensor<f32>'; tiles must have rank >= 1: use a 1-element tile such as 'tensor<1xf32>' (or a scalar)}}
  %s = tile.reduce add %v, 0 : tensor<128xf32> -> tensor<f32>
  tile.return
}

// -----

tile.kernel @reshape_to_rank0(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 1 : tensor<1xi32>
  // expected-error @+1 {{'tile.reshape' op result #0 is a rank-0 tensor 'tensor<i32>'}}
  %s = tile.reshape %r : tensor<1xi32> -> tensor<i32>
  tile.return
}

// -----

tile.kernel @arith_in_kernel(%x: !tile.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op result #0 is a rank-0 tensor 'tensor<f32>'; tiles must have rank >= 1: use a 1-element tile such as 'tensor<1xf32>'}}
  %v = arith.constant dense<1.0> : tensor<f32>
  %w = arith.addf %v, %v : tensor<f32>
  tile.return
}
