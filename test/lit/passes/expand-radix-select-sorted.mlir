// RUN: tessel-opt %s -tile-expand-radix-select=candidates=0 | FileCheck %s
// Checks that a sorted tile.topk sorts in shared memory in the same
// program: two zeroed LDS tiles of k pairs (keys, columns), filled by the
// selection's emission through LDS scatters (atomic xchg) instead of
// stores to the destination and read back as tensors of k; then 32
// one-bit LSD passes, each a tile.prefix_count split of the key bit and,
// unless every key agrees on it, a scatter of both tiles and a reload; and
// one unmasked store of the sorted columns.

// CHECK-LABEL: tile.kernel @k(
// CHECK-NOT: tile.topk
// CHECK: %[[Z:.+]] = arith.constant dense<0> : tensor<512xi32>
// CHECK: %[[KEYS:.+]] = tile.local_alloc(%[[Z]] : tensor<512xi32>) : !tile.memdesc<512xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
// CHECK: %[[COLS:.+]] = tile.local_alloc(%[[Z]] : tensor<512xi32>) : !tile.memdesc<512xi32
// CHECK: %[[PAIRS:.+]]:2 = scf.if %{{.+}} -> (tensor<512xi32>, tensor<512xi32>) {
// CHECK: } else {
// CHECK: tile.histogram
// CHECK: tile.prefix_count %{{.+}} : tensor<1024xi1> -> tensor<1024xi32>
// CHECK-NOT: tile.store
// CHECK: tile.atomic_rmw xchg, %[[KEYS]][%{{.+}}], %{{.+}} mask(%{{.+}} : tensor<1024xi1>) {scope = #tile<scope workgroup>} : !tile.memdesc<512xi32, {{.+}}>, tensor<1024xi32>, tensor<1024xi32>
// CHECK-NEXT: tile.atomic_rmw xchg, %[[COLS]][%{{.+}}], %{{.+}} mask(%{{.+}} : tensor<1024xi1>)
// CHECK-NOT: tile.store
// CHECK: %[[K0:.+]] = tile.local_load %[[KEYS]] : {{.+}} -> tensor<512xi32>
// CHECK: %[[C0:.+]] = tile.local_load %[[COLS]] : {{.+}} -> tensor<512xi32>
// CHECK: scf.yield %[[K0]], %[[C0]] : tensor<512xi32>, tensor<512xi32>
// CHECK: %[[C32:.+]] = arith.constant 32 : i32
// CHECK: %[[SORT:.+]]:2 = scf.for %[[BIT:.+]] = %{{.+}} to %[[C32]] step %{{.+}} iter_args(%[[KEY:.+]] = %[[PAIRS]]#0, %[[COL:.+]] = %[[PAIRS]]#1) -> (tensor<512xi32>, tensor<512xi32>) : i32 {
// CHECK: arith.shrui %[[KEY]], %{{.+}} : tensor<512xi32>
// CHECK: %[[SET:.+]] = arith.cmpi ne, %{{.+}}, %{{.+}} : tensor<512xi32>
// CHECK: %[[POS:.+]], %[[ONES:.+]] = tile.prefix_count %[[SET]] : tensor<512xi1> -> tensor<512xi32>
// CHECK: %[[AT:.+]] = arith.select %[[SET]], %[[POS]], %{{.+}} : tensor<512xi1>, tensor<512xi32>
// CHECK: scf.if %{{.+}} -> (tensor<512xi32>, tensor<512xi32>) {
// CHECK: tile.atomic_rmw xchg, %[[KEYS]][%[[AT]]], %[[KEY]] {scope = #tile<scope workgroup>} : !tile.memdesc<512xi32, {{.+}}>, tensor<512xi32>, tensor<512xi32>
// CHECK-NEXT: tile.atomic_rmw xchg, %[[COLS]][%[[AT]]], %[[COL]]
// CHECK: tile.local_load %[[KEYS]]
// CHECK: tile.local_load %[[COLS]]
// CHECK: } else {
// CHECK: scf.yield %[[KEY]], %[[COL]] : tensor<512xi32>, tensor<512xi32>
// CHECK: tile.store %[[SORT]]#1, %{{.+}}[%{{.+}}] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi64>
// CHECK-NEXT: tile.return
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable, sorted}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
