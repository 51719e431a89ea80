// RUN: tessel-opt %s -tile-expand-radix-select=target=gfx942 | FileCheck %s
// Checks the LDS candidate buffer of tile.topk on gfx942: two zeroed tiles
// of 4096 i32 (keys, columns) allocated for long rows only, a carried count
// of the pairs it holds (-1: not filled, the candidates are the row's); per digit,
// the histogram and the write pass read the buffer's pieces (loop over the
// ceiling of count / 4096, no global load) when it does and the row
// otherwise; and the row's write pass scatters the threshold bin's keys
// and columns to the buffer at their bin ranks (LDS atomic exchanges)
// before it places the selection.

// CHECK-LABEL: tile.kernel @k(
// CHECK: %[[SHORT:.+]] = arith.cmpi sle
// CHECK: scf.if %[[SHORT]] {
// CHECK-NOT: tile.local_alloc
// CHECK: } else {
// CHECK: %[[Z:.+]] = arith.constant dense<0> : tensor<4096xi32>
// CHECK: %[[KEYS:.+]] = tile.local_alloc : !tile.memdesc<1x4096xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
// CHECK: %[[K0:.+]] = tile.memdesc_index %[[KEYS]][%{{.+}}]
// CHECK: tile.local_store %[[Z]], %[[K0]] : tensor<4096xi32>
// CHECK: %[[COLS:.+]] = tile.local_alloc : !tile.memdesc<1x4096xi32,
// CHECK: %[[C0:.+]] = tile.memdesc_index %[[COLS]][%{{.+}}]
// CHECK: tile.local_store %[[Z]], %[[C0]] : tensor<4096xi32>
// CHECK: %[[NONE:.+]] = arith.constant -1 : i32
// CHECK: scf.for {{.+}} iter_args({{.+}}, %[[COUNT:.+]] = %[[NONE]]) -> (i32, i32, i32, i32, i1, i32)
//
// The histogram: from the buffer once it holds pairs (count >= 0) ...
// CHECK: %[[BUF:.+]] = arith.cmpi sge, %[[COUNT]], %c0{{.*}} : i32
// CHECK: scf.if %[[BUF]] -> (tensor<2048xi32>) {
// CHECK: %[[UP:.+]] = arith.addi %[[COUNT]], %c4095
// CHECK: %[[PIECES:.+]] = arith.divui %[[UP]], %c4096
// CHECK: scf.for %[[P:.+]] = %{{.+}} to %[[PIECES]] step %{{.+}} : i32 {
// CHECK-NOT: tile.load
// CHECK: tile.memdesc_index %[[KEYS]][%[[P]]]
// CHECK: tile.local_load
// CHECK: tile.memdesc_index %[[COLS]][%[[P]]]
// CHECK: tile.local_load
// CHECK-NOT: tile.load
// CHECK: tile.histogram_add
// CHECK: tile.barrier
// CHECK: tile.local_load %{{.+}} -> tensor<2048xi32>
// ... or from the row.
// CHECK: } else {
// CHECK: scf.for
// CHECK: tile.load %{{.+}} mask(%{{.+}} : tensor<4096xi1>) : !tile.ptr<f32>, tensor<4096xi64> -> tensor<4096xf32>
// CHECK: tile.histogram_add
// CHECK: tile.barrier
// CHECK: tile.local_load %{{.+}} -> tensor<2048xi32>
//
// The write pass: from the buffer ...
// CHECK: %[[BUF2:.+]] = arith.cmpi sge, %[[COUNT]], %c0{{.*}} : i32
// CHECK: scf.if %[[BUF2]] -> (i32) {
// CHECK: arith.addi %[[COUNT]], %c4095
// CHECK: scf.for
// CHECK-NOT: tile.load
// CHECK: tile.memdesc_index %[[KEYS]]
// CHECK: tile.local_load
// CHECK-NOT: tile.load
// CHECK: tile.store
// CHECK-NOT: tile.atomic_rmw
// ... or from the row, copying the bin to the buffer.
// CHECK: } else {
// CHECK: tile.load
// CHECK: %[[RANK:.+]], %{{.+}} = tile.prefix_count %{{.+}} : tensor<4096xi1> -> tensor<4096xi32>
// CHECK: scf.if
// CHECK: tile.memdesc_index %[[KEYS]]
// CHECK: tile.atomic_rmw xchg, %{{.+}}[%{{.+}}], %{{.+}} mask(%{{.+}} : tensor<4096xi1>) {scope = #tile<scope workgroup>}
// CHECK: tile.memdesc_index %[[COLS]]
// CHECK: tile.atomic_rmw xchg
// CHECK: }
// CHECK: tile.prefix_count
// CHECK: tile.store
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 2048 : i32, chunk = 4096 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
