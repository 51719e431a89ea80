// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts | FileCheck %s
// Checks that a conversion between layouts that put the same elements in
// the same lanes and waves, only in another register order (2x2 per lane,
// rows fastest vs columns fastest), is one register permutation: no LDS,
// no barrier, no cross-lane op.

// CHECK-NOT: workgroup(
// CHECK-NOT: gpu.barrier
// CHECK-NOT: ds_bpermute
// CHECK: vector.shuffle %[[IN:.*]], %[[IN]] [0, 2, 1, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: ds_bpermute
tile.kernel @k(%x: !tile.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<2x128xf32, #tile.blocked<{sizePerThread = [2, 2], threadsPerWave = [1, 64], wavesPerCTA = [1, 1], order = [1, 0]}>>
  %a = tile.convert_layout %c : tensor<2x128xf32, #tile.blocked<{sizePerThread = [2, 2], threadsPerWave = [1, 64], wavesPerCTA = [1, 1], order = [1, 0]}>> -> tensor<2x128xf32, #tile.blocked<{sizePerThread = [2, 2], threadsPerWave = [1, 64], wavesPerCTA = [1, 1], order = [0, 1]}>>
  tile.return
}
