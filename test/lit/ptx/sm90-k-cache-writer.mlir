// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks the K-cache writer on sm_90 end to end: e4m3 conversion by the
// saturating cvt, and no local-memory (stack) use.

// CHECK: .visible .entry indexer_k_cache_write(
// CHECK-NOT: .local
// CHECK: cvt.rn.satfinite.e4m3x2.f32
