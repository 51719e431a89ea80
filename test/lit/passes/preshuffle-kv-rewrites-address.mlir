// RUN: tessel-opt %s -tile-preshuffle-kv | FileCheck %s
// Checks that tile-preshuffle-kv rewrites a preshuffled block load's address
// to block_base + zext(P(offsets)), with P(i) = (i & ~0x7f0) +
// ((i & 0x70) << 4) + ((i >> 3) & 0xf0) computed in i32 on the low 32 bits
// of the offsets, under the splat that both offsets and base share; it
// drops block_base and keeps the data layout.

// CHECK-LABEL: tile.kernel @k
// CHECK-SAME: (%[[KV:[^:]*]]: !tile.ptr<i8>
// CHECK-DAG: %[[T:.*]] = arith.trunci %arg1 : i64 to i32
// CHECK-DAG: %[[KEEP:.*]] = arith.constant -2033 : i32
// CHECK-DAG: %[[LO:.*]] = arith.andi %[[T]], %[[KEEP]] : i32
// CHECK-DAG: %[[C112:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[DG:.*]] = arith.andi %[[T]], %[[C112]] : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[DS:.*]] = arith.shli %[[DG]], %[[C4]] : i32
// CHECK-DAG: %[[P0:.*]] = arith.addi %[[LO]], %[[DS]] : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[R:.*]] = arith.shrui %[[T]], %[[C3]] : i32
// CHECK-DAG: %[[C240:.*]] = arith.constant 240 : i32
// CHECK-DAG: %[[RS:.*]] = arith.andi %[[R]], %[[C240]] : i32
// CHECK-DAG: %[[P:.*]] = arith.addi %[[P0]], %[[RS]] : i32
// CHECK: %[[W:.*]] = arith.extui %[[P]] : i32 to i64
// CHECK: %[[A:.*]] = arith.addi %arg2, %[[W]] : i64
// CHECK: %[[ADDR:.*]] = tile.splat %[[A]] : i64 -> tensor<128x32xi64>
// CHECK: tile.load %[[KV]][%[[ADDR]]] {data_layout = #tile<data_layout preshuffled>} : !tile.ptr<i8>, tensor<128x32xi64> -> tensor<128x32xi8>
// CHECK-NOT: block_base
tile.kernel @k(%kv: !tile.ptr<i8>, %o: i64, %b: i64) {
  %off = tile.splat %o : i64 -> tensor<128x32xi64>
  %base = tile.splat %b : i64 -> tensor<128x32xi64>
  %k = tile.load %kv[%off] block_base(%base : tensor<128x32xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x32xi64> -> tensor<128x32xi8>
  tile.store %k, %kv[%off] : tensor<128x32xi8>, !tile.ptr<i8>, tensor<128x32xi64>
  tile.return
}
