// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that atomic_rmw and atomic_cas reject unsupported element types,
// integer-only kinds on floats, values and masks shaped unlike the offsets,
// and mismatched cmp/value/result types.

tile.kernel @rmw_f16(%p: !tile.ptr<f16>, %o: i64, %x: f32) {
  %v = arith.truncf %x : f32 to f16
  // expected-error @+1 {{'tile.atomic_rmw' op atomics support i32, i64 and f32 elements, got 'f16'}}
  %r = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<f16>, i64, f16
  tile.return
}

// -----

tile.kernel @rmw_i8(%p: !tile.ptr<i8>, %o: i64, %x: i32) {
  %v = arith.trunci %x : i32 to i8
  // expected-error @+1 {{'tile.atomic_rmw' op atomics support i32, i64 and f32 elements, got 'i8'}}
  %r = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<i8>, i64, i8
  tile.return
}

// -----

tile.kernel @rmw_f64(%p: !tile.ptr<f64>, %o: i64, %x: f32) {
  %v = arith.extf %x : f32 to f64
  // expected-error @+1 {{'tile.atomic_rmw' op atomics support i32, i64 and f32 elements, got 'f64'}}
  %r = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<f64>, i64, f64
  tile.return
}

// -----

tile.kernel @rmw_umax_float(%p: !tile.ptr<f32>, %o: i64, %x: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic 'umax' needs integer elements}}
  %r = tile.atomic_rmw umax, %p[%o], %x : !tile.ptr<f32>, i64, f32
  tile.return
}

// -----

tile.kernel @rmw_umin_float(%p: !tile.ptr<f32>, %o: i64, %x: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic 'umin' needs integer elements}}
  %r = tile.atomic_rmw umin, %p[%o], %x : !tile.ptr<f32>, i64, f32
  tile.return
}

// -----

tile.kernel @rmw_and_float(%p: !tile.ptr<f32>, %o: i64, %x: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic 'and' needs integer elements}}
  %r = tile.atomic_rmw and, %p[%o], %x : !tile.ptr<f32>, i64, f32
  tile.return
}

// -----

tile.kernel @rmw_or_float(%p: !tile.ptr<f32>, %o: i64, %x: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic 'or' needs integer elements}}
  %r = tile.atomic_rmw or, %p[%o], %x : !tile.ptr<f32>, i64, f32
  tile.return
}

// -----

tile.kernel @rmw_bad_kind(%p: !tile.ptr<i32>, %o: i64, %x: i32) {
  // expected-error @+2 {{custom op 'tile.atomic_rmw' expected ::tessel::tile::AtomicKind to be one of: add, max, min, umax, umin, and, or, xchg}}
  // expected-error @+1 {{custom op 'tile.atomic_rmw' failed to parse Tile_AtomicKindAttr parameter 'value'}}
  %r = tile.atomic_rmw nand, %p[%o], %x : !tile.ptr<i32>, i64, i32
  tile.return
}

// -----

tile.kernel @rmw_elem(%p: !tile.ptr<i32>, %o: i64, %x: i64) {
  // expected-error @+1 {{'tile.atomic_rmw' op value element type 'i64' does not match pointee type 'i32'}}
  %r = tile.atomic_rmw add, %p[%o], %x : !tile.ptr<i32>, i64, i64
  tile.return
}

// -----

tile.kernel @rmw_shape(%p: !tile.ptr<i32>, %x: i32) {
  %o = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.splat %x : i32 -> tensor<128xi32>
  // expected-error @+1 {{'tile.atomic_rmw' op value shape (128) must match offsets shape (256)}}
  %r = tile.atomic_rmw add, %p[%o], %v : !tile.ptr<i32>, tensor<256xi32>, tensor<128xi32>
  tile.return
}

// -----

tile.kernel @rmw_mask(%p: !tile.ptr<i32>, %x: i32) {
  %o = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.splat %x : i32 -> tensor<256xi32>
  %m = arith.constant dense<true> : tensor<128xi1>
  // expected-error @+1 {{'tile.atomic_rmw' op mask shape (128) must match offsets shape (256)}}
  %r = tile.atomic_rmw add, %p[%o], %v mask(%m : tensor<128xi1>) : !tile.ptr<i32>, tensor<256xi32>, tensor<256xi32>
  tile.return
}

// -----

tile.kernel @rmw_result_type(%p: !tile.ptr<i32>, %o: i64, %x: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that all of {value, result} have same type}}
  %r = "tile.atomic_rmw"(%p, %o, %x) <{kind = #tile<atomic add>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!tile.ptr<i32>, i64, i32) -> i64
  tile.return
}

// -----

tile.kernel @cas_f16(%p: !tile.ptr<f16>, %o: i64, %x: f32) {
  %v = arith.truncf %x : f32 to f16
  // expected-error @+1 {{'tile.atomic_cas' op atomics support i32, i64 and f32 elements, got 'f16'}}
  %r = tile.atomic_cas %p[%o], %v, %v : !tile.ptr<f16>, i64, f16
  tile.return
}

// -----

tile.kernel @cas_elem(%p: !tile.ptr<i64>, %o: i64, %x: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op value element type 'i32' does not match pointee type 'i64'}}
  %r = tile.atomic_cas %p[%o], %x, %x : !tile.ptr<i64>, i64, i32
  tile.return
}

// -----

tile.kernel @cas_shape(%p: !tile.ptr<i32>, %o: i64, %x: i32) {
  %v = tile.splat %x : i32 -> tensor<4xi32>
  // expected-error @+1 {{'tile.atomic_cas' op value shape (4) must match offsets shape (scalar)}}
  %r = tile.atomic_cas %p[%o], %v, %v : !tile.ptr<i32>, i64, tensor<4xi32>
  tile.return
}

// -----

tile.kernel @cas_cmp_type(%p: !tile.ptr<i32>, %o: i64, %x: i32, %y: i64) {
  // expected-error @+1 {{'tile.atomic_cas' op failed to verify that all of {cmp, value, result} have same type}}
  %r = "tile.atomic_cas"(%p, %o, %y, %x) : (!tile.ptr<i32>, i64, i64, i32) -> i32
  tile.return
}
