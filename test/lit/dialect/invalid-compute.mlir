// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that dot, reduce, scan, histogram, topk and grid_barrier reject
// bad operand types and shapes, axes out of range, bad k or chunk and a non-i32
// barrier counter.

tile.kernel @dot_rank(%x: f32) {
  %a = arith.constant dense<0.0> : tensor<64xbf16>
  %b = arith.constant dense<0.0> : tensor<64x64xbf16>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op operands must be 2-D}}
  %d = tile.dot %a, %b, %c : tensor<64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_k(%x: f32) {
  %a = arith.constant dense<0.0> : tensor<64x128xbf16>
  %b = arith.constant dense<0.0> : tensor<64x64xbf16>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op K of a (128) does not match K of b (64)}}
  %d = tile.dot %a, %b, %c : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_shape(%x: f32) {
  %a = arith.constant dense<0.0> : tensor<32x128xbf16>
  %b = arith.constant dense<0.0> : tensor<128x16xbf16>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op accumulator shape (64x64) must be 32x16}}
  %d = tile.dot %a, %b, %c : tensor<32x128xbf16>, tensor<128x16xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_f16(%x: f32) {
  %a = arith.constant dense<0.0> : tensor<64x128xbf16>
  %b = arith.constant dense<0.0> : tensor<128x64xbf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf16>
  // expected-error @+1 {{'tile.dot' op accumulator must be f32, got 'f16'}}
  %d = tile.dot %a, %b, %c : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.kernel @dot_mixed_fp8(%x: f32) {
  %af = tile.splat %x : f32 -> tensor<64x128xf32>
  %bf = tile.splat %x : f32 -> tensor<128x64xf32>
  %a = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
  %b = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xf8E4M3FNUZ>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op unsupported operand types 'f8E4M3FN' x 'f8E4M3FNUZ'; expected fp8 x fp8 of one format, or bf16 x bf16}}
  %d = tile.dot %a, %b, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_e5m2(%x: f32) {
  %af = tile.splat %x : f32 -> tensor<64x128xf32>
  %bf = tile.splat %x : f32 -> tensor<128x64xf32>
  %a = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xf8E5M2>
  %b = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xf8E5M2>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op unsupported operand types 'f8E5M2' x 'f8E5M2'; expected fp8 x fp8 of one format, or bf16 x bf16}}
  %d = tile.dot %a, %b, %c : tensor<64x128xf8E5M2>, tensor<128x64xf8E5M2> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_f32(%x: f32) {
  %a = tile.splat %x : f32 -> tensor<64x128xf32>
  %b = tile.splat %x : f32 -> tensor<128x64xf32>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op unsupported operand types 'f32' x 'f32'; expected fp8 x fp8 of one format, or bf16 x bf16}}
  %d = tile.dot %a, %b, %c : tensor<64x128xf32>, tensor<128x64xf32> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @dot_bf16_fp8(%x: f32) {
  %af = tile.splat %x : f32 -> tensor<64x128xf32>
  %a = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xbf16>
  %bf = tile.splat %x : f32 -> tensor<128x64xf32>
  %b = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xf8E4M3FN>
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  // expected-error @+1 {{'tile.dot' op unsupported operand types 'bf16' x 'f8E4M3FN'; expected fp8 x fp8 of one format, or bf16 x bf16}}
  %d = tile.dot %a, %b, %c : tensor<64x128xbf16>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @reduce_axis(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<4x128xf32>
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for a tensor of rank 2}}
  %r = tile.reduce max %t, 2 : tensor<4x128xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @reduce_elem(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<4x128xf32>
  // expected-error @+1 {{'tile.reduce' op result element type must be 'f32'}}
  %r = tile.reduce add %t, 1 : tensor<4x128xf32> -> tensor<4xbf16>
  tile.return
}

// -----

tile.kernel @reduce_shape(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<4x128xf32>
  // expected-error @+1 {{'tile.reduce' op result shape (128) must be the source shape without axis 1}}
  %r = tile.reduce add %t, 1 : tensor<4x128xf32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @reduce_2d_to_scalar(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<4x128xf32>
  // expected-error @+1 {{'tile.reduce' op result shape (scalar) must be the source shape without axis 1}}
  %r = tile.reduce add %t, 1 : tensor<4x128xf32> -> f32
  tile.return
}

// -----

tile.kernel @reduce_1d_to_tensor(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+1 {{'tile.reduce' op reducing a 1-D tensor gives a scalar 'f32'}}
  %r = tile.reduce add %t, 0 : tensor<128xf32> -> tensor<1xf32>
  tile.return
}

// -----

tile.kernel @reduce_bad_kind(%x: f32) {
  %t = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+2 {{custom op 'tile.reduce' expected ::tessel::tile::CombineKind to be one of: add, max, min}}
  // expected-error @+1 {{custom op 'tile.reduce' failed to parse Tile_CombineKindAttr parameter 'value'}}
  %r = tile.reduce mul %t, 0 : tensor<128xf32> -> f32
  tile.return
}

// -----

tile.kernel @scan_axis(%x: i32) {
  %t = tile.splat %x : i32 -> tensor<256xi32>
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for a tensor of rank 1}}
  %s = tile.scan add %t, 1 : tensor<256xi32>
  tile.return
}

