// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that on gfx942 a load masked by `offsets < n` reads through the
// kernel buffer cut at n (rounded up to a dword: (n + 3) & -4 elements of
// i8) with one 16-byte raw buffer load per lane, no scf.if, and clears the
// bytes of the last dword past n with one AND per dword.

// CHECK: arith.maxsi %arg2, %{{.*}} : i32
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}], strides: [1]
// CHECK-NOT: scf.if
// CHECK: amdgpu.raw_buffer_load %{{.*}}[%{{.*}}] : memref<?xi8, #gpu.address_space<global>>, i32 -> vector<16xi8>
// CHECK: vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK: arith.andi %{{.*}} : vector<4xi32>
// CHECK-NOT: scf.if
// CHECK-NOT: amdgpu.raw_buffer_load
tile.kernel @k(%x: !tile.ptr<i8> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<i8>, tensor<1024xi32> -> tensor<1024xi8>
  tile.store %v, %y[%r] : tensor<1024xi8>, !tile.ptr<i8>, tensor<1024xi32>
  tile.return
}
