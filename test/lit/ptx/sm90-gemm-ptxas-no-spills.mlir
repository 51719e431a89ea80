// REQUIRES: ptxas
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=4 --ptxas=%ptxas --print-resources -o %t.fp8.ptx | FileCheck %s
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=8 --ptxas=%ptxas --print-resources -o %t.fp8w8.ptx | FileCheck %s
// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=sm_90 --emit=ptx --knob num_waves=4 --ptxas=%ptxas --print-resources -o %t.bf16.ptx | FileCheck %s
// Checks that ptxas -arch=sm_90 accepts the mma.sync GEMMs and allocates
// them without spills (its registers reach the resource report).

// CHECK: "registers":
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,
