// REQUIRES: ptxas
// RUN: tessel-translate %kernels/scaled_gemm_fp8_pipelined.mlir --target=sm_90a --emit=ptx --knob num_waves=4 --ptxas=%ptxas --print-resources -o %t.w4.ptx | FileCheck %s
// RUN: tessel-translate %kernels/scaled_gemm_fp8_pipelined.mlir --target=sm_90a --emit=ptx --knob num_waves=8 --ptxas=%ptxas --print-resources -o %t.w8.ptx | FileCheck %s
// Checks that ptxas -arch=sm_90a accepts the pipelined fp8 GEMM without
// spills, and that its shared memory is the two stages of A and B:
// 2 * (64 * 128 + 128 * 128) bytes = 49152.

// CHECK: "lds_bytes": 49152,
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
