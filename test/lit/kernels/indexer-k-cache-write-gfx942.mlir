// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks the K-cache writer on gfx942: one 16-byte load of k per lane, the
// per-token amax reduced over 16 lanes by DPP alone (quad permutations, then
// half-row and row mirrors), e4m3fnuz conversion by v_cvt_pk_fp8_f32, an
// 8-byte store of fp8 values per lane, wave64, and no scratch.

// CHECK-LABEL: indexer_k_cache_write:
// CHECK: global_load_dwordx4
// CHECK: quad_perm:[1,0,3,2]
// CHECK: quad_perm:[2,3,0,1]
// CHECK: row_half_mirror
// CHECK: row_mirror
// CHECK: v_cvt_pk_fp8_f32
// CHECK: global_store_dwordx2
// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .wavefront_size: 64
// CHECK: amdhsa.target: amdgcn-amd-amdhsa--gfx942
