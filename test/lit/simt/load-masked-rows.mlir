// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a mask that is constant along each row guards whole 16-byte
// vector accesses (two per lane for 8 f32 elements), one branch each.

// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK-NOT: memref.load
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %rows = tile.range 0 to 4 : tensor<4xi32>
  %nv = tile.splat %n : i32 -> tensor<4xi32>
  %ok = arith.cmpi slt, %rows, %nv : tensor<4xi32>
  %ok1 = tile.expand_dims %ok, 1 : tensor<4xi1> -> tensor<4x1xi1>
  %ok2 = tile.broadcast %ok1 : tensor<4x1xi1> -> tensor<4x128xi1>
  %c128 = arith.constant dense<128> : tensor<4xi32>
  %ro = arith.muli %rows, %c128 : tensor<4xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<4xi32> -> tensor<4x1xi32>
  %r2 = tile.broadcast %r1 : tensor<4x1xi32> -> tensor<4x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %o = arith.addi %r2, %c2 : tensor<4x128xi32>
  %v = tile.load %x[%o] mask(%ok2 : tensor<4x128xi1>) : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
