// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=8 --knob waves_per_eu=0 --knob preshuffle=0 --knob persistent=0 --knob kv_rows_aligned=0 -o - | FileCheck %s
// Checks why kv_rows_aligned exists: without it a block is block_size * 132
// bytes with block_size known only at run time, so a token's K row is only
// known to be 4-byte aligned and the loop loads K 4 bytes at a time (no
// ld.global.v4 in it); Q, whose rows are 128 bytes from a 16-byte aligned
// base, still loads 16 bytes at a time before the loop.

// CHECK-LABEL: .entry paged_mqa_logits(
// CHECK-COUNT-2: ld.global.v4.b32
// CHECK: Inner Loop Header
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.b32
// CHECK-NOT: ld.global.v4
// CHECK: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// CHECK-NOT: ld.global.v4
// CHECK: %._crit_edge
