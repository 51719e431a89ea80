// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -split-input-file -verify-diagnostics
// Checks that a tile needing more registers per lane than the target has
// is rejected at once, at the op that makes it, with its footprint and the
// limit (512 32-bit registers per lane on gfx942).

tile.kernel @f32_64k(%x: !tile.ptr<f32>) {
  // 65536 f32 over 64 lanes: 1024 per lane (the offsets, one per 16-byte
  // access, 256).
  %r = tile.range 0 to 65536 : tensor<65536xi32>
  // expected-error @+1 {{needs 1024 32-bit registers per lane (1024 elements x 4 bytes), but gfx942 has 512; use a smaller tile or more waves (num_waves)}}
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<65536xi32> -> tensor<65536xf32>
  tile.store %v, %x[%r] : tensor<65536xf32>, !tile.ptr<f32>, tensor<65536xi32>
  tile.return
}

// -----

tile.kernel @f64_at_twice_the_limit() {
  // 32768 f64 over 64 lanes: 512 elements x 8 bytes.
  // expected-error @+1 {{needs 1024 32-bit registers per lane (512 elements x 8 bytes)}}
  %t = arith.constant dense<1.0> : tensor<32768xf64>
  tile.return
}

// -----

// 32768 f32 over 64 lanes is 512 registers: exactly the limit, accepted.
tile.kernel @f32_32k_fits(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 32768 : tensor<32768xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<32768xi32> -> tensor<32768xf32>
  tile.store %v, %x[%r] : tensor<32768xf32>, !tile.ptr<f32>, tensor<32768xi32>
  tile.return
}
