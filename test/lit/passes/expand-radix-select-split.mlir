// RUN: tessel-opt %s -tile-expand-radix-select=target=gfx942 | FileCheck %s
// Checks the split form of tile.topk (several programs per row): every
// program reaches three grid barriers on the workspace's first words
// outside any per-row condition; before the first, a long row's slice
// histogram is added to the row's global histogram (row region at word
// 64 + row * 10752) with device-scope atomics on its non-empty bins;
// between the first and the second, the threshold comes from a load of
// that histogram and the part's two counts are stored at word 2048 +
// 2 * part of the region; after the third, only part 0 refines and zeroes
// the row's histogram for the next launch.

// CHECK-LABEL: tile.kernel @k(
// CHECK-SAME: %{{[a-z0-9]+}}: !tile.ptr<i32>, %[[WS:[a-z0-9]+]]: !tile.ptr<i32>, %{{[a-z0-9]+}}: i32, %[[PARTS:[a-z0-9]+]]: i32)
// CHECK-DAG: %[[ROW:.+]] = tile.program_id 1
// CHECK-DAG: %[[PART:.+]] = tile.program_id 0
// CHECK-NOT: tile.topk
// CHECK: %[[R64:.+]] = arith.extui %[[ROW]] : i32 to i64
// CHECK: %[[RW:.+]] = arith.muli %[[R64]], %c10752_i64
// CHECK: %[[RH:.+]] = arith.addi %[[RW]], %c64_i64
// CHECK: %[[REGION:.+]] = arith.addi %{{.+}}, %[[RH]] : i64
// CHECK: %[[LONG:.+]] = arith.xori %{{.+}}, %true : i1
// The slice: ceil(n / parts) rounded up to the chunk, from part * that.
// CHECK: arith.divui %{{.+}}, %[[PARTS]] : i32
// CHECK: scf.if %[[LONG]] -> (tensor<2048xi32>) {
// CHECK: tile.histogram_add
// CHECK: %[[H:.+]] = tile.local_load
// CHECK: %[[USED:.+]] = arith.cmpi ne, %[[H]]
// CHECK: tile.atomic_rmw {{ *}}add, %[[WS]][%{{.+}}], %[[H]] mask(%[[USED]] : tensor<2048xi1>) : !tile.ptr<i32>
// CHECK: scf.yield %[[H]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.grid_barrier %[[WS]][%c0_i64]
// CHECK: scf.if %[[LONG]] -> (i32, i32, i32) {
// CHECK: tile.load %[[WS]][%{{.+}}] : !tile.ptr<i32>, tensor<2048xi64> -> tensor<2048xi32>
// CHECK: tile.scan {{ *}}add %{{.+}} {reverse}
// CHECK: %[[TWICE:.+]] = arith.muli %[[PART]], %c2_i32
// CHECK: %[[SLOT:.+]] = arith.extsi %[[TWICE]] : i32 to i64
// CHECK: %[[COUNTS:.+]] = arith.addi %[[REGION]], %c2048_i64
// CHECK: %[[AT:.+]] = arith.addi %[[COUNTS]], %[[SLOT]]
// CHECK: tile.store %{{.+}}, %[[WS]][%[[AT]]] : i32
// CHECK: tile.store %{{.+}}, %[[WS]][%{{.+}}] : i32
// CHECK: scf.yield %{{.+}} : i32, i32, i32
// CHECK: scf.yield %{{.+}} : i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: tile.grid_barrier %[[WS]][%c0_i64]
// CHECK: scf.if %[[LONG]] {
// CHECK: scf.for
// CHECK: tile.store %{{.+}}, %[[WS]]
// CHECK: tile.store %{{.+}}, %[[WS]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: tile.grid_barrier %[[WS]][%c0_i64]
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[PART]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NOT: tile.grid_barrier
// CHECK: tile.store %{{.+}}, %[[WS]][%{{.+}}] : tensor<2048xi32>, !tile.ptr<i32>, tensor<2048xi64>
// CHECK-NOT: tile.grid_barrier

tile.kernel @k(%x: !tile.ptr<f32>, %out: !tile.ptr<i32>, %ws: !tile.ptr<i32>, %n: i32, %parts: i32) {
  %c0 = arith.constant 0 : i64
  %r = tile.program_id 1 : i32
  %p = tile.program_id 0 : i32
  tile.topk %x[%c0], %n -> %out[%c0] split(%ws[%c0], %r, %p, %parts) {k = 2048 : i32, chunk = 4096 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<i32>
  tile.return
}
