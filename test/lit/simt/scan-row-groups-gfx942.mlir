// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks a scan along rows of 16 lanes on CDNA3: row_shr by 1, 2, 4, 8,
// each combined only where the lane's position in its row is at least the
// shift, with no barrier (one wave holds the whole axis).

// CHECK: amdgpu.dpp %{{.*}} %{{.*}} row_shr(1 : i32) : f32
// CHECK: arith.cmpi uge, %{{.*}}, %c1_i32 : i32
// CHECK: arith.select
// CHECK: amdgpu.dpp %{{.*}} %{{.*}} row_shr(2 : i32) : f32
// CHECK: amdgpu.dpp %{{.*}} %{{.*}} row_shr(4 : i32) : f32
// CHECK: amdgpu.dpp %{{.*}} %{{.*}} row_shr(8 : i32) : f32
// CHECK-NOT: row_bcast
// CHECK-NOT: gpu.barrier
tile.kernel @k(%x: !tile.ptr<f32>) {
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  %s = tile.scan add %v, 1 : tensor<4x128xf32>
  tile.store %s, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
