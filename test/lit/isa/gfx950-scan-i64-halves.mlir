// RUN: tessel-translate %s --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks the gfx950 code of an exclusive unsigned-max scan of i64 over 4
// waves: each step of the whole-wave DPP scan is two 32-bit DPP moves
// (row_shr 1, 2, 4, 8, row_bcast 15 and 31) before one 64-bit unsigned
// compare, the waves' totals go through 8-byte LDS slots (ds_write_b64,
// ds_read_b64) in 32 bytes of LDS, and nothing spills to scratch.

// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_shr:1 row_mask:0xf
// CHECK: v_cmp_gt_u64
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_shr:2 row_mask:0xf
// CHECK: v_cmp_gt_u64
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_shr:4 row_mask:0xf
// CHECK: v_cmp_gt_u64
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_shr:8 row_mask:0xf
// CHECK: v_cmp_gt_u64
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_bcast:15 row_mask:0xa
// CHECK: v_cmp_gt_u64
// CHECK-COUNT-2: v_mov_b32_dpp {{.*}} row_bcast:31 row_mask:0xc
// CHECK: v_cmp_gt_u64
// CHECK: ds_write_b64
// CHECK: s_barrier
// CHECK: ds_read_b64
// CHECK: .amdhsa_group_segment_fixed_size 32
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: ; ScratchSize: 0
// CHECK: .private_segment_fixed_size: 0
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.scan umax %v, 0 {exclusive} : tensor<512xi64>
  tile.store %s, %x[%r] : tensor<512xi64>, !tile.ptr<i64>, tensor<512xi32>
  tile.return
}
