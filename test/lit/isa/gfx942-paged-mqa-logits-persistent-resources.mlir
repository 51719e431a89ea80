// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob persistent=1 --knob preshuffle=1 -o - | FileCheck %s
// Checks the persistent paged MQA logits variants of the kernel library on
// gfx942 (kernels_dsl/variants.json: 32 and 64 heads with one row per program
// and 32 heads with two, 128-token chunks, over a plain and a preshuffled
// cache) for the code-object targets: no scratch, no SGPR or VGPR spills,
// no AGPRs, no LDS (as the split-grid variants), and VGPRs within the 256
// per lane that waves_per_eu = 2 leaves (occupancy >= 2).

// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
// CHECK: ; Occupancy: {{[2-8]}}
// CHECK: .sgpr_spill_count: 0
// CHECK: .vgpr_spill_count: 0
