// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a reverse (suffix) scan over 4 waves runs the forward
// register-resident scan in mirrored order: each lane's run is combined
// from its last element, the run totals are read from the mirrored lane
// (lane ^ 63) before the whole-wave DPP scan and the exclusive part comes
// from the lane before the mirror, and a wave takes the totals of the
// waves after it from the LDS exchange: lane j of the first 4 reads wave
// 3 - j's total, a 2-step DPP scan combines them, and wave w reads its
// share from lane 2 - w (none for the last wave, 3).

// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %c63_i32 : i32
// CHECK: %[[MIRROR:.*]] = arith.xori %[[LANE]], %c63_i32 : i32
// CHECK: %[[BEFORE:.*]] = arith.subi %[[MIRROR]], %c1_i32 : i32
// CHECK: %[[LDS:.*]] = memref.view %{{.*}} to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[LAST:.*]] = vector.extract %{{.*}}[1] : i32 from vector<2xi32>
// CHECK: %[[FIRST:.*]] = vector.extract %{{.*}}[0] : i32 from vector<2xi32>
// CHECK: %[[RSUM:.*]] = arith.addi %[[LAST]], %[[FIRST]] : i32
// CHECK: %[[AT:.*]] = arith.shli %[[MIRROR]], %c2_i32 : i32
// CHECK: rocdl.ds_bpermute %[[AT]], %[[RSUM]]
// CHECK: amdgpu.dpp %{{.*}} row_shr(1 : i32) : i32
// CHECK: amdgpu.dpp %{{.*}} row_bcast_31 {row_mask = 12 : i32} : i32
// CHECK: arith.shli %[[BEFORE]], %c2_i32 : i32
// CHECK: rocdl.ds_bpermute
// CHECK: arith.cmpi eq, %[[LANE]], %c63_i32 : i32
// CHECK: memref.store %{{.*}}, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: %[[J:.*]] = arith.andi %{{.*}}, %c3_i32 : i32
// CHECK: %[[FROM:.*]] = arith.subi %c3_i32, %[[J]] : i32
// CHECK: memref.load %[[LDS]]
// CHECK-NOT: memref.load
// CHECK: amdgpu.dpp %{{.*}} row_shr(1 : i32) : i32
// CHECK: amdgpu.dpp %{{.*}} row_shr(2 : i32) : i32
// CHECK: %[[AFTER:.*]] = arith.subi %c3_i32, %[[WAVE:.*]] : i32
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[AFTER]], %c0_i32 : i32
// CHECK: arith.subi %c2_i32, %[[WAVE]] : i32
// CHECK: rocdl.ds_bpermute
// CHECK: arith.select %[[NONE]], %c0_i32, %{{.*}} : i32
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %s = tile.scan add %v, 0 {reverse} : tensor<512xi32>
  tile.store %s, %x[%r] : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
  tile.return
}
