// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a layout conversion whose source register depends on the lane
// goes through the kernel's LDS buffer: a view of it, barrier, every lane
// stores its 2 consecutive elements with one 8-byte store, barrier, every
// lane loads its 2 elements of the new layout (64 apart, one each).

// CHECK: workgroup(%[[LDS:.*]] : memref<512xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[V:.*]] = memref.view %[[LDS]][%{{.*}}][] : memref<512xi8, {{.*}}> to memref<128xf32,
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[V]][%{{.*}}] {alignment = 8 : i64} {{.*}} vector<2xf32>
// CHECK: gpu.barrier
// CHECK-COUNT-2: vector.load %[[V]][%{{.*}}] {alignment = 4 : i64} {{.*}} vector<1xf32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg0
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %b = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %a = tile.convert_layout %b : tensor<128xf32> -> tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
  tile.store %a, %x[%r] : tensor<128xf32, #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
