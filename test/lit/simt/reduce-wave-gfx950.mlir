// RUN: tessel-opt %s -tile-assign-layouts=target=gfx950 -convert-tile-to-simt=target=gfx950 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks a full-wave (64-lane) sum on CDNA4: DPP inside rows, then the
// permlane16 and permlane32 swaps that CDNA4 adds (no LDS-unit traffic).

// CHECK: amdgpu.dpp {{.*}} quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32])
// CHECK: amdgpu.dpp {{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32])
// CHECK: amdgpu.dpp {{.*}} row_half_mirror
// CHECK: amdgpu.dpp {{.*}} row_mirror
// CHECK: amdgpu.permlane_swap %{{.*}} 16 : i32
// CHECK: amdgpu.permlane_swap %{{.*}} 32 : i32
// CHECK-NOT: rocdl.ds_bpermute
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %s = tile.reduce add %v, 0 : tensor<128xi32> -> i32
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
