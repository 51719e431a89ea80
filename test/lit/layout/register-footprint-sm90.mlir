// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -split-input-file -verify-diagnostics
// Checks that sm_90's limit is 255 32-bit registers per lane, and that more
// waves bring a tile under it.

tile.kernel @one_wave(%x: !tile.ptr<f32>) {
  // 8192 f32 over 32 lanes: 256 per lane, one more than sm_90 has (the
  // offsets cost one per 16-byte access: 64).
  %r = tile.range 0 to 8192 : tensor<8192xi32>
  // expected-error @+1 {{needs 256 32-bit registers per lane (256 elements x 4 bytes), but sm_90 has 255}}
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<8192xi32> -> tensor<8192xf32>
  tile.return
}

// -----

tile.kernel @two_waves(%x: !tile.ptr<f32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %r = tile.range 0 to 8192 : tensor<8192xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<8192xi32> -> tensor<8192xf32>
  tile.store %v, %x[%r] : tensor<8192xf32>, !tile.ptr<f32>, tensor<8192xi32>
  tile.return
}
