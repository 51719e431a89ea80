// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks the launch ABI: each memref is five parameters (allocated pointer,
// aligned pointer, offset, size, stride), then scalars in order.

// CHECK: .entry k(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 k_param_0,
// CHECK-NEXT: .param .u64 .ptr .global .align 1 k_param_1,
// CHECK-NEXT: .param .u64 k_param_2,
// CHECK-NEXT: .param .u64 k_param_3,
// CHECK-NEXT: .param .u64 k_param_4,
// CHECK-NEXT: .param .u32 k_param_5,
// CHECK-NEXT: .param .f32 k_param_6
// CHECK-NEXT: )

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %n: i32, %f: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %y = arith.sitofp %n : i32 to f32
      %z = arith.addf %y, %f : f32
      memref.store %z, %a[%c0] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
