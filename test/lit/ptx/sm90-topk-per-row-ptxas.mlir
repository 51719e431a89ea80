// REQUIRES: ptxas
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=2048 --knob num_waves=16 --ptxas=%ptxas --print-resources -o %t.sm90.ptx | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=2048 --knob num_waves=8 --ptxas=%ptxas --print-resources -o %t.sm90a.ptx | FileCheck %s
// Checks that ptxas accepts the topk_per_row kernel for sm_90 and sm_90a
// and allocates it with no stack and no spills.

// CHECK: "registers":
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
