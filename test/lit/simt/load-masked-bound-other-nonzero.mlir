// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a load masked by `offsets < n` whose masked-off elements take
// a nonzero `other` keeps the predicated path on gfx942: a bounds-checked
// buffer read would give 0 there, not -1.

// CHECK-NOT: amdgpu.fat_raw_buffer_cast
// CHECK: scf.if
// CHECK-NOT: amdgpu.fat_raw_buffer_cast
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %o = arith.constant dense<-1.0> : tensor<1024xf32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) other(%o : tensor<1024xf32>) : !tile.ptr<f32>, tensor<1024xi32> -> tensor<1024xf32>
  tile.store %v, %y[%r] : tensor<1024xf32>, !tile.ptr<f32>, tensor<1024xi32>
  tile.return
}
