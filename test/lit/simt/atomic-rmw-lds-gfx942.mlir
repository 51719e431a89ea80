// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that tile.atomic_rmw on a shared-memory tile becomes atomics on
// the tile's LDS words (a workgroup memref view at the tile's offset), not
// on global memory, with a workgroup barrier before and after them.

// CHECK: vector.store %{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>, vector<1xi32>
// CHECK: gpu.barrier
// CHECK: %[[BINS:.*]] = memref.view %{{.*}} to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref<?xi32, #gpu.address_space<global>>
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[BINS]][%{{.*}}] : (i32, memref<64xi32, #gpu.address_space<workgroup>>) -> i32
// CHECK-NEXT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>, vector<1xi32>
#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @lds_hist(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<256xi32> -> tensor<256xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %bins = tile.local_alloc (%z : tensor<64xi32>) : !tile.memdesc<64xi32, #s1>
  %c63 = arith.constant dense<63> : tensor<256xi32>
  %b = arith.andi %v, %c63 : tensor<256xi32>
  %one = arith.constant dense<1> : tensor<256xi32>
  %old = tile.atomic_rmw add, %bins[%b], %one : !tile.memdesc<64xi32, #s1>, tensor<256xi32>, tensor<256xi32>
  %h = tile.local_load %bins : !tile.memdesc<64xi32, #s1> -> tensor<64xi32>
  %o = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %y[%o] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.store %old, %x[%r] : tensor<256xi32>, !tile.ptr<i32>, tensor<256xi32>
  tile.return
}