// -----

tile.kernel @histogram_rank(%x: i32) {
  %k = tile.range 0 to 1024 : tensor<1024xi32>
  // expected-error @+1 {{'tile.histogram' op result must be a 1-D tensor of at least one bin}}
  %h = tile.histogram %k : tensor<1024xi32> -> tensor<16x16xi32>
  tile.return
}

// -----

tile.kernel @histogram_mask(%x: i32) {
  %k = tile.range 0 to 1024 : tensor<1024xi32>
  %m = arith.constant dense<true> : tensor<512xi1>
  // expected-error @+1 {{'tile.histogram' op mask shape (512) must match keys shape (1024)}}
  %h = tile.histogram %k mask(%m : tensor<512xi1>) : tensor<1024xi32> -> tensor<256xi32>
  tile.return
}

// -----

tile.kernel @histogram_scalar_mask(%x: i32) {
  %k = tile.range 0 to 1024 : tensor<1024xi32>
  %m = arith.constant true
  // expected-error @+1 {{'tile.histogram' op mask shape (scalar) must match keys shape (1024)}}
  %h = tile.histogram %k mask(%m : i1) : tensor<1024xi32> -> tensor<256xi32>
  tile.return
}

// -----

tile.kernel @histogram_float_keys(%x: f32) {
  %k = tile.splat %x : f32 -> tensor<1024xf32>
  // expected-error @+1 {{'tile.histogram' op operand #0 must be statically shaped tensor of signless integer values, but got 'tensor<1024xf32>'}}
  %h = tile.histogram %k : tensor<1024xf32> -> tensor<256xi32>
  tile.return
}

// -----

tile.kernel @histogram_i64_bins(%x: i32) {
  %k = tile.range 0 to 1024 : tensor<1024xi32>
  // expected-error @+1 {{'tile.histogram' op result #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<256xi64>'}}
  %h = tile.histogram %k : tensor<1024xi32> -> tensor<256xi64>
  tile.return
}

// -----

tile.kernel @topk_src_type(%x: !tile.ptr<f16>, %y: !tile.ptr<i32>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op source must be !tile.ptr<f32>, got '!tile.ptr<f16>'}}
  tile.topk %x[%o], %n -> %y[%o] {k = 16 : i32, chunk = 1024 : i32} : !tile.ptr<f16>, !tile.ptr<i32>
  tile.return
}

// -----

tile.kernel @topk_dst_type(%x: !tile.ptr<f32>, %y: !tile.ptr<i64>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op destination must be !tile.ptr<i32>, got '!tile.ptr<i64>'}}
  tile.topk %x[%o], %n -> %y[%o] {k = 16 : i32, chunk = 1024 : i32} : !tile.ptr<f32>, !tile.ptr<i64>
  tile.return
}

// -----

tile.kernel @topk_zero(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op k must be positive, got 0}}
  tile.topk %x[%o], %n -> %y[%o] {k = 0 : i32, chunk = 1024 : i32} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}

// -----

tile.kernel @topk_chunk(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %o: i64, %n: i32) {
  // expected-error @+1 {{'tile.topk' op chunk must be a positive power of two, got 1000}}
  tile.topk %x[%o], %n -> %y[%o] {k = 16 : i32, chunk = 1000 : i32} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}

// -----

tile.kernel @topk_n_type(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %o: i64, %n: i64) {
  // expected-error @+1 {{'tile.topk' op operand #2 must be 32-bit signless integer, but got 'i64'}}
  "tile.topk"(%x, %o, %n, %y, %o) {k = 16 : i32, chunk = 1024 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0>} : (!tile.ptr<f32>, i64, i64, !tile.ptr<i32>, i64) -> ()
  tile.return
}

// -----

tile.kernel @barrier_i64(%ws: !tile.ptr<i64>, %o: i64) {
  // expected-error @+1 {{'tile.grid_barrier' op the barrier counter must be i32}}
  tile.grid_barrier %ws[%o] : !tile.ptr<i64>, i64
  tile.return
}

// -----

tile.kernel @barrier_f32(%ws: !tile.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'tile.grid_barrier' op the barrier counter must be i32}}
  tile.grid_barrier %ws[%o] : !tile.ptr<f32>, i32
  tile.return
}
