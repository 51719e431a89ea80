// RUN: not tessel-translate %kernels/indexer_k_cache_write.mlir --target=gfx942 --emit=hsaco --knob tokens_per_program=5 -o %t.hsaco 2>&1 | FileCheck %s
// RUN: not test -e %t.hsaco
// Checks that a knob value the kernel does not allow fails the tile lowering
// with a located error and leaves no output file behind.

// CHECK: indexer_k_cache_write.mlir:{{[0-9]+}}:{{[0-9]+}}: error: knob 'tokens_per_program'
