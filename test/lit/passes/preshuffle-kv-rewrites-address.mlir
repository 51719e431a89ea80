// RUN: tessel-opt %s -tile-preshuffle-kv | FileCheck %s
// Checks that tile-preshuffle-kv rewrites a preshuffled block load's address
// to block_base + P(offsets), P(i) = (i & ~0x7f0) + ((i & 0x70) << 4) +
// (((i >> 7) & 15) << 4), drops block_base and keeps the data layout.

// CHECK-LABEL: tile.kernel @k
// CHECK-SAME: (%[[KV:[^:]*]]: !tile.ptr<i8>
// CHECK-DAG: %[[OFF:.*]] = tile.splat %arg1 : i64 -> tensor<128x32xi64>
// CHECK-DAG: %[[BASE:.*]] = tile.splat %arg2 : i64 -> tensor<128x32xi64>
// CHECK-DAG: %[[KEEP:.*]] = arith.constant dense<-2033> : tensor<128x32xi64>
// CHECK-DAG: %[[DG:.*]] = arith.constant dense<112> : tensor<128x32xi64>
// CHECK-DAG: %[[C4:.*]] = arith.constant dense<4> : tensor<128x32xi64>
// CHECK-DAG: %[[C7:.*]] = arith.constant dense<7> : tensor<128x32xi64>
// CHECK-DAG: %[[C15:.*]] = arith.constant dense<15> : tensor<128x32xi64>
// CHECK-DAG: %[[LO:.*]] = arith.andi %[[OFF]], %[[KEEP]]
// CHECK-DAG: %[[D:.*]] = arith.andi %[[OFF]], %[[DG]]
// CHECK-DAG: %[[DS:.*]] = arith.shli %[[D]], %[[C4]]
// CHECK-DAG: %[[R:.*]] = arith.shrui %[[OFF]], %[[C7]]
// CHECK-DAG: %[[R15:.*]] = arith.andi %[[R]], %[[C15]]
// CHECK-DAG: %[[RS:.*]] = arith.shli %[[R15]], %[[C4]]
// CHECK: %[[P0:.*]] = arith.addi %[[LO]], %[[DS]]
// CHECK: %[[P:.*]] = arith.addi %[[P0]], %[[RS]]
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[P]]
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
