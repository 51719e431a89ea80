// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 2>&1 | FileCheck %s
// Checks that an op this distribution does not lower yet is reported by
// name rather than silently dropped.

// CHECK: failed to legalize operation 'tile.grid_barrier'
tile.kernel @k(%x: !tile.ptr<i32>) {
  %c0 = arith.constant 0 : i64
  tile.grid_barrier %x[%c0] : !tile.ptr<i32>, i64
  tile.return
}
