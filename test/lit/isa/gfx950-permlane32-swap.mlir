// RUN: tessel-translate %s --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.permlane_swap with row length 32 (gfx950 only) becomes
// v_permlane32_swap_b32.

// CHECK: v_permlane32_swap_b32

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx950"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xi32, #gpu.address_space<global>>
      %p = amdgpu.permlane_swap %x 32 : i32
      memref.store %p, %a[%tid] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
