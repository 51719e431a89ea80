// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that !tile.memdesc and the shared-memory ops reject bad IR with
// precise messages: layouts that are not shared, ranks, dimensions that are
// not powers of two, element types, stages, and shapes or element types
// that differ between tensors, offsets and the tile.

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @not_shared() {
  // expected-error @+1 {{memdesc layout must be #tile.shared, got #tile.blocked}}
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], order = [1, 0]}>>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @rank() {
  // expected-error @+1 {{memdesc shape has rank 4 but its shared layout has rank 2 (one more for a leading stage dimension)}}
  %a = tile.local_alloc : !tile.memdesc<2x2x64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @not_pow2() {
  // expected-error @+1 {{memdesc tile dimensions must be powers of two (the shared layout is a linear map of the offset bits), got 48}}
  %a = tile.local_alloc : !tile.memdesc<48x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @zero_stages() {
  // expected-error @+1 {{memdesc stage count must be positive, got 0}}
  %a = tile.local_alloc : !tile.memdesc<0x64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @i1_elems() {
  // expected-error @+1 {{memdesc element type must be a float or a signless integer of 8 to 64 bits, got 'i1'}}
  %a = tile.local_alloc : !tile.memdesc<64x64xi1, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @init_shape() {
  %t = arith.constant dense<1.0> : tensor<64x32xf32>
  // expected-error @+1 {{'tile.local_alloc' op init shape (64x32) must match the shared-memory tile shape (64x64)}}
  %a = tile.local_alloc (%t : tensor<64x32xf32>) : !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @init_staged() {
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  // expected-error @+1 {{'tile.local_alloc' op the shared-memory tile has 2 stages; pick one with tile.memdesc_index first}}
  %a = tile.local_alloc (%t : tensor<64x64xf32>) : !tile.memdesc<2x64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @index_unstaged(%i: i32) {
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.memdesc_index' op source has no stage dimension to index}}
  %s = tile.memdesc_index %a[%i] : !tile.memdesc<64x64xf32, #shared> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @index_type(%i: i32) {
  %a = tile.local_alloc : !tile.memdesc<3x64x64xf32, #shared>
  // expected-error @+1 {{'tile.memdesc_index' op result type must be '!tile.memdesc<64x64xf32, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>' (the source without its stage dimension), got '!tile.memdesc<64x64xf16}}
  %s = tile.memdesc_index %a[%i] : !tile.memdesc<3x64x64xf32, #shared> -> !tile.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @store_staged() {
  %a = tile.local_alloc : !tile.memdesc<2x64x64xf32, #shared>
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  // expected-error @+1 {{'tile.local_store' op the shared-memory tile has 2 stages; pick one with tile.memdesc_index first}}
  tile.local_store %t, %a : tensor<64x64xf32> -> !tile.memdesc<2x64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @store_elem() {
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  %t = arith.constant dense<1> : tensor<64x64xi32>
  // expected-error @+1 {{'tile.local_store' op stored value element type 'i32' does not match the shared-memory element type 'f32'}}
  tile.local_store %t, %a : tensor<64x64xi32> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @load_shape() {
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.local_load' op result shape (64x128) must match the shared-memory tile shape (64x64)}}
  %t = tile.local_load %a : !tile.memdesc<64x64xf32, #shared> -> tensor<64x128xf32>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @load_shared_encoding() {
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.local_load' op result must have a distributed layout, not a shared one}}
  %t = tile.local_load %a : !tile.memdesc<64x64xf32, #shared> -> tensor<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @copy_pointee(%p: !tile.ptr<f16>, %i: i32) {
  %o = tile.splat %i : i32 -> tensor<64x64xi32>
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.async_copy_global_to_local' op pointee type 'f16' does not match the shared-memory element type 'f32'}}
  %t = tile.async_copy_global_to_local %p[%o], %a : !tile.ptr<f16>, tensor<64x64xi32> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @copy_shape(%p: !tile.ptr<f32>, %i: i32) {
  %o = tile.splat %i : i32 -> tensor<32x64xi32>
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.async_copy_global_to_local' op offsets shape (32x64) must match the shared-memory tile shape (64x64)}}
  %t = tile.async_copy_global_to_local %p[%o], %a : !tile.ptr<f32>, tensor<32x64xi32> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @copy_offsets_i16(%p: !tile.ptr<f32>) {
  %o = arith.constant dense<0> : tensor<64x64xi16>
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.async_copy_global_to_local' op offsets must be i32 or i64, got 'i16'}}
  %t = tile.async_copy_global_to_local %p[%o], %a : !tile.ptr<f32>, tensor<64x64xi16> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @copy_mask(%p: !tile.ptr<f32>, %i: i32) {
  %o = tile.splat %i : i32 -> tensor<64x64xi32>
  %m = arith.constant dense<true> : tensor<64x32xi1>
  %a = tile.local_alloc : !tile.memdesc<64x64xf32, #shared>
  // expected-error @+1 {{'tile.async_copy_global_to_local' op mask shape (64x32) must match offsets shape (64x64)}}
  %t = tile.async_copy_global_to_local %p[%o] mask(%m : tensor<64x32xi1>), %a : !tile.ptr<f32>, tensor<64x64xi32> -> !tile.memdesc<64x64xf32, #shared>
  tile.return
}

// -----

tile.kernel @wait_negative() {
  // expected-error @+1 {{'tile.async_wait' op attribute 'num' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0}}
  %w = tile.async_wait {num = -1 : i32}
  tile.return
}
