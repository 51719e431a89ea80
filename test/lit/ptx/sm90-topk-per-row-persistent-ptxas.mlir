// REQUIRES: ptxas
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=2048 --knob num_waves=16 --knob persistent=1 --ptxas=%ptxas --print-resources -o %t.sm90.ptx | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=2048 --knob num_waves=8 --knob persistent=1 --ptxas=%ptxas --print-resources -o %t.sm90a.ptx | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=512 --knob num_waves=16 --knob sorted=1 --knob persistent=1 --ptxas=%ptxas --print-resources -o %t.sorted.ptx | FileCheck %s
// Checks that ptxas accepts the persistent (split) topk_per_row kernel for
// sm_90 and sm_90a and allocates it with no spills. Not checked: k = 2048
// with 16 warps and `sorted`, which spills 40 bytes today.

// CHECK: "registers":
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
