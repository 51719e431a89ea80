// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that sm_90 PTX declares PTX ISA 8.4 (from +ptx84), target sm_90 and
// 64-bit addressing.

// CHECK: .version 8.4
// CHECK: .target sm_90{{$}}
// CHECK: .address_size 64
// CHECK: .visible .entry k(

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
