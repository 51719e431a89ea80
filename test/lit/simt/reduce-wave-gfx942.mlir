// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks a full-wave (64-lane) sum on CDNA3: DPP inside rows, ds_swizzle
// (bit mode, xor 16) across rows of a half, ds_bpermute across the halves.

// CHECK: amdgpu.dpp {{.*}} quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32])
// CHECK: amdgpu.dpp {{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32])
// CHECK: amdgpu.dpp {{.*}} row_half_mirror
// CHECK: amdgpu.dpp {{.*}} row_mirror
// CHECK: amdgpu.swizzle_bitmode %{{.*}} 31 0 16 : i32
// CHECK: arith.xori %{{.*}}, %c32_i32
// CHECK: rocdl.ds_bpermute
tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %s = tile.reduce add %v, 0 : tensor<128xi32> -> i32
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
