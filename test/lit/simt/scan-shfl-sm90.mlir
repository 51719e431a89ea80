// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks the warp scan on Hopper: shfl.up by 1, 2, 4, 8, 16, each combined
// where the lane is far enough into the warp.

// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c16_i32, %c32_i32 : i32
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %s = tile.scan add %v, 0 {exclusive} : tensor<128xi32>
  tile.store %s, %x[%r] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
