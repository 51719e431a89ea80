// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -verify-diagnostics -split-input-file
// Checks that a kernel whose shared-memory buffers, live at the same time,
// need more than gfx942's 64 KiB of LDS fails to compile with an error that
// gives the total and the limit and names every buffer with its location,
// size and offset: 64x256xf32 is 65536 bytes, 32x64xf32 is 8192 bytes,
// together 73728.

#shared = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// expected-error @+1 {{kernel needs 73728 bytes of LDS, more than the 65536 bytes of gfx942; its 2 buffer(s):}}
tile.kernel @k(%x: !tile.ptr<f32>) {
  // expected-note @+1 {{65536 bytes at offset 0 for 'tile.local_alloc'}}
  %a = tile.local_alloc : !tile.memdesc<64x256xf32, #shared>
  // expected-note @+1 {{8192 bytes at offset 65536 for 'tile.local_alloc'}}
  %b = tile.local_alloc : !tile.memdesc<32x64xf32, #shared>
  %va = tile.local_load %a : !tile.memdesc<64x256xf32, #shared> -> tensor<64x256xf32>
  %vb = tile.local_load %b : !tile.memdesc<32x64xf32, #shared> -> tensor<32x64xf32>
  %sa = tile.reduce add %va, 1 : tensor<64x256xf32> -> tensor<64xf32>
  %sb = tile.reduce add %vb, 1 : tensor<32x64xf32> -> tensor<32xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  tile.store %sa, %x[%r] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi32>
  %r2 = tile.range 0 to 32 : tensor<32xi32>
  tile.store %sb, %x[%r2] : tensor<32xf32>, !tile.ptr<f32>, tensor<32xi32>
  tile.return
}
