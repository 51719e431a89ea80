// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks tile.prefix_count on CDNA3 over 4 waves: per register a wave
// ballot whose bits below the lane are counted by v_mbcnt (lo, then hi
// accumulating), no DPP scan within the wave, and the waves' totals
// through one LDS exchange between barriers: each of the first 4 lanes reads
// one wave's total and a 2-step DPP scan combines them.

// CHECK-NOT: amdgpu.dpp
// CHECK: %[[B:.*]] = rocdl.ballot %{{.*}} : i64
// CHECK: %[[LO:.*]] = rocdl.mbcnt.lo %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK: rocdl.mbcnt.hi %{{.*}}, %[[LO]] : (i32, i32) -> i32
// CHECK: math.ctpop %[[B]] : i64
// CHECK-NOT: amdgpu.dpp
// CHECK: %[[LDS:.*]] = memref.view %{{.*}} to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
// CHECK-NOT: memref.load
// CHECK: amdgpu.dpp %{{.*}} row_shr(1 : i32) : i32
// CHECK: amdgpu.dpp %{{.*}} row_shr(2 : i32) : i32
// CHECK-NOT: amdgpu.dpp
// CHECK: gpu.barrier
// CHECK-NOT: amdgpu.dpp
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %z = arith.constant dense<0> : tensor<512xi32>
  %m = arith.cmpi ne, %v, %z : tensor<512xi32>
  %p, %n = tile.prefix_count %m : tensor<512xi1> -> tensor<512xi32>
  tile.store %p, %x[%r] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
  tile.return
}
