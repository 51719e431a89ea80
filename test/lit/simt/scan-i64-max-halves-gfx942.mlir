// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks the register-resident inclusive max scan of i64 over 4 waves on
// CDNA3: every step of the whole-wave DPP scan (row_shr 1, 2, 4, 8,
// row_bcast 15 and 31) moves the two 32-bit halves, each with the matching
// half of the identity INT64_MIN as the value of lanes without a source
// (low half 0, high half INT32_MIN), before one signed i64 max; the waves'
// totals meet in 4 LDS slots of 8 bytes.

// CHECK: workgroup(%[[BUF:.*]] : memref<32xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-DAG: %[[IDHI:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[IDLO:.*]] = arith.constant 0 : i32
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_shr(1 : i32) : i32
// CHECK-NEXT: arith.extui
// CHECK-NEXT: amdgpu.dpp %[[IDHI]] %{{.*}} row_shr(1 : i32) : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_shr(2 : i32) : i32
// CHECK: amdgpu.dpp %[[IDHI]] %{{.*}} row_shr(2 : i32) : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_shr(4 : i32) : i32
// CHECK: amdgpu.dpp %[[IDHI]] %{{.*}} row_shr(4 : i32) : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_shr(8 : i32) : i32
// CHECK: amdgpu.dpp %[[IDHI]] %{{.*}} row_shr(8 : i32) : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_bcast_15 {row_mask = 10 : i32} : i32
// CHECK: amdgpu.dpp %[[IDHI]] %{{.*}} row_bcast_15 {row_mask = 10 : i32} : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK: amdgpu.dpp %[[IDLO]] %{{.*}} row_bcast_31 {row_mask = 12 : i32} : i32
// CHECK: amdgpu.dpp %[[IDHI]] %{{.*}} row_bcast_31 {row_mask = 12 : i32} : i32
// CHECK: arith.maxsi %{{.*}} : i64
// The wave's total from its last lane, both halves, stored in its slot.
// CHECK-COUNT-2: rocdl.ds_bpermute
// CHECK: memref.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<4xi64
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]][%{{.*}}] : memref<4xi64
// CHECK-NOT: memref.load
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.scan max %v, 0 : tensor<512xi64>
  tile.store %s, %x[%r] : tensor<512xi64>, !tile.ptr<i64>, tensor<512xi32>
  tile.return
}
