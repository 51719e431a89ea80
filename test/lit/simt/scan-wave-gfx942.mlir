// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks the register-resident scan of a 1-D tile over 4 waves on CDNA3:
// each lane's run of 2 in registers, the whole-wave DPP scan (row_shr 1, 2,
// 4, 8, then row_bcast 15 into rows 1 and 3 and row_bcast 31 into rows 2 and
// 3, inactive rows keeping the identity), the wave's total fetched from its
// last lane, the waves' totals through one LDS exchange (each of the first
// 4 lanes reads one wave's total, a 2-step DPP scan combines them, and two
// lane reads take the total from lane 3 and the earlier waves' share from
// lane wave - 1: no per-wave compare), and the fix-up.

// CHECK: workgroup(%[[BUF:.*]] : memref<16xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: amdgpu.dpp %[[ID:.*]] %{{.*}} row_shr(1 : i32) : i32
// CHECK: amdgpu.dpp %[[ID]] %{{.*}} row_shr(2 : i32) : i32
// CHECK: amdgpu.dpp %[[ID]] %{{.*}} row_shr(4 : i32) : i32
// CHECK: amdgpu.dpp %[[ID]] %{{.*}} row_shr(8 : i32) : i32
// CHECK: amdgpu.dpp %[[ID]] %{{.*}} row_bcast_15 {row_mask = 10 : i32} : i32
// CHECK: amdgpu.dpp %[[ID]] %{{.*}} row_bcast_31 {row_mask = 12 : i32} : i32
// CHECK: rocdl.ds_bpermute
// CHECK: memref.store %{{.*}}, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
// CHECK-NOT: memref.load
// CHECK: amdgpu.dpp %{{.*}} row_shr(1 : i32) : i32
// CHECK: amdgpu.dpp %{{.*}} row_shr(2 : i32) : i32
// CHECK-NOT: amdgpu.dpp
// CHECK: rocdl.ds_bpermute %c12_i32
// CHECK: rocdl.ds_bpermute
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %s = tile.scan add %v, 0 : tensor<512xi32>
  tile.store %s, %x[%r] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
  tile.return
}
