// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a mask that is not `offsets < bound` (here a lower bound,
// offsets >= lo) keeps the predicated path on gfx942: each element is
// guarded by its own scf.if, and no fat raw buffer is made.

// CHECK-NOT: amdgpu.fat_raw_buffer_cast
// CHECK: scf.if
// CHECK: memref.load
// CHECK-NOT: amdgpu.fat_raw_buffer_cast
tile.kernel @k(%x: !tile.ptr<i8> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %lo: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %lv = tile.splat %lo : i32 -> tensor<1024xi32>
  %m = arith.cmpi sge, %r, %lv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<i8>, tensor<1024xi32> -> tensor<1024xi8>
  tile.store %v, %y[%r] : tensor<1024xi8>, !tile.ptr<i8>, tensor<1024xi32>
  tile.return
}
