// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks tile.histogram_add on gfx942: between the zeroing store's two
// barriers and the tile.barrier, only the per-bin ballot loops and their
// LDS atomics into the bins' words, with no barrier, no zeroing and no
// read of the bins; the tile.barrier is one gpu.barrier before the read.

// The zeroing of the 64 bins (at LDS offset 0), between two barriers.
// CHECK: memref.view %{{.*}}[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// The adds: the same words, no barrier, nothing else touches LDS.
// CHECK-NOT: gpu.barrier
// CHECK: %[[ADDS:.*]] = memref.view %{{.*}}[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: scf.while
// CHECK: rocdl.readfirstlane
// CHECK-NOT: gpu.barrier
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[ADDS]][
// CHECK-NOT: gpu.barrier
// CHECK-NOT: {{(vector|memref)\.(load|store)}} %view
// The tile.barrier, then the read.
// CHECK: gpu.barrier
// CHECK-NEXT: memref.view %{{.*}}[%c0][]
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %z = arith.constant dense<0> : tensor<64xi32>
  %bins = tile.local_alloc(%z : tensor<64xi32>) : !tile.memdesc<64xi32, #s1>
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  tile.histogram_add %v into %bins : tensor<128xi32>, !tile.memdesc<64xi32, #s1>
  tile.barrier
  %h = tile.local_load %bins : !tile.memdesc<64xi32, #s1> -> tensor<64xi32>
  %b = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %x[%b] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
