// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that !tile.memdesc (with and without a stage dimension, with a
// swizzle left to the compiler), the async token and the shared-memory ops
// print and parse back unchanged.

#shared = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// CHECK-LABEL: tile.kernel @shared
// CHECK: %[[A:.*]] = tile.local_alloc : !tile.memdesc<2x64x128xf8E4M3FN, #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK: %[[S:.*]] = tile.memdesc_index %[[A]][%{{.*}}] : !tile.memdesc<2x64x128xf8E4M3FN, {{.*}}> -> !tile.memdesc<64x128xf8E4M3FN, {{.*}}>
// CHECK: %[[T:.*]] = tile.async_copy_global_to_local %{{.*}}[%{{.*}}] mask(%{{.*}} : tensor<64x128xi1>), %[[S]] : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN
// CHECK: %[[G:.*]] = tile.async_commit_group %[[T]]
// CHECK: tile.async_wait %[[G]] {num = 1 : i32}
// CHECK: tile.async_wait {num = 0 : i32}
// CHECK: %[[V:.*]] = tile.local_load %[[S]] : !tile.memdesc<64x128xf8E4M3FN, {{.*}}> -> tensor<64x128xf8E4M3FN>
// CHECK: tile.local_store %[[V]], %[[S]] : tensor<64x128xf8E4M3FN> -> !tile.memdesc<64x128xf8E4M3FN
// CHECK: tile.local_alloc(%{{.*}} : tensor<16x16xf32>) : !tile.memdesc<16x16xf32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK: tile.local_alloc : !tile.memdesc<3x32x32xbf16, #tile.shared<{vec = 8, perPhase = 0, maxPhase = 0, order = [1, 0]}>>
tile.kernel @shared(%p: !tile.ptr<f8E4M3FN>, %o: i32) {
  %a = tile.local_alloc : !tile.memdesc<2x64x128xf8E4M3FN, #shared>
  %c1 = arith.constant 1 : i32
  %s = tile.memdesc_index %a[%c1] : !tile.memdesc<2x64x128xf8E4M3FN, #shared> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
  %offs = tile.splat %o : i32 -> tensor<64x128xi32>
  %m = arith.constant dense<true> : tensor<64x128xi1>
  %t = tile.async_copy_global_to_local %p[%offs] mask(%m : tensor<64x128xi1>), %s : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
  %g = tile.async_commit_group %t
  %w = tile.async_wait %g {num = 1 : i32}
  %w0 = tile.async_wait {num = 0 : i32}
  %v = tile.local_load %s : !tile.memdesc<64x128xf8E4M3FN, #shared> -> tensor<64x128xf8E4M3FN>
  tile.local_store %v, %s : tensor<64x128xf8E4M3FN> -> !tile.memdesc<64x128xf8E4M3FN, #shared>
  %f = arith.constant dense<1.0> : tensor<16x16xf32>
  %b = tile.local_alloc (%f : tensor<16x16xf32>) : !tile.memdesc<16x16xf32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
  %c = tile.local_alloc : !tile.memdesc<3x32x32xbf16, #tile.shared<{vec = 8, perPhase = 0, maxPhase = 0, order = [1, 0]}>>
  tile.return
}
