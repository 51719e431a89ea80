// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a bound known to end on a dword (f32 elements) needs no byte
// clearing: the buffer is cut at n elements exactly and each lane reads
// 16-byte raw buffer loads, with no scf.if and no AND.

// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}], strides: [1]
// CHECK-NOT: scf.if
// CHECK-NOT: arith.andi
// CHECK: amdgpu.raw_buffer_load %{{.*}}[%{{.*}}] : memref<?xf32, #gpu.address_space<global>>, i32 -> vector<4xf32>
// CHECK-NOT: scf.if
// CHECK-NOT: arith.andi
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<f32>, tensor<1024xi32> -> tensor<1024xf32>
  tile.store %v, %y[%r] : tensor<1024xf32>, !tile.ptr<f32>, tensor<1024xi32>
  tile.return
}
