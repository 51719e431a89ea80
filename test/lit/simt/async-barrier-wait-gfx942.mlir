// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -canonicalize | FileCheck %s
// Checks the barrier forms of the async ops on AMD, whose copies complete
// in each lane: no mbarrier is initialised or arrived on, the commit emits
// nothing and the wait is a workgroup barrier (which makes every lane's
// copied data visible); the ring still gets its 3 x 8 bytes of LDS.

// CHECK: workgroup(%{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>
// CHECK-NOT: nvvm
// CHECK-NOT: scf.if
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: nvvm
// CHECK: gpu.barrier
// CHECK-NOT: nvvm
// CHECK: memref.store
#b = #tile.blocked<{sizePerThread = [1], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %i: i32)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1, values = [1]>]} {
  %bar = tile.async_barrier_alloc : !tile.async_barrier<3>
  %r = tile.range 0 to 64 : tensor<64xi32, #b>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<64xi32, #b> -> tensor<64xf32, #b>
  %g = tile.async_commit_group barrier(%bar[%i] : !tile.async_barrier<3>)
  %w = tile.async_wait %g barrier(%bar[%i] : !tile.async_barrier<3>)
  tile.store %v, %x[%r] : tensor<64xf32, #b>, !tile.ptr<f32>, tensor<64xi32, #b>
  tile.return
}
