// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks the K-cache writer on gfx950 end to end: 16-byte loads of k,
// packed fp8 conversion, and no scratch.

// CHECK-LABEL: indexer_k_cache_write:
// CHECK: global_load_dwordx4
// CHECK: v_cvt_pk_fp8_f32
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: ; ScratchSize: 0
// CHECK: amdhsa.target: amdgcn-amd-amdhsa--gfx950
