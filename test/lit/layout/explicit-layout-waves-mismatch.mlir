// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -split-input-file -verify-diagnostics
// Checks that explicit layouts must match the target's wave size and the
// kernel's wave count: 128 lanes on gfx942 (64 per wave), and wavesPerCTA
// that disagrees with num_waves, are errors at the op.

#lanes128 = #tile.blocked<{sizePerThread = [1], threadsPerWave = [128], wavesPerCTA = [1], order = [0]}>
tile.kernel @lanes(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  // expected-error @+1 {{spreads over 128 lanes (threadsPerWave), but a wave of gfx942 has 64}}
  %c = tile.convert_layout %r : tensor<128xi32> -> tensor<128xi32, #lanes128>
  tile.return
}

// -----

#waves4 = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [4], order = [0]}>
tile.kernel @waves(%x: !tile.ptr<i32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  // expected-error @+1 {{spreads over 4 waves (wavesPerCTA), but the kernel runs 2 (num_waves)}}
  %c = tile.convert_layout %r : tensor<256xi32> -> tensor<256xi32, #waves4>
  tile.return
}
