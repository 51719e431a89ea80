// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a bound known to end on a dword (f32 elements) needs no byte
// clearing: the fat raw buffer holds exactly 4 n bytes and each lane reads
// 16-byte vector loads from it, with no scf.if and no AND.

// CHECK: %[[N:.*]] = arith.maxsi %arg2, %{{.*}} : i32
// CHECK: %[[N64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK: %[[VALID:.*]] = arith.muli %[[N64]], %c4_i64 : i64
// CHECK: %[[BUF:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%[[VALID]]) resetOffset
// CHECK-NOT: scf.if
// CHECK-NOT: arith.andi
// CHECK: vector.load %[[BUF]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<4xf32>
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
