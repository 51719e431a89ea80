// RUN: tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx950 --emit=simt -o - | FileCheck %s
// Checks that --emit=simt on tile IR prints the distributed SIMT IR: a
// gpu.module holding a kernel built for the requested target, no tile ops.

// CHECK: gpu.module @indexer_k_cache_write
// CHECK: gpu.func @indexer_k_cache_write(
// CHECK-SAME: tessel.target = "gfx950"
// CHECK-NOT: tile.kernel
