// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that the unsigned combine kinds (umax, umin) of tile.reduce and
// tile.scan reject float elements, which have no unsigned order.

tile.kernel @reduce_umax_f32(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<256xf32>
  // expected-error @+1 {{'tile.reduce' op combine kind umax needs integer elements, got 'f32'}}
  %r = tile.reduce umax %t, 0 : tensor<256xf32> -> f32
  tile.return
}

// -----

tile.kernel @scan_umin_f64() {
  %t = arith.constant dense<1.0> : tensor<256xf64>
  // expected-error @+1 {{'tile.scan' op combine kind umin needs integer elements, got 'f64'}}
  %s = tile.scan umin %t, 0 : tensor<256xf64>
  tile.return
}
