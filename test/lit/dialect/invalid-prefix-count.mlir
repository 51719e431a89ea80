// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.prefix_count rejects a mask that is not 1-D and
// positions whose shape is not the mask's.

tile.kernel @rank(%x: i32) {
  %m = arith.constant dense<true> : tensor<4x64xi1>
  // expected-error @+1 {{'tile.prefix_count' op mask must be 1-D, got 4x64}}
  %p, %n = tile.prefix_count %m : tensor<4x64xi1> -> tensor<4x64xi32>
  tile.return
}

// -----

tile.kernel @shape(%x: i32) {
  %m = arith.constant dense<true> : tensor<256xi1>
  // expected-error @+1 {{'tile.prefix_count' op positions (128) must have the mask's shape (256)}}
  %p, %n = tile.prefix_count %m : tensor<256xi1> -> tensor<128xi32>
  tile.return
}
