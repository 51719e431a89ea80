// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that sm_90, which has no bounds-checked buffer loads, keeps the
// predicated path for a mask `offsets < n`: guarded loads, no buffer ops.

// CHECK-NOT: amdgpu.fat_raw_buffer_cast
// CHECK: scf.if
// CHECK-NOT: amdgpu.fat_raw_buffer_cast
tile.kernel @k(%x: !tile.ptr<i8> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<i8>, tensor<1024xi32> -> tensor<1024xi8>
  tile.store %v, %y[%r] : tensor<1024xi8>, !tile.ptr<i8>, tensor<1024xi32>
  tile.return
}
