// RUN: tessel-opt %kernels/scaled_gemm_fp8.mlir -tile-specialize-knobs="target=sm_90a knobs=num_waves=4" -canonicalize -tile-assign-layouts=target=sm_90a | FileCheck %s --check-prefix=W4
// RUN: tessel-opt %kernels/scaled_gemm_fp8.mlir -tile-specialize-knobs="target=sm_90a knobs=num_waves=8" -canonicalize -tile-assign-layouts=target=sm_90a | FileCheck %s --check-prefix=W8
// RUN: tessel-opt %kernels/scaled_gemm_fp8.mlir -tile-specialize-knobs="target=gfx950 knobs=num_waves=4" -canonicalize -tile-assign-layouts=target=gfx950 | FileCheck %s --check-prefix=AMD
// Checks the wgmma accumulator sm_90a's planner gives the scaled fp8 GEMM's
// 64x64x32 dot: one warpgroup (4 warps) takes m64n64k32; two warpgroups
// cannot split the one 64-row tile along M, so N narrows to 32 and they
// split N. AMD keeps its MFMA plan.

// W4: tile.dot {{.*}} -> tensor<64x64xf32, #tile.nv_mma<{version = 3, instrShape = [64, 64, 32], wavesPerCTA = [4, 1]}>>
// W8: tile.dot {{.*}} -> tensor<64x64xf32, #tile.nv_mma<{version = 3, instrShape = [64, 32, 32], wavesPerCTA = [4, 2]}>>
// AMD: tile.dot {{.*}}#tile.dot_operand{{.*}} -> tensor<64x64xf32, #tile.mfma<
