// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.dpp row_shr(1) becomes a DPP move with row_shr:1.

// CHECK: v_mov_b32_dpp v{{[0-9]+}}, v{{[0-9]+}} row_shr:1 row_mask:0xf bank_mask:0xf

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %d = amdgpu.dpp %x %x row_shr (1 : i32) : f32
      memref.store %d, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
