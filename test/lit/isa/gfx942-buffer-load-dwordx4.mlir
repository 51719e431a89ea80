// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a per-lane vector<4xi32> amdgpu.raw_buffer_load (hardware
// bounds-checked) becomes one buffer_load_dwordx4 with a VGPR offset.

// CHECK-LABEL: k:
// CHECK: buffer_load_dwordx4 v[{{[0-9]+}}:{{[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}], 0 offen

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xi32, #gpu.address_space<global>>, %o: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c4 = arith.constant 4 : i32
      %i = arith.muli %t, %c4 : i32
      %v = amdgpu.raw_buffer_load %a[%i] : memref<?xi32, #gpu.address_space<global>>, i32 -> vector<4xi32>
      %c4i = arith.constant 4 : index
      %j = arith.muli %tid, %c4i : index
      vector.store %v, %o[%j] : memref<?xi32, #gpu.address_space<global>>, vector<4xi32>
      gpu.return
    }
  }
}
