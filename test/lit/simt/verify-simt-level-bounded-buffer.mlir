// RUN: tessel-opt %s -tile-assign-layouts=target=gfx950 -convert-tile-to-simt=target=gfx950 -reconcile-unrealized-casts -verify-simt-level | FileCheck %s
// Checks that the bounds-checked buffer loads of a masked tail (an
// amdgpu.fat_raw_buffer_cast to the bound and vector loads from it) are
// SIMT IR that the SIMT-level verifier accepts.

// CHECK: amdgpu.fat_raw_buffer_cast
// CHECK: vector.load {{.*}} #amdgpu.address_space<fat_raw_buffer>
tile.kernel @k(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<f8E4M3FN>, tensor<1024xi32> -> tensor<1024xf8E4M3FN>
  tile.store %v, %y[%r] : tensor<1024xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<1024xi32>
  tile.return
}
