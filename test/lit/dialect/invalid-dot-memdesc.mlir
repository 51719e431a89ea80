// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that tile.dot with operands in shared memory (!tile.memdesc)
// rejects a buffer with stages (one must be picked with memdesc_index) and
// checks the K, accumulator and element types of memdesc operands as it
// does for tensors.

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
tile.kernel @stages() {
  %b = tile.local_alloc : !tile.memdesc<128x64xf8E4M3FN, #wgB>
  %a = tile.local_alloc : !tile.memdesc<2x64x128xf8E4M3FN, #wgA>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{operand a in shared memory must be one stage (take it with tile.memdesc_index), got '!tile.memdesc<2x64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>'}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<2x64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
  tile.return
}

// -----

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]}>
tile.kernel @k_mismatch() {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = tile.local_alloc : !tile.memdesc<64x64xf8E4M3FN, #wgB>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{K of a (128) does not match K of b (64)}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<64x64xf8E4M3FN, #wgB> -> tensor<64x64xf32>
  tile.return
}

// -----

#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @elem_mismatch() {
  %a = tile.local_alloc : !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %b = arith.constant dense<0.0> : tensor<128x64xbf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{unsupported operand types 'f8E4M3FN' x 'bf16'}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x128xf8E4M3FN, #wgA>, tensor<128x64xbf16> -> tensor<64x64xf32>
  tile.return
}
