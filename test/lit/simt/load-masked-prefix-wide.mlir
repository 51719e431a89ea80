// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a load masked by `i < n` on contiguous i keeps its full
// width where the target has no bounds-checked buffers (sm_90): each lane's
// 4 elements are one access, loaded whole when the last of them is below n
// (then all are), and element by element, each under its own test, only
// where it is not.

// CHECK: %[[LAST:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK: scf.if %[[LAST]] -> (vector<4xf32>) {
// CHECK:   vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: memref.load %arg0
// CHECK: }
// CHECK-NOT: memref.load %arg0
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<128xi32>
  %v = tile.load %x[%r] mask(%m : tensor<128xi1>) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.store %v, %y[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
