// RUN: tessel-opt %s -tile-expand-radix-select=candidates=0 | FileCheck %s
// Checks a sorted tile.topk's short rows (n <= k): the k pairs that feed
// the sort are the keys of columns 0..k-1 read where the column is below
// n, and beyond n key 0 (below every value's key) with column -1, so the
// sort puts the row's columns in order of value and the -1 after them; no
// store to the destination happens before the sort.

// CHECK-LABEL: tile.kernel @k(
// CHECK: %[[SHORT:.+]] = arith.cmpi sle, %{{.+}}, %{{.+}} : i32
// CHECK: scf.if %[[SHORT]] -> (tensor<512xi32>, tensor<512xi32>) {
// CHECK: %[[COL:.+]] = arith.addi %{{.+}}, %{{.+}} : tensor<512xi32>
// CHECK: %[[IN:.+]] = arith.cmpi slt, %[[COL]], %{{.+}} : tensor<512xi32>
// CHECK-NOT: tile.store
// CHECK: tile.load %{{.+}}[%{{.+}}] mask(%[[IN]] : tensor<512xi1>) : !tile.ptr<f32>, tensor<512xi64> -> tensor<512xf32>
// CHECK-NOT: tile.store
// CHECK: %[[FLIP:.+]] = arith.xori %{{.+}}, %{{.+}} : tensor<512xi32>
// CHECK: %[[LIFT:.+]] = arith.ori %{{.+}}, %{{.+}} : tensor<512xi32>
// CHECK: %[[KEY:.+]] = arith.select %{{.+}}, %[[FLIP]], %[[LIFT]] : tensor<512xi1>, tensor<512xi32>
// CHECK: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: %[[ZS:.+]] = tile.splat %[[Z]] : i32 -> tensor<512xi32>
// CHECK: %[[K:.+]] = arith.select %[[IN]], %[[KEY]], %[[ZS]] : tensor<512xi1>, tensor<512xi32>
// CHECK: %[[M1:.+]] = arith.constant -1 : i32
// CHECK: %[[M1S:.+]] = tile.splat %[[M1]] : i32 -> tensor<512xi32>
// CHECK: %[[C:.+]] = arith.select %[[IN]], %[[COL]], %[[M1S]] : tensor<512xi1>, tensor<512xi32>
// CHECK: scf.yield %[[K]], %[[C]] : tensor<512xi32>, tensor<512xi32>
// CHECK: } else {
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable, sorted}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
