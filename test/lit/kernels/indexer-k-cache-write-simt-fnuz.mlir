// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx942 --emit=simt -o - | FileCheck %s --check-prefix=FNUZ
// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx950 --emit=simt -o - | FileCheck %s --check-prefix=FN
// Checks that the target picks the fp8 format and its maximum: e4m3fnuz and
// 224 on gfx942, e4m3fn and 448 on gfx950; the other branch is gone.

// FNUZ: arith.constant dense<2.240000e+02>
// FNUZ: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf8E4M3FNUZ>
// FNUZ-NOT: f8E4M3FN>
// FN: arith.constant dense<4.480000e+02>
// FN: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf8E4M3FN>
// FN-NOT: f8E4M3FNUZ
