// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 2>&1 | FileCheck %s
// Checks that a grid barrier whose workspace offset is a negative constant
// is rejected with the offset named, not lowered to a write before the
// buffer.

// CHECK: error: the barrier workspace offset is negative (-2)
tile.kernel @k(%ws: !tile.ptr<i32>) {
  %c = arith.constant -2 : i32
  tile.grid_barrier %ws[%c] : !tile.ptr<i32>, i32
  tile.return
}
