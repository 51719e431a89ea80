// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s --check-prefix=NOLDS
// Checks the inner loop of the preshuffled paged MQA logits kernel on
// gfx942 (64 heads, one row, 256-token chunks over 4 waves): each iteration
// first issues the next chunk's K as 8 global_load_dwordx4 per lane (16
// contiguous bytes of one 16-byte D group of a token, in MFMA operand
// order), then runs the current chunk's arithmetic minimum of
// v_mfma_f32_16x16x32_fp8_fp8:
// (64/16) x (64/16) x (128/32) = 64 per wave. Nothing goes through LDS (no
// ds_read or ds_write anywhere in the kernel), and nothing spills. The
// addresses take no 64-bit shift in the loop: tile-preshuffle-kv computes
// the permutation in i32 and adds the 64-bit block base once.

// NOLDS-NOT: {{ds_read|ds_write}}
// NOLDS: ; ScratchSize: 0

// CHECK: Inner Loop Header: Depth=1
// CHECK-NOT: {{v_mfma|ds_read|ds_write|v_lshlrev_b64}}
// CHECK-COUNT-8: global_load_dwordx4
// CHECK-NOT: {{global_load_dwordx4|ds_read|ds_write|v_lshlrev_b64}}
// CHECK-COUNT-64: v_mfma_f32_16x16x32_fp8_fp8
// CHECK-NOT: {{v_mfma|global_load_dwordx4|ds_read|ds_write|v_lshlrev_b64}}
// CHECK: %._crit_edge
// CHECK-NOT: {{v_mfma|ds_read|ds_write}}
// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
// CHECK: ; Occupancy: 2
