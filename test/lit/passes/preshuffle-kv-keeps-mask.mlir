// RUN: tessel-opt %s -tile-preshuffle-kv | FileCheck %s
// Checks that tile-preshuffle-kv keeps a preshuffled block load's mask and
// `other` value when it rewrites the address.

// CHECK-LABEL: tile.kernel @k
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0> : tensor<128x16xi8>
// CHECK-DAG: %[[M:.*]] = tile.splat %{{.*}} : i1 -> tensor<128x16xi1>
// CHECK: %[[A:.*]] = arith.addi %arg2, %{{.*}} : i64
// CHECK: %[[ADDR:.*]] = tile.splat %[[A]] : i64 -> tensor<128x16xi64>
// CHECK: tile.load %{{.*}}[%[[ADDR]]] mask(%[[M]] : tensor<128x16xi1>) other(%[[Z]] : tensor<128x16xi8>) {data_layout = #tile<data_layout preshuffled>}
tile.kernel @k(%kv: !tile.ptr<i8>, %o: i64, %b: i64, %n: i32) {
  %z = arith.constant dense<0> : tensor<128x16xi8>
  %off = tile.splat %o : i64 -> tensor<128x16xi64>
  %base = tile.splat %b : i64 -> tensor<128x16xi64>
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %n, %c0 : i32
  %m = tile.splat %ok : i1 -> tensor<128x16xi1>
  %k = tile.load %kv[%off] block_base(%base : tensor<128x16xi64>)
      mask(%m : tensor<128x16xi1>) other(%z : tensor<128x16xi8>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  tile.store %k, %kv[%off] : tensor<128x16xi8>, !tile.ptr<i8>, tensor<128x16xi64>
  tile.return
}
