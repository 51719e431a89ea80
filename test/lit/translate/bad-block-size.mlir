// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that a workgroup larger than the target allows is rejected at the
// kernel.

// CHECK: error: known_block_size has 2048 threads; target 'gfx942' allows at most 1024

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 2048, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
