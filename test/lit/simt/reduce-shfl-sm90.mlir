// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks a full-warp (32-lane) sum on Hopper: butterfly shuffles with xor
// masks 1, 2, 4, 8, 16.

// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK-NOT: gpu.shuffle
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %s = tile.reduce add %v, 0 : tensor<128xi32> -> i32
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
