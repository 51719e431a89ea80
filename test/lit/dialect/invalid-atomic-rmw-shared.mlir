// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.atomic_rmw on a shared-memory tile rejects tiles whose
// offsets are not element positions (2-D, staged) and a value type that is
// not the tile's.

#s2 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tile.kernel @two_d(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<16x16xi32, #s2>
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.atomic_rmw' op atomics on a shared-memory tile need a 1-D tile without stages, got '!tile.memdesc<16x16xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>'}}
  %old = tile.atomic_rmw add, %buf[%o], %o : !tile.memdesc<16x16xi32, #s2>, tensor<128xi32>, tensor<128xi32>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @staged(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<2x256xi32, #s1>
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.atomic_rmw' op atomics on a shared-memory tile need a 1-D tile without stages}}
  %old = tile.atomic_rmw add, %buf[%o], %o : !tile.memdesc<2x256xi32, #s1>, tensor<128xi32>, tensor<128xi32>
  tile.return
}

// -----

#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @elem(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<256xf32, #s1>
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.atomic_rmw' op value element type 'i32' does not match pointee type 'f32'}}
  %old = tile.atomic_rmw add, %buf[%o], %o : !tile.memdesc<256xf32, #s1>, tensor<128xi32>, tensor<128xi32>
  tile.return
}
