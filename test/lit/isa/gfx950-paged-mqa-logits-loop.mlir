// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx950 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// Checks the inner loop of the paged MQA logits kernel on gfx950 (64 heads,
// one row, 256-token chunks over 4 waves): each iteration first issues the
// next chunk's K as 8 global_load_dwordx4 per lane (64 tokens x 128 bytes
// per wave, 16 contiguous bytes per load, straight into the MFMA operand
// registers), then runs the current chunk's arithmetic minimum of
// v_mfma_f32_16x16x128_f8f6f4: (64/16) x (64/16) x (128/128) = 16 per wave.
// No LDS is used (the head reduction stays in registers and lane
// shuffles), and nothing spills.

// CHECK: Inner Loop Header: Depth=1
// CHECK-NOT: v_mfma
// CHECK-COUNT-8: global_load_dwordx4
// CHECK-NOT: global_load_dwordx4
// CHECK-COUNT-16: v_mfma_f32_16x16x128_f8f6f4
// CHECK-NOT: v_mfma
// CHECK-NOT: global_load_dwordx4
// CHECK: %._crit_edge
// CHECK-NOT: v_mfma
// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
// CHECK: ; Occupancy: 2
