// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=gfx942 --emit=asm --knob num_waves=4 -o - | FileCheck %s
// Checks that the GEMM's f32 C tile leaves the (transposed) MFMA
// accumulator 16 bytes per lane at a time: 32x32 per wave is 4 stores of
// 4 consecutive columns, and no narrower stores.

// CHECK-NOT: global_store_dword{{ }}
// CHECK-COUNT-4: global_store_dwordx4
// CHECK-NOT: global_store
