// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx942 --knob=preshuffle=1 --emit=asm -o - | FileCheck %s
// Checks that the preshuffled layout keeps the fast path of the plain one:
// 16-byte loads of k and one 8-byte store of fp8 values per lane (the
// 8 values a lane holds stay inside one 16-byte run of the layout, which
// the vectorizer sees through the unsigned div/rem by 16), no byte stores,
// and no scratch.

// CHECK-LABEL: indexer_k_cache_write:
// CHECK: global_load_dwordx4
// CHECK-NOT: global_store_byte
// CHECK: v_cvt_pk_fp8_f32
// CHECK-NOT: global_store_byte
// CHECK: global_store_dwordx2
// CHECK-NOT: global_store_byte
// CHECK: .amdhsa_private_segment_fixed_size 0
