// RUN: not tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=4 --knob kv_rows_aligned=1 --knob stages=0 --knob tokens_on_m=1 -o /dev/null 2>&1 | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits.mlir --target=sm_90a --emit=ptx --ptxas=none --knob heads=64 --knob rows_per_program=1 --knob chunk_k=64 --knob num_waves=4 --knob kv_rows_aligned=1 --knob stages=0 --knob tokens_on_m=0 -o /dev/null
// Checks that the logits kernel's tokens_on_m = 1 without the shared-memory
// ring (stages = 0) is a compile error that says so, while the same knobs
// with tokens_on_m = 0 compile.

// CHECK: paged_mqa_logits.mlir:{{[0-9]+}}:1: error: tokens_on_m = 1 needs the shared-memory ring of K (stages > 0)
