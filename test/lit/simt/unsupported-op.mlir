// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 2>&1 | FileCheck %s
// Checks that an op this distribution does not lower yet is reported by
// name rather than silently dropped.

// CHECK: failed to legalize operation 'tile.histogram'
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %h = tile.histogram %r : tensor<64xi32> -> tensor<64xi32>
  tile.store %h, %x[%r] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
