// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks tile.prefix_count on Hopper: per register a warp ballot
// (vote.sync over all 32 lanes), the population count of its bits below
// the lane, no shuffles; then the warps' totals through one shared-memory
// exchange, combined by a 2-step shfl.up scan over the first 4 lanes.

// CHECK-NOT: gpu.shuffle
// CHECK: %[[B:.*]] = nvvm.vote.sync  ballot %{{.*}}, %{{.*}} -> i32
// CHECK: %[[B64:.*]] = arith.extui %[[B]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.andi %[[B64]], %{{.*}} : i64
// CHECK: math.ctpop %[[BELOW]] : i64
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  up %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK-NOT: gpu.shuffle  up
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %z = arith.constant dense<0> : tensor<512xi32>
  %m = arith.cmpi ne, %v, %z : tensor<512xi32>
  %p, %n = tile.prefix_count %m : tensor<512xi1> -> tensor<512xi32>
  tile.store %p, %x[%r] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
  tile.return
}
