// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that !tile.ptr, ptr_cast, load and store reject bad pointee types,
// element types that differ from the pointee, values and masks shaped
// unlike the offsets, and 'other' without a mask or of the wrong type.

// expected-error @+1 {{pointee must be a signless integer or float type, got 'index'}}
tile.kernel @ptr_index(%p: !tile.ptr<index>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee must be a signless integer or float type, got 'tensor<4xf32>'}}
tile.kernel @ptr_tensor(%p: !tile.ptr<tensor<4xf32>>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee must be a signless integer or float type, got 'si32'}}
tile.kernel @ptr_signed(%p: !tile.ptr<si32>) {
  tile.return
}

// -----

tile.kernel @cast_not_bytes(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_cast' op only !tile.ptr<i8> can be cast, got '!tile.ptr<f32>'}}
  %q = tile.ptr_cast %p : !tile.ptr<f32> to !tile.ptr<i32>
  tile.return
}

// -----

tile.kernel @load_elem(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.load' op result element type 'bf16' does not match pointee type 'f32'}}
  %v = tile.load %p[%o] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xbf16>
  tile.return
}

// -----

tile.kernel @load_shape(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.load' op result shape (4x32) must match offsets shape (128)}}
  %v = tile.load %p[%o] : !tile.ptr<f32>, tensor<128xi32> -> tensor<4x32xf32>
  tile.return
}

// -----

tile.kernel @load_scalar_from_tensor(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.load' op result shape (scalar) must match offsets shape (128)}}
  %v = tile.load %p[%o] : !tile.ptr<f32>, tensor<128xi32> -> f32
  tile.return
}

// -----

tile.kernel @load_offsets_type(%p: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %o = arith.trunci %r : tensor<128xi32> to tensor<128xi16>
  // expected-error @+1 {{'tile.load' op operand #1 must be 32-bit signless integer or 64-bit signless integer or statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<128xi16>'}}
  %v = tile.load %p[%o] : !tile.ptr<f32>, tensor<128xi16> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @load_mask_shape(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %m = arith.constant dense<true> : tensor<64xi1>
  // expected-error @+1 {{'tile.load' op mask shape (64) must match offsets shape (128)}}
  %v = tile.load %p[%o] mask(%m : tensor<64xi1>) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @load_scalar_mask_on_tensor(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %m = arith.constant true
  // expected-error @+1 {{'tile.load' op mask shape (scalar) must match offsets shape (128)}}
  %v = tile.load %p[%o] mask(%m : i1) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @load_other_no_mask(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %z = arith.constant dense<0.0> : tensor<128xf32>
  // expected-error @+1 {{'tile.load' op 'other' needs a mask}}
  %v = tile.load %p[%o] other(%z : tensor<128xf32>) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @load_other_type(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %m = arith.constant dense<true> : tensor<128xi1>
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'tile.load' op 'other' type 'f32' must equal the result type 'tensor<128xf32>'}}
  %v = tile.load %p[%o] mask(%m : tensor<128xi1>) other(%z : f32) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @load_mask_type(%p: !tile.ptr<f32>) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.load' op operand #2 must be 1-bit signless integer or statically shaped tensor of 1-bit signless integer values, but got 'tensor<128xi32>'}}
  %v = tile.load %p[%o] mask(%o : tensor<128xi32>) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @store_elem(%p: !tile.ptr<f32>, %x: i32) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.splat %x : i32 -> tensor<128xi32>
  // expected-error @+1 {{'tile.store' op value element type 'i32' does not match pointee type 'f32'}}
  tile.store %v, %p[%o] : tensor<128xi32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}

// -----

tile.kernel @store_shape(%p: !tile.ptr<f32>, %x: f32) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.splat %x : f32 -> tensor<64xf32>
  // expected-error @+1 {{'tile.store' op value shape (64) must match offsets shape (128)}}
  tile.store %v, %p[%o] : tensor<64xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}

// -----

tile.kernel @store_scalar_to_tensor(%p: !tile.ptr<f32>, %x: f32) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{'tile.store' op value shape (scalar) must match offsets shape (128)}}
  tile.store %x, %p[%o] : f32, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}

// -----

tile.kernel @store_mask_shape(%p: !tile.ptr<f32>, %x: f32) {
  %o = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.splat %x : f32 -> tensor<128xf32>
  %m = arith.constant dense<true> : tensor<2x64xi1>
  // expected-error @+1 {{'tile.store' op mask shape (2x64) must match offsets shape (128)}}
  tile.store %v, %p[%o] mask(%m : tensor<2x64xi1>) : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
