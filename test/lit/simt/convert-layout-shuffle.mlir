// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -cse | FileCheck %s
// Checks that a conversion that moves elements only between lanes of one
// wave, each lane taking one element from one register of another lane
// (an 8x8 tile with the lane arrangement transposed), is a single
// ds_bpermute from lane ((lane & 7) << 3 | lane >> 3): no LDS buffer, no
// barrier.

// CHECK-NOT: workgroup(
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[TI:.*]] = arith.index_cast %[[T]]
// CHECK: %[[L:.*]] = arith.andi %[[TI]], %c63_i32
// CHECK-NOT: gpu.barrier
// CHECK: %[[LO:.*]] = arith.andi %[[L]], %c7_i32
// CHECK: %[[LOS:.*]] = arith.shli %[[LO]], %c3_i32
// CHECK: %[[HI:.*]] = arith.shrui %[[L]], %c3_i32
// CHECK: %[[HIM:.*]] = arith.andi %[[HI]], %c7_i32
// CHECK: %[[SRC:.*]] = arith.xori %[[LOS]], %[[HIM]]
// CHECK: %[[ADDR:.*]] = arith.shli %[[SRC]], %c2_i32
// CHECK: rocdl.ds_bpermute %[[ADDR]]
// CHECK-NOT: rocdl.ds_bpermute
// CHECK-NOT: gpu.barrier
tile.kernel @k(%x: !tile.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<8x8xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], order = [1, 0]}>>
  %a = tile.convert_layout %c : tensor<8x8xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], order = [1, 0]}>> -> tensor<8x8xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [8, 8], wavesPerCTA = [1, 1], order = [0, 1]}>>
  tile.return
}
