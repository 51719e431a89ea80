// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that the bounds mask `i < n` of a contiguous index with n promised
// divisible by 16 is constant over each lane's 4 elements, so the masked
// load stays 16-byte accesses, each under one branch. (sm_90 keeps
// predicated loads; gfx942 reads such a mask through bounds-checked buffer
// loads, see load-masked-bound-buffer.mlir.)

// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK-NOT: memref.load
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %nv = tile.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<256xi32>
  %v = tile.load %x[%r] mask(%m : tensor<256xi1>) : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  tile.store %v, %x[%r] mask(%m : tensor<256xi1>) : tensor<256xf32>, !tile.ptr<f32>, tensor<256xi32>
  tile.return
}
