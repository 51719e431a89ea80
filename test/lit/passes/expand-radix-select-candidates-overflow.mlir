// RUN: tessel-opt %s -tile-expand-radix-select=candidates=1024 | FileCheck %s
// Checks the overflow rule of the candidate buffer (1024 pairs): a digit
// copies its threshold bin to the buffer only when the bin holds at most
// 1024 elements, the buffer is not filled yet and the digit is not final
// (early exit or last digit); only then does the carried count become the
// bin's size (it stays -1 otherwise), so a bin that overflows leaves the
// next digit reading the row; and the row's scatters (one piece, guarded
// by whether the chunk has bin elements) happen only on that decision.

// CHECK-LABEL: tile.kernel @k(
// CHECK: scf.for {{.+}} iter_args({{.+}}, %[[COUNT:.+]] = %{{.+}}) -> (i32, i32, i32, i32, i1, i32)
// CHECK: %[[ABOVE:.+]] = tile.reduce add %{{.+}}, 0 : tensor<2048xi32> -> i32
// CHECK: %[[IN_BIN:.+]] = tile.reduce add %{{.+}}, 0 : tensor<2048xi32> -> i32
// CHECK: %[[TAKE:.+]] = arith.subi %{{.+}}, %[[ABOVE]] : i32
// CHECK: %[[EXACT:.+]] = arith.cmpi eq, %[[IN_BIN]], %[[TAKE]] : i32
// CHECK: %[[FINAL:.+]] = arith.ori %{{.+}}, %[[EXACT]] : i1
// CHECK: %[[FITS:.+]] = arith.cmpi sle, %[[IN_BIN]], %c1024{{.*}} : i32
// CHECK: %[[NOT_YET:.+]] = arith.cmpi slt, %[[COUNT]], %c0{{.*}} : i32
// CHECK: %[[GOING:.+]] = arith.xori %[[FINAL]], %true
// CHECK: %[[BOTH:.+]] = arith.andi %[[NOT_YET]], %[[GOING]] : i1
// CHECK: %[[FILL:.+]] = arith.andi %[[FITS]], %[[BOTH]] : i1
// CHECK: %[[COUNT1:.+]] = arith.select %[[FILL]], %[[IN_BIN]], %[[COUNT]] : i32
// CHECK: %[[BUF:.+]] = arith.cmpi sge, %[[COUNT]], %c0{{.*}} : i32
// CHECK: scf.if %[[BUF]] -> (i32) {
// CHECK: } else {
// CHECK: %{{.+}}, %[[EQS:.+]] = tile.prefix_count
// CHECK: %[[APPEND:.+]] = arith.select %[[FILL]], %[[EQS]], %c0{{.*}} : i32
// CHECK: %[[ANY:.+]] = arith.cmpi sgt, %[[APPEND]], %c0{{.*}} : i32
// CHECK: scf.if %[[ANY]] {
// CHECK: tile.atomic_rmw xchg
// CHECK: scf.yield %{{.+}}, %[[TAKE]], %{{.+}}, %{{.+}}, %[[FINAL]], %[[COUNT1]] : i32, i32, i32, i32, i1, i32
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
