// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -canonicalize | FileCheck %s
// Checks that async copies issued one after the other share the barrier
// before the first (nothing between them reads shared memory), while a
// copy after a local_load of the buffer gets its own barrier: the copies
// of %p into both buffers need one barrier, the wait one, and the copy
// after the reads one more, 3 in all.

// CHECK-LABEL: gpu.func @k
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#s = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tile.kernel @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %q: !tile.ptr<f32> {tile.divisibility = 16 : i64}) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %rb = tile.broadcast %r1 : tensor<32x1xi32> -> tensor<32x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x32xi32>
  %ro = arith.muli %rb, %c32 : tensor<32x32xi32>
  %c1 = tile.expand_dims %r, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %c1 : tensor<1x32xi32> -> tensor<32x32xi32>
  %o = arith.addi %ro, %cb : tensor<32x32xi32>
  %a = tile.local_alloc : !tile.memdesc<32x32xf32, #s>
  %b = tile.local_alloc : !tile.memdesc<32x32xf32, #s>
  %ta = tile.async_copy_global_to_local %p[%o], %a : !tile.ptr<f32>, tensor<32x32xi32> -> !tile.memdesc<32x32xf32, #s>
  %tb = tile.async_copy_global_to_local %p[%o], %b : !tile.ptr<f32>, tensor<32x32xi32> -> !tile.memdesc<32x32xf32, #s>
  %g = tile.async_commit_group %ta, %tb
  %w = tile.async_wait %g {num = 0 : i32}
  %va = tile.local_load %a : !tile.memdesc<32x32xf32, #s> -> tensor<32x32xf32>
  %tc = tile.async_copy_global_to_local %q[%o], %a : !tile.ptr<f32>, tensor<32x32xi32> -> !tile.memdesc<32x32xf32, #s>
  %g2 = tile.async_commit_group %tc
  tile.store %va, %q[%o] : tensor<32x32xf32>, !tile.ptr<f32>, tensor<32x32xi32>
  tile.return
}
