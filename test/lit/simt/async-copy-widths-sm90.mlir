// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -canonicalize | FileCheck %s
// Checks the widths of tile.async_copy_global_to_local on sm_90 when each
// thread holds one element: an f32 is a 4-byte cp.async (without .cg,
// which needs 16 bytes), an i8 is below cp.async's 4-byte minimum and goes
// through registers (load, then store to shared memory); each copy comes
// after a barrier, and the wait is cp.async.wait_group then a barrier.

// CHECK-LABEL: gpu.func @k
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 1 : memref<?xf32, #gpu.address_space<global>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: bypassL1
// CHECK: gpu.barrier
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: vector.load %{{.*}} : memref<?xi8, #gpu.address_space<global>>, vector<1xi8>
// CHECK-NEXT: vector.store %{{.*}} : memref<32xi8, #gpu.address_space<workgroup>>, vector<1xi8>
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
#shared = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#b4 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 32], wavesPerCTA = [1, 1], order = [1, 0]}>
#b1 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 32], wavesPerCTA = [1, 1], order = [1, 0]}>
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %z: !tile.ptr<i8> {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1, values = [1]>]} {
  %r = tile.range 0 to 32 : tensor<32xi32, #tile.slice<{dim = 0, parent = #b4}>>
  %r1 = tile.expand_dims %r, 0 : tensor<32xi32, #tile.slice<{dim = 0, parent = #b4}>> -> tensor<1x32xi32, #b4>
  %a = tile.local_alloc : !tile.memdesc<1x32xf32, #shared>
  %t = tile.async_copy_global_to_local %x[%r1], %a : !tile.ptr<f32>, tensor<1x32xi32, #b4> -> !tile.memdesc<1x32xf32, #shared>
  %b = tile.local_alloc : !tile.memdesc<1x32xi8, #shared>
  %t2 = tile.async_copy_global_to_local %z[%r1], %b : !tile.ptr<i8>, tensor<1x32xi32, #b4> -> !tile.memdesc<1x32xi8, #shared>
  %g = tile.async_commit_group %t, %t2
  %w = tile.async_wait %g {num = 0 : i32}
  tile.return
}
