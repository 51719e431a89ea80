// RUN: tessel-translate %kernels/scaled_gemm_bf16.mlir --target=sm_90 --emit=ptx --knob num_waves=4 -o - | FileCheck %s --check-prefix=BF16
// RUN: tessel-translate %kernels/scaled_gemm_fp8.mlir --target=sm_90 --emit=ptx --knob num_waves=4 -o - | FileCheck %s --check-prefix=FP8
// Checks that the sm_90 GEMMs load their mma.sync operands one run of four
// consecutive K elements at a time (the 8-bit m16n8k32 fragment layout,
// used by the bf16 dot too): with 2x2 warps a lane holds 32 elements of A
// and 32 of B per K step, i.e. 16 loads per step, of 8 bytes for bf16 and
// 4 bytes for fp8, and no narrower ones in the loop.

// BF16: in Loop
// BF16-NOT: ld.global.b32
// BF16-NOT: ld.global.b16
// BF16-COUNT-16: ld.global.v2.b32
// BF16-NOT: ld.global
// BF16: %._crit_edge

// FP8: in Loop
// FP8-NOT: ld.global.b16
// FP8-NOT: ld.global.b8
// FP8-COUNT-16: ld.global.b32
// FP8-NOT: ld.global
// FP8: %._crit_edge
