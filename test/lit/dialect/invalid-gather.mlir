// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.gather rejects an axis out of range, indices of another
// rank, a size mismatch outside the axis, a result not shaped like the
// indices, another result element type, and non-i32 indices.

tile.kernel @axis(%x: i32) {
  %s = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.splat %x : i32 -> tensor<16xi32>
  // expected-error @+1 {{'tile.gather' op axis 1 is out of range for a tensor of rank 1}}
  %g = tile.gather %s[%i], 1 : tensor<64xi32>, tensor<16xi32> -> tensor<16xi32>
  tile.return
}

// -----

tile.kernel @rank(%x: i32) {
  %s = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.splat %x : i32 -> tensor<4x16xi32>
  // expected-error @+1 {{'tile.gather' op indices (4x16) must have the rank of the source (64)}}
  %g = tile.gather %s[%i], 0 : tensor<64xi32>, tensor<4x16xi32> -> tensor<4x16xi32>
  tile.return
}

// -----

tile.kernel @other_dim(%x: i32) {
  %s = tile.splat %x : i32 -> tensor<8x64xi32>
  %i = tile.splat %x : i32 -> tensor<4x16xi32>
  // expected-error @+1 {{'tile.gather' op indices (4x16) and source (8x64) must have the same size in every dimension but axis 1}}
  %g = tile.gather %s[%i], 1 : tensor<8x64xi32>, tensor<4x16xi32> -> tensor<4x16xi32>
  tile.return
}

// -----

tile.kernel @result_shape(%x: i32) {
  %s = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.splat %x : i32 -> tensor<16xi32>
  // expected-error @+1 {{'tile.gather' op result shape (32) must be the indices' shape (16)}}
  %g = tile.gather %s[%i], 0 : tensor<64xi32>, tensor<16xi32> -> tensor<32xi32>
  tile.return
}

// -----

tile.kernel @result_elem(%x: i32) {
  %s = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.splat %x : i32 -> tensor<16xi32>
  // expected-error @+1 {{'tile.gather' op result element type must be the source's, 'i32'}}
  %g = tile.gather %s[%i], 0 : tensor<64xi32>, tensor<16xi32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @index_type(%x: i64) {
  %s = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.splat %x : i64 -> tensor<16xi64>
  // expected-error @+1 {{'tile.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer values}}
  %g = tile.gather %s[%i], 0 : tensor<64xi32>, tensor<16xi64> -> tensor<16xi32>
  tile.return
}
