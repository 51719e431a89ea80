// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that the verifier rejects malformed preshuffled loads, each with a
// message naming the problem.

tile.kernel @base_without_preshuffled(%kv: !tile.ptr<i8>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<128x16xi64>
  // expected-error @+1 {{'block_base' needs data_layout = preshuffled}}
  %k = tile.load %kv[%o] block_base(%o : tensor<128x16xi64>)
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  tile.return
}

// -----

tile.kernel @base_with_plain(%kv: !tile.ptr<i8>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<128x16xi64>
  // expected-error @+1 {{'block_base' needs data_layout = preshuffled}}
  %k = tile.load %kv[%o] block_base(%o : tensor<128x16xi64>)
      {data_layout = #tile<data_layout plain>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  tile.return
}

// -----

tile.kernel @not_i8(%kv: !tile.ptr<f8E4M3FN>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<128x16xi64>
  // expected-error @+1 {{a preshuffled load reads fp8 bytes: its result must be an i8 tile, got 'tensor<128x16xf8E4M3FN>'}}
  %k = tile.load %kv[%o] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<f8E4M3FN>, tensor<128x16xi64> -> tensor<128x16xf8E4M3FN>
  tile.return
}

// -----

tile.kernel @scalar(%kv: !tile.ptr<i8>, %o: i64) {

  // expected-error @+1 {{a preshuffled load reads fp8 bytes: its result must be an i8 tile, got 'i8'}}
  %k = tile.load %kv[%o] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, i64 -> i8
  tile.return
}

// -----

tile.kernel @d_not_128(%kv: !tile.ptr<i8>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<64x16xi64>
  // expected-error @+1 {{a preshuffled tile must be [128, N] (D = 128 bytes along dimension 0, N tokens), got 'tensor<64x16xi8>'}}
  %k = tile.load %kv[%o] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<64x16xi64> -> tensor<64x16xi8>
  tile.return
}

// -----

tile.kernel @d_not_dim0(%kv: !tile.ptr<i8>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<16x128xi64>
  // expected-error @+1 {{a preshuffled tile must be [128, N] (D = 128 bytes along dimension 0, N tokens), got 'tensor<16x128xi8>'}}
  %k = tile.load %kv[%o] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<16x128xi64> -> tensor<16x128xi8>
  tile.return
}

// -----

tile.kernel @rank1(%kv: !tile.ptr<i8>, %o_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<128xi64>
  // expected-error @+1 {{a preshuffled tile must be [128, N] (D = 128 bytes along dimension 0, N tokens), got 'tensor<128xi8>'}}
  %k = tile.load %kv[%o] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128xi64> -> tensor<128xi8>
  tile.return
}

// -----

tile.kernel @base_i32(%kv: !tile.ptr<i8>, %o_s: i32) {
  %o = tile.splat %o_s : i32 -> tensor<128x16xi32>
  // expected-error @+1 {{'block_base' must be an i64 tile (byte offsets), got 'tensor<128x16xi32>'}}
  %k = tile.load %kv[%o] block_base(%o : tensor<128x16xi32>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi32> -> tensor<128x16xi8>
  tile.return
}

// -----

tile.kernel @base_shape(%kv: !tile.ptr<i8>, %o_s: i64, %b_s: i64) {
  %o = tile.splat %o_s : i64 -> tensor<128x16xi64>
  %b = tile.splat %b_s : i64 -> tensor<128x32xi64>
  // expected-error @+1 {{'block_base' type 'tensor<128x32xi64>' must equal the offsets type 'tensor<128x16xi64>'}}
  %k = tile.load %kv[%o] block_base(%b : tensor<128x32xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  tile.return
}

// -----

tile.kernel @offsets_i32(%kv: !tile.ptr<i8>, %o_s: i32, %b_s: i64) {
  %o = tile.splat %o_s : i32 -> tensor<128x16xi32>
  %b = tile.splat %b_s : i64 -> tensor<128x16xi64>
  // expected-error @+1 {{'block_base' type 'tensor<128x16xi64>' must equal the offsets type 'tensor<128x16xi32>'}}
  %k = tile.load %kv[%o] block_base(%b : tensor<128x16xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi32> -> tensor<128x16xi8>
  tile.return
}
