// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a kernel with a loop, LDS and vector math needs no scratch at
// -O3: private segment size 0 in the descriptor and in the metadata.

// CHECK: .amdhsa_private_segment_fixed_size 0
// CHECK: .amdhsa_enable_private_segment 0
// CHECK: ; ScratchSize: 0
// CHECK: .private_segment_fixed_size: 0

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %z = arith.constant dense<0.0> : vector<4xf32>
      %acc = scf.for %i = %c0 to %c64 step %c1 iter_args(%s = %z) -> vector<4xf32> {
        %p = arith.addi %tid, %i : index
        %v = vector.load %a[%p] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
        %e = math.exp %v : vector<4xf32>
        %n = arith.addf %s, %e : vector<4xf32>
        scf.yield %n : vector<4xf32>
      }
      vector.store %acc, %a[%tid] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
