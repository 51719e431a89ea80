// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx942 --emit=llvm --knob waves_per_eu=4 -o - | FileCheck %s
// Checks that tile IR input is lowered to SIMT IR first and that the
// waves_per_eu knob given on the command line reaches the LLVM function.

// CHECK: define amdgpu_kernel void @indexer_k_cache_write(
// CHECK: "amdgpu-waves-per-eu"="4"
