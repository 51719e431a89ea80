// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -canonicalize | FileCheck %s
// Checks where the shared-memory lowering puts workgroup barriers on AMD:
// before an async copy (whose loads and LDS stores follow directly, with
// nothing for the commit), after the wait, none for local_load, and around
// the stores of local_store; and that a stage of a 2-stage buffer of
// 32x64xf32 (8192 bytes each) is the byte offset stage * 8192.

// CHECK-LABEL: gpu.func @k
// CHECK: %[[STAGE:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[OFF:.*]] = arith.muli %[[STAGE]], %c8192 : index
// CHECK: gpu.barrier
// CHECK-NEXT: memref.view %{{.*}}[%[[OFF]]][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<?xf32, #gpu.address_space<global>>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#shared = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %s: i32)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1, values = [1]>]} {
  %r = tile.range 0 to 32 : tensor<32xi32, #tile.slice<{dim = 1, parent = #blocked}>>
  %c64 = arith.constant dense<64> : tensor<32xi32, #tile.slice<{dim = 1, parent = #blocked}>>
  %ro = arith.muli %r, %c64 : tensor<32xi32, #tile.slice<{dim = 1, parent = #blocked}>>
  %r1 = tile.expand_dims %ro, 1 : tensor<32xi32, #tile.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
  %r2 = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
  %c = tile.range 0 to 64 : tensor<64xi32, #tile.slice<{dim = 0, parent = #blocked}>>
  %c1 = tile.expand_dims %c, 0 : tensor<64xi32, #tile.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
  %c2 = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
  %o = arith.addi %r2, %c2 : tensor<32x64xi32, #blocked>
  %buf = tile.local_alloc : !tile.memdesc<2x32x64xf32, #shared>
  %st = tile.memdesc_index %buf[%s] : !tile.memdesc<2x32x64xf32, #shared> -> !tile.memdesc<32x64xf32, #shared>
  %t = tile.async_copy_global_to_local %x[%o], %st : !tile.ptr<f32>, tensor<32x64xi32, #blocked> -> !tile.memdesc<32x64xf32, #shared>
  %g = tile.async_commit_group %t
  %w = tile.async_wait %g {num = 0 : i32}
  %v = tile.local_load %st : !tile.memdesc<32x64xf32, #shared> -> tensor<32x64xf32, #blocked>
  tile.store %v, %y[%o] : tensor<32x64xf32, #blocked>, !tile.ptr<f32>, tensor<32x64xi32, #blocked>
  tile.local_store %v, %st : tensor<32x64xf32, #blocked> -> !tile.memdesc<32x64xf32, #shared>
  tile.return
}
