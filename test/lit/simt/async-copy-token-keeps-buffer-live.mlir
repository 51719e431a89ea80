// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -canonicalize | FileCheck %s
// Checks that an async copy's token keeps its destination live: the two
// buffers below (32 x f32 = 128 bytes, 32 x i8 = 32 bytes) have no use
// after their copies, but the copies' tokens meet in one commit group, so
// the copies may be in flight together and the buffers must not share
// space: 128 + 32 = 160 bytes, the second at byte 128.

// CHECK: workgroup(%{{.*}} : memref<160xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %{{.*}}[%c0][] : memref<160xi8, {{.*}}> to memref<32xf32,
// CHECK: memref.view %{{.*}}[%c128][] : memref<160xi8, {{.*}}> to memref<32xi8,
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
