// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that amdgpu.dpp on a vector operand (whose MLIR 22 verifier crashes)
// is reported at the op instead of crashing.

// CHECK: bad-dpp-vector-operand.mlir:[[@LINE+6]]:{{[0-9]+}}: error: amdgpu.dpp on a vector operand is not supported
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %a[%c0] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %d = amdgpu.dpp %v %v row_shr (1 : i32) : vector<4xf32>
      vector.store %d, %a[%c0] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
