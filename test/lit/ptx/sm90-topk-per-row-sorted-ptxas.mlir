// REQUIRES: ptxas
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90 --emit=ptx --knob k=2048 --knob num_waves=16 --knob sorted=1 --ptxas=%ptxas --print-resources -o %t.sm90.ptx | FileCheck %s
// RUN: tessel-translate %kernels/topk_per_row.mlir --target=sm_90a --emit=ptx --knob k=2048 --knob num_waves=8 --knob sorted=1 --ptxas=%ptxas --print-resources -o %t.sm90a.ptx | FileCheck %s
// Checks that ptxas accepts the sorted topk_per_row variant for sm_90 and
// sm_90a, with its 40 KiB of shared memory (8 KiB of bins, 16 KiB of pairs
// for k = 2048, 16 KiB of candidate buffer for 2048 keys and columns), no
// stack and no spills.

// CHECK: "lds_bytes": 40960,
// CHECK: "registers":
// CHECK: "scratch_bytes": 0,
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
