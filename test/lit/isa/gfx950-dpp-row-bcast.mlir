// RUN: tessel-translate %s --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.dpp row_bcast_15 with row_mask 0xa reaches gfx950 ISA as
// row_bcast:15 row_mask:0xa.

// CHECK: v_mov_b32_dpp v{{[0-9]+}}, v{{[0-9]+}} row_bcast:15 row_mask:0xa bank_mask:0xf

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx950"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %d = amdgpu.dpp %x %x row_bcast_15 {row_mask = 0xa : i32} : f32
      memref.store %d, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
