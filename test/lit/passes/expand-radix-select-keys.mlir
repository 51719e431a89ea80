// RUN: tessel-opt %s -tile-expand-radix-select=candidates=0 | FileCheck %s
// Checks the order-preserving keys: NaNs lose their sign (magnitude above
// 0x7f800000 selects the magnitude), -0.0 (0x80000000) becomes 0, and
// negative bit patterns are inverted while the others get the top bit.

// CHECK: %[[U:.+]] = arith.bitcast %{{.+}} : tensor<256xf32> to tensor<256xi32>
// CHECK: arith.constant 2147483647 : i32
// CHECK: %[[MAG:.+]] = tile.splat
// CHECK: %[[M:.+]] = arith.andi %[[U]], %[[MAG]] : tensor<256xi32>
// CHECK: arith.constant 2139095040 : i32
// CHECK: %[[INF:.+]] = tile.splat
// CHECK: %[[NAN:.+]] = arith.cmpi ugt, %[[M]], %[[INF]] : tensor<256xi32>
// CHECK: %[[U1:.+]] = arith.select %[[NAN]], %[[M]], %[[U]]
// CHECK: arith.constant -2147483648 : i32
// CHECK: %[[TOP:.+]] = tile.splat
// CHECK: %[[NZ:.+]] = arith.cmpi eq, %[[U1]], %[[TOP]] : tensor<256xi32>
// CHECK: %[[U2:.+]] = arith.select %[[NZ]], %{{.+}}, %[[U1]]
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[U2]], %{{.+}} : tensor<256xi32>
// CHECK: arith.constant -1 : i32
// CHECK: %[[ONES:.+]] = tile.splat
// CHECK: %[[FLIP:.+]] = arith.xori %[[U2]], %[[ONES]] : tensor<256xi32>
// CHECK: %[[LIFT:.+]] = arith.ori %[[U2]], %{{.+}} : tensor<256xi32>
// CHECK: arith.select %[[NEG]], %[[FLIP]], %[[LIFT]]
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 256 : i32}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
