// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.histogram_add rejects bins that are not a 1-D i32 tile
// without stages, a mask whose shape is not the keys', and non-integer keys.

#s2 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tile.kernel @two_d(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<16x16xi32, #s2>
  %k = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.histogram_add' op bins must be a 1-D i32 shared-memory tile without stages, got '!tile.memdesc<16x16xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>'}}
  tile.histogram_add %k into %buf : tensor<128xi32>, !tile.memdesc<16x16xi32, #s2>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @staged(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<2x256xi32, #s1>
  %k = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.histogram_add' op bins must be a 1-D i32 shared-memory tile without stages, got '!tile.memdesc<2x256xi32}}
  tile.histogram_add %k into %buf : tensor<128xi32>, !tile.memdesc<2x256xi32, #s1>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @wide_bins(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<256xi64, #s1>
  %k = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.histogram_add' op bins must be a 1-D i32 shared-memory tile without stages, got '!tile.memdesc<256xi64}}
  tile.histogram_add %k into %buf : tensor<128xi32>, !tile.memdesc<256xi64, #s1>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @mask_shape(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<256xi32, #s1>
  %k = tile.range 0 to 128 : tensor<128xi32>
  %w = tile.range 0 to 64 : tensor<64xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %m = arith.cmpi sgt, %w, %z : tensor<64xi32>
  // expected-error @+1 {{'tile.histogram_add' op mask shape (64) must match keys shape (128)}}
  tile.histogram_add %k mask(%m : tensor<64xi1>) into %buf : tensor<128xi32>, !tile.memdesc<256xi32, #s1>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @float_keys(%x: f32) {
  %buf = tile.local_alloc : !tile.memdesc<256xi32, #s1>
  %k = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+1 {{'tile.histogram_add' op operand #0 must be statically shaped tensor of signless integer values, but got 'tensor<128xf32>'}}
  tile.histogram_add %k into %buf : tensor<128xf32>, !tile.memdesc<256xi32, #s1>
  tile.return
}
