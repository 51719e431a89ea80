// REQUIRES: ptxas
// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring.mlir --target=sm_90a --emit=ptx --knob num_waves=4 --ptxas=%ptxas --print-resources -o %t.w4.ptx | FileCheck %s
// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring.mlir --target=sm_90a --emit=ptx --knob num_waves=8 --ptxas=%ptxas --print-resources -o %t.w8.ptx | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.w4.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.w8.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: tessel-translate %kernels/scaled_gemm_fp8_ring_promoted.mlir --target=sm_90a --emit=ptx --knob num_waves=4 --ptxas=%ptxas --print-resources -o %t.p4.ptx | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v -o /dev/null %t.p4.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
// Checks that ptxas -arch=sm_90a accepts the three-stage ring GEMMs (plain
// at 4 and 8 warps, promoted at 4) without
// spills and without serializing its wgmmas (the accumulator stays in the
// instructions' registers across K steps while they are in flight), and
// that its shared memory is the three stages of A and B plus the three
// 8-byte mbarriers, which the allocator places after them:
// 3 * (64 * 64 + 64 * 128) + 3 * 8 = 36888 bytes, rounded up to 16.

// CHECK: "lds_bytes": 36896,
// CHECK: "spill_load_bytes": 0,
// CHECK: "spill_store_bytes": 0,

// PTXAS-NOT: serialized
// PTXAS: Used {{[0-9]+}} registers
// PTXAS-NOT: serialized
