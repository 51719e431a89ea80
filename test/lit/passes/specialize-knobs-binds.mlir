// RUN: tessel-opt %s -tile-specialize-knobs="knobs=block=128,flag=true" | FileCheck %s
// Checks that bound knobs become constants and are recorded on the kernel.

// CHECK-LABEL: tile.kernel @k
// CHECK-SAME: tessel.knobs = {block = 128 : i32, flag = true}
// CHECK-NOT: tile.knob
// CHECK-DAG: arith.constant 128 : i32
// CHECK-DAG: arith.constant true
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [
    #tile.knob<"block" : i32 = 64, values = [64, 128]>,
    #tile.knob<"flag" : i1>]} {
  %b = tile.knob "block" : i32
  %f = tile.knob "flag" : i1
  %c0 = arith.constant 0 : i32
  %v = arith.select %f, %b, %c0 : i32
  tile.store %v, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
