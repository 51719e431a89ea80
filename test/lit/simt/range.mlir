// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that tile.range gives each lane its own coordinates: lane base
// (lane id * 2 elements per lane, i.e. the lane id shifted into coordinate
// bits 1-6) plus the register offsets [0, 1].

// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[T32:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK: %[[LANE:.*]] = arith.andi %[[T32]], %c63_i32
// CHECK: %[[BASE:.*]] = arith.shli %[[LANE]], %c1_i32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<2xi32>
// CHECK: arith.addi %[[SPLAT]], %{{.*}} : vector<2xi32>
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  tile.store %r, %x[%r] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
