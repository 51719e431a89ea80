// RUN: not tessel-translate %s --target=gfx942 --emit=hsaco -o /dev/null 2>&1 | FileCheck %s
// RUN: not tessel-opt %s 2>&1 | FileCheck %s
// Checks that a dense array of index elements, on which MLIR 22's parser
// crashes, is reported at its location before parsing.

// CHECK: bad-index-dense-array.mlir:[[@LINE+3]]:102: error: dense arrays of 'index' are not supported
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<index: 64, 1, 1>} {
      gpu.return
    }
  }
}
