// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.mfma 16x16x32 on f8E4M3FNUZ operands becomes
// v_mfma_f32_16x16x32_fp8_fp8 on gfx942.

// CHECK: v_mfma_f32_16x16x32_fp8_fp8

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %q: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %off = arith.muli %tid, %c8 : index
      %qb = vector.load %q[%off] : memref<?xi8, #gpu.address_space<global>>, vector<8xi8>
      %qf = vector.bitcast %qb : vector<8xi8> to vector<8xf8E4M3FNUZ>
      %acc = arith.constant dense<0.0> : vector<4xf32>
      %m = amdgpu.mfma 16x16x32 %qf * %qf + %acc blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
      %c4 = arith.constant 4 : index
      %o = arith.muli %tid, %c4 : index
      vector.store %m, %a[%o] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
