// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 2>&1 | FileCheck %s
// Checks that an op this distribution does not lower yet is reported by
// name rather than silently dropped.

// CHECK: failed to legalize operation 'tile.topk'
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>) {
  %c0 = arith.constant 0 : i64
  %n = arith.constant 64 : i32
  tile.topk %x[%c0], %n -> %y[%c0] {k = 8 : i32, chunk = 64 : i32} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
