// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx950 -convert-tile-to-simt=target=gfx950 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that an unsigned i64 max reduction over 64 lanes and 4 waves on
// CDNA4 compares with arith.maxui on i64, moves the halves of each partial
// maximum across 16 and 32 lanes with two permlane swaps per step (CDNA4's,
// in place of ds_swizzle and ds_bpermute), and meets the waves' maxima in
// 8-byte LDS slots.

// CHECK: workgroup(%[[BUF:.*]] : memref<32xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : i32
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) : i32
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} row_half_mirror : i32
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} row_mirror : i32
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-NOT: amdgpu.swizzle_bitmode
// CHECK-COUNT-2: amdgpu.permlane_swap %{{.*}} 16 : i32
// CHECK: arith.maxui %{{.*}} : i64
// CHECK-NOT: rocdl.ds_bpermute
// CHECK-COUNT-2: amdgpu.permlane_swap %{{.*}} 32 : i32
// CHECK: %[[MAX:.*]] = arith.maxui %{{.*}} : i64
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: memref.store %[[MAX]], %[[LDS]]
// CHECK-COUNT-4: memref.load %[[LDS]]
// CHECK-NOT: arith.maxsi
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.reduce umax %v, 0 : tensor<512xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}
