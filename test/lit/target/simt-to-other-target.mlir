// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -o %t.simt.mlir
// RUN: not tessel-translate %t.simt.mlir --target=gfx950 --emit=asm 2>&1 | FileCheck %s
// Checks that code generation for gfx950 refuses SIMT IR lowered for gfx942
// (their fp8 formats differ), naming both targets.

// CHECK: error: kernel was distributed for target 'gfx942' but is being compiled for 'gfx950'
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.store %v, %x[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
