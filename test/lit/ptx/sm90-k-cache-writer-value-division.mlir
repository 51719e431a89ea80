// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks that the writer divides the values by their token's scale without
// an IEEE division per value: one division (amax by fp8_max) and one
// reciprocal for the lane's token, then a product corrected by two fmas
// per value (each lane holds 16 values of one token with the default knobs).

// CHECK: .visible .entry indexer_k_cache_write(
// CHECK-COUNT-2: {{(div|rcp)}}.rn.f32
// CHECK-NOT: {{(div|rcp)}}.rn.f32
// CHECK-COUNT-32: fma.rn.f32
