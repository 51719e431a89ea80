// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -verify-diagnostics -split-input-file
// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -verify-diagnostics -split-input-file
// Checks that a tile.dot operand in shared memory is a clear error on
// targets whose matrix instruction reads registers (MFMA on gfx942,
// mma.sync on sm_90), here for bf16 (which both have): the message says to load it with tile.local_load.

#wgA = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<bf16>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %a = tile.local_alloc : !tile.memdesc<64x64xbf16, #wgA>
  %o = arith.constant dense<0> : tensor<64x64xi32>
  %b = tile.load %y[%o] : !tile.ptr<bf16>, tensor<64x64xi32> -> tensor<64x64xbf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+2 {{failed to legalize operation 'tile.dot' that was explicitly marked illegal}}
  // expected-error-re @+1 {{tile.dot operand A is in shared memory, but {{.*}} reads its operands from registers; load it with tile.local_load into layout #tile.dot_operand<{{.*}}>}}
  %d = tile.dot %a, %b, %c : !tile.memdesc<64x64xbf16, #wgA>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.reduce add %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %s, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  tile.return
}
