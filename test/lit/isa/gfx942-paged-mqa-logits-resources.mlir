// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=16 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=16 --knob rows_per_program=4 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=16 --knob rows_per_program=8 --knob chunk_k=64 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=4 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=128 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=16 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=16 --knob rows_per_program=4 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=32 --knob rows_per_program=2 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=1 --knob chunk_k=256 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=64 --knob rows_per_program=2 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=gfx942 --emit=asm --knob heads=128 --knob rows_per_program=1 --knob chunk_k=128 --knob num_waves=4 --knob waves_per_eu=2 --knob preshuffle=1 -o - | FileCheck %s
// Checks every paged MQA logits variant of the kernel library on gfx942
// (kernels_dsl/variants.json: heads x rows per program x chunk, plain and
// preshuffled) for the code-object targets: no scratch (no spills), no
// LDS, and VGPRs + AGPRs within the 256 per lane that waves_per_eu = 2
// leaves (occupancy >= 2).

// CHECK: ; NumAgprs: 0
// CHECK: ; ScratchSize: 0
// CHECK: ; LDSByteSize: 0 bytes/workgroup
// CHECK: ; Occupancy: {{[2-8]}}
