// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that an i64 add reduction over 64 lanes and 4 waves on CDNA3 moves
// each partial sum across lanes as its two 32-bit halves (one DPP, swizzle
// or ds_bpermute per half and step), joins the moved halves back into an
// i64 before the 64-bit add, and combines the waves' sums in 4 LDS slots of
// 8 bytes (a 32-byte buffer).

// CHECK: workgroup(%[[BUF:.*]] : memref<32xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[C32:.*]] = arith.constant 32 : i64
// The first step (xor 1), in full.
// CHECK: %[[LO:.*]] = arith.trunci %[[V:.*]] : i64 to i32
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[V]], %[[C32]] : i64
// CHECK-NEXT: %[[HI:.*]] = arith.trunci %[[SH]] : i64 to i32
// CHECK-NEXT: %[[MLO:.*]] = amdgpu.dpp %[[LO]] %[[LO]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : i32
// CHECK-NEXT: %[[XLO:.*]] = arith.extui %[[MLO]] : i32 to i64
// CHECK-NEXT: %[[MHI:.*]] = amdgpu.dpp %[[HI]] %[[HI]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : i32
// CHECK-NEXT: %[[XHI:.*]] = arith.extui %[[MHI]] : i32 to i64
// CHECK-NEXT: %[[UP:.*]] = arith.shli %[[XHI]], %[[C32]] : i64
// CHECK-NEXT: %[[J:.*]] = arith.ori %[[XLO]], %[[UP]] : i64
// CHECK-NEXT: arith.addi %[[V]], %[[J]] : i64
// The other steps (xor 2, 4, 8, 16, 32): two moves each, then one add.
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} row_half_mirror : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.dpp %{{.*}} row_mirror : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: amdgpu.swizzle_bitmode %{{.*}} 31 0 16 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: rocdl.ds_bpermute %{{.*}} : (i32, i32) -> i32
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}} : i64
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %[[SUM]], %[[LDS]][%{{.*}}] : memref<4xi64
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[LDS]]
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.reduce add %v, 0 : tensor<512xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}
