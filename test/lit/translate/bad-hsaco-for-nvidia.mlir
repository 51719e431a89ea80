// RUN: not tessel-translate %s --target=sm_90 --emit=hsaco -o /dev/null 2>&1 | FileCheck %s
// Checks that an hsaco cannot be requested for an NVIDIA target.

// CHECK: error: --emit=hsaco needs an AMD target, not 'sm_90'

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
