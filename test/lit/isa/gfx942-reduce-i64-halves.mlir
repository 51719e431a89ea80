// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks the gfx942 code of an i64 add reduction over 4 waves: two 32-bit
// moves per step across the lanes (DPP quad_perm, row_half_mirror,
// row_mirror, ds_swizzle, ds_bpermute), the waves' sums written as one
// 8-byte LDS slot each (ds_write_b64) into 32 bytes of LDS, and no scratch.

// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} quad_perm:[1,0,3,2]
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} quad_perm:[2,3,0,1]
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_half_mirror
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_mirror
// CHECK-COUNT-2: ds_swizzle_b32 {{.*}} offset:swizzle(SWAP,16)
// CHECK-COUNT-2: ds_bpermute_b32
// CHECK-NOT: ds_write_b32
// CHECK: ds_write_b64
// CHECK: .amdhsa_group_segment_fixed_size 32
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: ; ScratchSize: 0
// CHECK: .private_segment_fixed_size: 0
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.reduce add %v, 0 : tensor<512xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}
