// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a row reduction over 16 lanes on CDNA3 folds the lane's 8
// elements in registers, then uses only DPP: two quad permutations, then the
// half-row and row mirrors (valid once the lower lane bits are reduced).

// CHECK-COUNT-7: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: amdgpu.dpp %[[A:.*]] %[[A]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : f32
// CHECK: amdgpu.dpp %[[B:.*]] %[[B]] quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) : f32
// CHECK: amdgpu.dpp %[[C:.*]] %[[C]] row_half_mirror : f32
// CHECK: amdgpu.dpp %[[D:.*]] %[[D]] row_mirror : f32
// CHECK-NOT: amdgpu.dpp
// CHECK-NOT: gpu.barrier
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  %m = tile.reduce max %v, 1 : tensor<4x128xf32> -> tensor<4xf32>
  %r = tile.range 0 to 4 : tensor<4xi32>
  tile.store %m, %y[%r] : tensor<4xf32>, !tile.ptr<f32>, tensor<4xi32>
  tile.return
}
