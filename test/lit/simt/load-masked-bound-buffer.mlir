// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that on gfx942 a load masked by `offsets < n` reads through the
// kernel buffer as a fat raw buffer of validBytes = n rounded up to a dword
// ((n + 3) & -4 bytes of i8), with one 16-byte vector load per lane, no
// scf.if, and clears the bytes of the last dword past n with one AND per
// dword.

// CHECK: %[[N:.*]] = arith.maxsi %arg2, %{{.*}} : i32
// CHECK: %[[N64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK: %[[UP:.*]] = arith.addi %[[N64]], %{{.*}} : i64
// CHECK: %[[VALID:.*]] = arith.andi %[[UP]], %{{.*}} : i64
// CHECK: %[[BUF:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%[[VALID]]) resetOffset : memref<?xi8, #gpu.address_space<global>> to memref<?xi8, #amdgpu.address_space<fat_raw_buffer>>
// CHECK-NOT: scf.if
// CHECK: vector.load %[[BUF]][%{{.*}}] {alignment = 16 : i64} : memref<?xi8, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
// CHECK: vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK: arith.andi %{{.*}} : vector<4xi32>
// CHECK-NOT: scf.if
// CHECK-NOT: vector.load %[[BUF]]
tile.kernel @k(%x: !tile.ptr<i8> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<i8>, tensor<1024xi32> -> tensor<1024xi8>
  tile.store %v, %y[%r] : tensor<1024xi8>, !tile.ptr<i8>, tensor<1024xi32>
  tile.return
}
