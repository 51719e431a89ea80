// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a layout conversion goes through an LDS buffer of the whole
// tile: barrier, every lane stores its elements at their row-major index,
// barrier, every lane loads the elements of the new layout.

// CHECK: workgroup(%[[LDS:.*]] : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK-COUNT-2: memref.store %{{.*}}, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
// CHECK: memref.load %[[LDS]]
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg0
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %b = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %a = tile.convert_layout %b : tensor<128xf32> -> tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
  tile.store %a, %x[%r] : tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
