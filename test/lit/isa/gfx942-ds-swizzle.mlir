// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.swizzle_bitmode (xor lane 1) and rocdl.ds_swizzle become
// ds_swizzle_b32 in bit-mask mode.

// CHECK: ds_swizzle_b32 v{{[0-9]+}}, v{{[0-9]+}} offset:swizzle(BITMASK_PERM,"1111i")
// CHECK: ds_swizzle_b32 v{{[0-9]+}}, v{{[0-9]+}} offset:swizzle(BITMASK_PERM,"ppppp")

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %bits = arith.bitcast %x : f32 to i32
      %s = amdgpu.swizzle_bitmode %bits 1 0 31 : i32
      %pat = arith.constant 31 : i32
      %s2 = rocdl.ds_swizzle %s, %pat : (i32, i32) -> i32
      %f = arith.bitcast %s2 : i32 to f32
      memref.store %f, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
