// RUN: tessel-opt %s -tile-specialize-knobs | FileCheck %s
// Checks that an unbound knob takes its declared default.

// CHECK: tessel.knobs = {block = 64 : i32}
// CHECK: arith.constant 64 : i32
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [
    #tile.knob<"block" : i32 = 64>]} {
  %b = tile.knob "block" : i32
  %c0 = arith.constant 0 : i32
  tile.store %b, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
