// RUN: tessel-opt %s -tile-expand-radix-select=candidates=1024 | FileCheck %s
// Checks the overflow rule of the candidate buffer (1024 pairs): a digit
// copies its threshold bin to the buffer only when the bin holds at most
// 1024 elements, the buffer is not filled yet and the digit is not final
// (early exit or last digit); the next state is "buffered" only then, with
// the bin's size as the count, so a bin that overflows leaves the next
// digit reading the row; and the row's scatters are masked by that
// decision.

// CHECK-LABEL: tile.kernel @k(
// CHECK: scf.for {{.+}} iter_args({{.+}}, %[[BUF:.+]] = %false{{.*}}, %[[COUNT:.+]] = %{{.+}}) -> (i32, i32, i32, i32, i1, i1, i32)
// CHECK: %[[ABOVE:.+]] = tile.reduce add %{{.+}}, 0 : tensor<2048xi32> -> i32
// CHECK: %[[IN_BIN:.+]] = tile.reduce add %{{.+}}, 0 : tensor<2048xi32> -> i32
// CHECK: %[[TAKE:.+]] = arith.subi %{{.+}}, %[[ABOVE]] : i32
// CHECK: %[[EXACT:.+]] = arith.cmpi eq, %[[IN_BIN]], %[[TAKE]] : i32
// CHECK: %[[FINAL:.+]] = arith.ori %{{.+}}, %[[EXACT]] : i1
// CHECK: %[[FITS:.+]] = arith.cmpi sle, %[[IN_BIN]], %c1024{{.*}} : i32
// CHECK: %[[NOT_YET:.+]] = arith.xori %[[BUF]], %true
// CHECK: %[[GOING:.+]] = arith.xori %[[FINAL]], %true
// CHECK: %[[BOTH:.+]] = arith.andi %[[NOT_YET]], %[[GOING]] : i1
// CHECK: %[[FILL:.+]] = arith.andi %[[FITS]], %[[BOTH]] : i1
// CHECK: %[[BUF1:.+]] = arith.ori %[[BUF]], %[[FILL]] : i1
// CHECK: %[[COUNT1:.+]] = arith.select %[[FILL]], %[[IN_BIN]], %[[COUNT]] : i32
// CHECK: scf.if %[[BUF]] -> (i32) {
// CHECK: } else {
// CHECK: %{{.+}}, %[[EQS:.+]] = tile.prefix_count
// CHECK: %[[APPEND:.+]] = arith.select %[[FILL]], %[[EQS]], %c0{{.*}} : i32
// CHECK: %[[ANY:.+]] = arith.cmpi sgt, %[[APPEND]], %c0{{.*}} : i32
// CHECK: %[[REACH:.+]] = arith.andi %[[ANY]], %{{.+}} : i1
// CHECK: scf.if %[[REACH]] {
// CHECK: tile.atomic_rmw xchg
// CHECK: scf.yield %{{.+}}, %[[TAKE]], %{{.+}}, %{{.+}}, %[[FINAL]], %[[BUF1]], %[[COUNT1]] : i32, i32, i32, i32, i1, i1, i32
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
