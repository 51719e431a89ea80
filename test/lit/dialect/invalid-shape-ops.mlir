// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that range, splat, broadcast, expand_dims, reshape, transpose and
// convert_layout reject results whose shape or element type does not
// follow from their operands.

tile.kernel @range_empty() {
  // expected-error @+1 {{'tile.range' op end (4) must be greater than start (4)}}
  %r = tile.range 4 to 4 : tensor<0xi32>
  tile.return
}

// -----

tile.kernel @range_backwards() {
  // expected-error @+1 {{'tile.range' op end (0) must be greater than start (8)}}
  %r = tile.range 8 to 0 : tensor<8xi32>
  tile.return
}

// -----

tile.kernel @range_length() {
  // expected-error @+1 {{'tile.range' op result has 64 elements but the range has 128}}
  %r = tile.range 0 to 128 : tensor<64xi32>
  tile.return
}

// -----

tile.kernel @range_rank() {
  // expected-error @+1 {{'tile.range' op result must be 1-D, got rank 2}}
  %r = tile.range 0 to 128 : tensor<2x64xi32>
  tile.return
}

// -----

tile.kernel @range_elem() {
  // expected-error @+1 {{'tile.range' op result #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<128xi16>'}}
  %r = tile.range 0 to 128 : tensor<128xi16>
  tile.return
}

// -----

tile.kernel @splat_type(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result element type 'bf16' does not match source type 'f32'}}
  %s = tile.splat %x : f32 -> tensor<4xbf16>
  tile.return
}

// -----

tile.kernel @broadcast_dim(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4x2xf32>
  // expected-error @+1 {{'tile.broadcast' op dimension 1 of size 2 cannot be broadcast to 128}}
  %b = tile.broadcast %s : tensor<4x2xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @broadcast_shrink(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4x1xf32>
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of size 4 cannot be broadcast to 2}}
  %b = tile.broadcast %s : tensor<4x1xf32> -> tensor<2x8xf32>
  tile.return
}

// -----

tile.kernel @broadcast_rank(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+1 {{'tile.broadcast' op source rank 1 differs from result rank 2}}
  %b = tile.broadcast %s : tensor<128xf32> -> tensor<4x128xf32>
  tile.return
}

// -----

tile.kernel @broadcast_elem(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<1x128xf32>
  // expected-error @+1 {{'tile.broadcast' op element types differ}}
  %b = tile.broadcast %s : tensor<1x128xf32> -> tensor<4x128xbf16>
  tile.return
}

// -----

tile.kernel @expand_axis(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4xf32>
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for a tensor of rank 1}}
  %e = tile.expand_dims %s, 2 : tensor<4xf32> -> tensor<4x1xf32>
  tile.return
}

// -----

tile.kernel @expand_shape(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4xf32>
  // expected-error @+1 {{'tile.expand_dims' op result shape (4x1) must be the source shape with 1 inserted at 0}}
  %e = tile.expand_dims %s, 0 : tensor<4xf32> -> tensor<4x1xf32>
  tile.return
}

// -----

tile.kernel @expand_elem(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4xf32>
  // expected-error @+1 {{'tile.expand_dims' op element types differ}}
  %e = tile.expand_dims %s, 0 : tensor<4xf32> -> tensor<1x4xi32>
  tile.return
}

// -----

tile.kernel @reshape_count(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4x32xf32>
  // expected-error @+1 {{'tile.reshape' op source has 128 elements, result has 256}}
  %r = tile.reshape %s : tensor<4x32xf32> -> tensor<256xf32>
  tile.return
}

// -----

tile.kernel @reshape_elem(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<4x32xf32>
  // expected-error @+1 {{'tile.reshape' op element types differ}}
  %r = tile.reshape %s : tensor<4x32xf32> -> tensor<128xi32>
  tile.return
}

// -----

tile.kernel @transpose_dup(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op order must be a permutation of 0..1}}
  %t = tile.transpose %s, [1, 1] : tensor<16x32xf32> -> tensor<32x32xf32>
  tile.return
}

// -----

tile.kernel @transpose_range(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op order must be a permutation of 0..1}}
  %t = tile.transpose %s, [2, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.kernel @transpose_negative(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op order must be a permutation of 0..1}}
  %t = tile.transpose %s, [-1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.kernel @transpose_len(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op order has 3 entries for a tensor of rank 2}}
  %t = tile.transpose %s, [2, 1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.kernel @transpose_shape(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op result dimension 0 must be source dimension 1 (32), got 16}}
  %t = tile.transpose %s, [1, 0] : tensor<16x32xf32> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @transpose_elem(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op result must have the source's element type and rank}}
  %t = tile.transpose %s, [1, 0] : tensor<16x32xf32> -> tensor<32x16xbf16>
  tile.return
}

// -----

tile.kernel @transpose_rank(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<16x32xf32>
  // expected-error @+1 {{'tile.transpose' op result must have the source's element type and rank}}
  %t = tile.transpose %s, [1, 0] : tensor<16x32xf32> -> tensor<512xf32>
  tile.return
}

// -----

#a = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>
tile.kernel @convert_shape(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+1 {{'tile.convert_layout' op source and result must have the same shape and element type}}
  %c = tile.convert_layout %s : tensor<128xf32> -> tensor<256xf32, #a>
  tile.return
}

// -----

#a = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>
tile.kernel @convert_elem(%x: f32) {
  %s = tile.splat %x : f32 -> tensor<128xf32>
  // expected-error @+1 {{'tile.convert_layout' op source and result must have the same shape and element type}}
  %c = tile.convert_layout %s : tensor<128xf32> -> tensor<128xi32, #a>
  tile.return
}
