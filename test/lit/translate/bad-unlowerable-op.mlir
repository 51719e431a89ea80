// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that an op outside SIMT IR that the ROCDL conversion cannot lower
// (gpu.subgroup_reduce) is reported at its location, not a crash.

// CHECK: bad-unlowerable-op.mlir:[[@LINE+6]]:{{[0-9]+}}: error: failed to legalize operation 'gpu.subgroup_reduce'
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %r = gpu.subgroup_reduce add %x : (f32) -> f32
      memref.store %r, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
