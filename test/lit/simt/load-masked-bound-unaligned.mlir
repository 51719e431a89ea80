// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a load masked by `offsets < n` from a buffer with no
// alignment promise (1-byte elements, so dword accesses are not known to
// be aligned) keeps the predicated path on gfx942: the per-dword range
// check is exact only for aligned dwords.

// CHECK-NOT: amdgpu.fat_raw_buffer_cast
// CHECK: scf.if
// CHECK-NOT: amdgpu.fat_raw_buffer_cast
tile.kernel @k(%x: !tile.ptr<i8>, %y: !tile.ptr<i8>, %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<i8>, tensor<1024xi32> -> tensor<1024xi8>
  tile.store %v, %y[%r] : tensor<1024xi8>, !tile.ptr<i8>, tensor<1024xi32>
  tile.return
}
