// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a masked load reads only where the mask holds and yields
// 'other' elsewhere. The mask may change between a lane's two neighbouring
// elements (r >= n holds for a suffix of each access, so the last element
// says nothing of the others), so each element is guarded on its own, by
// its own comparison; int64 offsets become memref indices directly.

// CHECK: %[[OTHER:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[I0:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[M0:.*]] = arith.cmpi sge, %{{.*}}, %arg1 : i64
// CHECK: %[[V0:.*]] = scf.if %[[M0]] -> (f32) {
// CHECK:   memref.load %arg0[%[[I0]]] {alignment = 4 : i64} : memref<?xf32, #gpu.address_space<global>>
// CHECK: } else {
// CHECK:   scf.yield %[[OTHER]]
// CHECK: %[[M1:.*]] = arith.cmpi sge, %{{.*}}, %arg1 : i64
// CHECK: %[[V1:.*]] = scf.if %[[M1]] -> (f32) {
// The elements are assembled once (no insert_strided_slice chain), so the
// store's extracts fold to the loaded scalars.
// CHECK-NOT: vector.insert_strided_slice
// CHECK: memref.store %[[V0]], %arg0
// CHECK: memref.store %[[V1]], %arg0
tile.kernel @k(%x: !tile.ptr<f32>, %n: i64) {
  %r = tile.range 0 to 128 : tensor<128xi64>
  %nv = tile.splat %n : i64 -> tensor<128xi64>
  %m = arith.cmpi sge, %r, %nv : tensor<128xi64>
  %o = arith.constant dense<-1.0> : tensor<128xf32>
  %v = tile.load %x[%r] mask(%m : tensor<128xi1>) other(%o : tensor<128xf32>) : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  tile.store %v, %x[%r] mask(%m : tensor<128xi1>) : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  tile.return
}
