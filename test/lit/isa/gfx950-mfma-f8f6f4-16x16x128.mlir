// RUN: tessel-translate %s --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks that amdgpu.mfma 16x16x128 on vector<32xf8E4M3FN> operands becomes
// one v_mfma_f32_16x16x128_f8f6f4 on gfx950 (gfx950's double-rate fp8,
// through rocdl.mfma.scale with neutral scales).

// CHECK: v_mfma_f32_16x16x128_f8f6f4
// CHECK-NOT: v_mfma

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%d: memref<?xf32, #gpu.address_space<global>>, %q: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx950"} {
      %tid = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %off = arith.muli %tid, %c32 : index
      %qb = vector.load %q[%off] : memref<?xi8, #gpu.address_space<global>>, vector<32xi8>
      %qf = vector.bitcast %qb : vector<32xi8> to vector<32xf8E4M3FN>
      %acc = arith.constant dense<0.0> : vector<4xf32>
      %m = amdgpu.mfma 16x16x128 %qf * %qf + %acc {blocks = 1 : i32, cbsz = 0 : i32, abid = 0 : i32} blgp = none : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
      %cl = arith.constant 4 : index
      %o = arith.muli %tid, %cl : index
      vector.store %m, %d[%o] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
