// RUN: not tessel-opt %s -tile-assign-layouts=target=gfx942 2>&1 | FileCheck %s
// Checks that a module whose target record is not a string is rejected with
// a message naming the attribute.

// CHECK: error: 'tessel.target' must be a string naming a target, got 7 : i32
module attributes {tessel.target = 7 : i32} {
  tile.kernel @k() {
    tile.return
  }
}
