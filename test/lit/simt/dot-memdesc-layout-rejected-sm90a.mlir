// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90a -convert-tile-to-simt=target=sm_90a -verify-diagnostics -split-input-file
// Checks that on sm_90a a tile.dot operand in shared memory must be in the
// K-major layout wgmma reads for its K extent, and that the error names
// the layout to use: for fp8 K = 128 (128 bytes) the phase advances every
// row (perPhase = 1, maxPhase = 8); a 64-byte-swizzle layout, B with N
// fastest, and a K of 256 bytes (two swizzle spans) are rejected.

#a64 = #tile.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
tile.kernel @wrong_swizzle(%x: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #a64>
  %b = tile.local_alloc : !tile.memdesc<128x64xf8E4M3FN, #wgB>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{tile.dot operand A '!tile.memdesc<64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>>' is not in the K-major layout wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 reads; use #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #a64>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.reduce add %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}

// -----

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#bN = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @b_n_fastest(%x: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = tile.local_alloc : !tile.memdesc<128x64xf8E4M3FN, #bN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{is not in the K-major layout wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 reads; use #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #bN> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.reduce add %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}

// -----

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @k_two_spans(%x: !tile.ptr<f32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %a = tile.local_alloc : !tile.memdesc<64x256xf8E4M3FN, #wgA>
  %b = arith.constant dense<0.0> : tensor<256x64xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{tile.dot operand A in shared memory has K of 256 bytes; wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 reads a buffer whose K is 32, 64 or 128 bytes (one swizzle span)}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x256xf8E4M3FN, #wgA>, tensor<256x64xf8E4M3FN> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.reduce add %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}
