// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefixes=CHECK,M64
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefixes=CHECK,M32
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefixes=CHECK,M64
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefix=NOLDS
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefix=NOLDS
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s --check-prefix=NOLDS
// Checks the chunk loop of the persistent paged MQA logits variants over a
// preshuffled cache on gfx942 (kernels_dsl/variants.json: 64 heads x 1 row, 32
// heads x 1 and 2 rows, so M = rows x heads = 64, 32 and 64; 128-token
// chunks over 4 waves), the innermost of the batch and segment loops: each
// iteration first issues the next chunk's K as 4 global_load_dwordx4 per
// lane (16 contiguous bytes of one 16-byte D group of a token, in MFMA
// operand order), then runs the current chunk's arithmetic minimum of
// v_mfma_f32_16x16x32_fp8_fp8:
// (M/16) x (32/16) x (128/32) per wave: 32 for M = 64 and 16 for M = 32. It is the kernel's only loop with MFMAs. Nothing goes through LDS (no
// ds_read or ds_write anywhere in the kernel), the loop takes no 64-bit
// shift (tile-preshuffle-kv permutes in i32), and the variant uses no AGPRs
// and no scratch.

// NOLDS-NOT: {{ds_read|ds_write}}
// NOLDS: ; ScratchSize: 0

// CHECK: Inner Loop Header: Depth=3
// CHECK-NOT: {{v_mfma|ds_read|ds_write|v_lshlrev_b64}}
// CHECK-COUNT-4: global_load_dwordx4
// CHECK-NOT: {{global_load_dwordx4|ds_read|ds_write|v_lshlrev_b64}}
// M64-COUNT-32: v_mfma_f32_16x16x32_fp8_fp8
// M32-COUNT-16: v_mfma_f32_16x16x32_fp8_fp8
// CHECK-NOT: {{v_mfma|global_load_dwordx4|ds_read|ds_write|v_lshlrev_b64}}
// CHECK: %._crit_edge
// CHECK-NOT: v_mfma
// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
