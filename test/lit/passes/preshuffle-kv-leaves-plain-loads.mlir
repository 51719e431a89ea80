// RUN: tessel-opt %s -tile-preshuffle-kv | FileCheck %s
// Checks that tile-preshuffle-kv leaves loads without block_base alone: a
// plain load, and a preshuffled load whose offsets already address the
// preshuffled bytes.

// CHECK-LABEL: tile.kernel @k
// CHECK: %[[OFF:.*]] = tile.splat
// CHECK-NOT: arith.
// CHECK: tile.load %arg0[%[[OFF]]] : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
// CHECK-NOT: arith.
// CHECK: tile.load %arg0[%[[OFF]]] {data_layout = #tile<data_layout preshuffled>} : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
// CHECK-NOT: arith.
tile.kernel @k(%kv: !tile.ptr<i8>, %o: i64) {
  %off = tile.splat %o : i64 -> tensor<128x16xi64>
  %a = tile.load %kv[%off] : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  %b = tile.load %kv[%off] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  tile.store %a, %kv[%off] : tensor<128x16xi8>, !tile.ptr<i8>, tensor<128x16xi64>
  tile.store %b, %kv[%off] : tensor<128x16xi8>, !tile.ptr<i8>, tensor<128x16xi64>
  tile.return
}
