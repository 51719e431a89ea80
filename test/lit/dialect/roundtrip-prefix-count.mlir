// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.prefix_count prints in its custom syntax (two results:
// the positions and the total) and parses back unchanged.

// CHECK-LABEL: tile.kernel @count(
// CHECK: %[[P:.+]], %[[N:.+]] = tile.prefix_count %{{.+}} : tensor<256xi1> -> tensor<256xi32>
// CHECK: tile.store %[[P]],
// CHECK: tile.store %[[N]],
tile.kernel @count(%y: !tile.ptr<i32>, %t: i32) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %s = tile.splat %t : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %s : tensor<256xi32>
  %pos, %n = tile.prefix_count %m : tensor<256xi1> -> tensor<256xi32>
  tile.store %pos, %y[%r] : tensor<256xi32>, !tile.ptr<i32>, tensor<256xi32>
  %c0 = arith.constant 0 : i32
  tile.store %n, %y[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
