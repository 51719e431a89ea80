// REQUIRES: ptxas
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=512 --knob num_waves=8 --knob sorted=1 --ptxas=%ptxas --print-resources -o %t.k512.ptx | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=1024 --knob num_waves=8 --knob sorted=1 --ptxas=%ptxas --print-resources -o %t.k1024.ptx | FileCheck %s
// Checks that ptxas allocates the sorted 8-warp topk_per_row variants with
// k = 512 and 1024 (the candidate buffer's pieces beside the sort's pairs,
// where ptxas keeps to 80 registers) with no stack and no spills.

// CHECK: "registers":
// CHECK: "scratch_bytes": 0,
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
