// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that the result of an async tile.dot, which is still being
// written, is rejected where something other than another async dot's
// accumulator or a tile.dot_wait reads it, directly or through an scf.for.

tile.kernel @read_directly(%x: !tile.ptr<f32>) {
  %a = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN>
  %b = arith.constant dense<1.0> : tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{is async: its result is still being written when 'arith.addf' reads it; use it only as the accumulator of another async tile.dot or through tile.dot_wait}}
  %d = tile.dot %a, %b, %c {async} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  // expected-note @+1 {{read here}}
  %e = arith.addf %d, %c : tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @sync_dot_reads(%x: !tile.ptr<f32>) {
  %a = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN>
  %b = arith.constant dense<1.0> : tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{is async: its result is still being written when 'tile.dot' reads it}}
  %d = tile.dot %a, %b, %c {async} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  // expected-note @+1 {{read here}}
  %e = tile.dot %a, %b, %d : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @read_after_loop(%x: !tile.ptr<f32>, %n: i32) {
  %a = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN>
  %b = arith.constant dense<1.0> : tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %o = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32>) : i32 {
    // expected-error @+1 {{is async: its result is still being written when 'tile.store' reads it}}
    %d = tile.dot %a, %b, %acc {async} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // expected-note @+1 {{read here}}
  tile.store %r, %x[%o] : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
}

// -----

// The accepted forms: another async dot's accumulator, a loop carrying it,
// and tile.dot_wait before the store.
tile.kernel @accepted(%x: !tile.ptr<f32>, %n: i32) {
  %a = arith.constant dense<1.0> : tensor<64x32xf8E4M3FN>
  %b = arith.constant dense<1.0> : tensor<32x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %o = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32>) : i32 {
    %d = tile.dot %a, %b, %acc {async} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    %e = tile.dot %a, %b, %d {async} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    tile.dot_wait pending = 1
    scf.yield %e : tensor<64x64xf32>
  }
  %s = tile.dot_wait pending = 0, %r : tensor<64x64xf32>
  tile.store %s, %x[%o] : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
}
