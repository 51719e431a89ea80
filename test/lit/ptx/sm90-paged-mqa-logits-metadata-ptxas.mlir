// REQUIRES: ptxas
// RUN: tessel-translate %kernels/paged_mqa_logits_metadata.mlir --target=sm_90 --emit=ptx --ptxas=%ptxas --print-resources -o %t.sm90.ptx | FileCheck %s
// RUN: tessel-translate %kernels/paged_mqa_logits_metadata.mlir --target=sm_90a --emit=ptx --ptxas=%ptxas --print-resources -o %t.sm90a.ptx | FileCheck %s
// Checks that ptxas accepts the schedule metadata kernel for sm_90 and
// sm_90a and allocates it without spills.

// CHECK: "registers":
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
