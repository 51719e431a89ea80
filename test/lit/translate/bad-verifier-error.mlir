// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that input failing an op verifier is rejected at the op's location.

// CHECK: bad-verifier-error.mlir:[[@LINE+6]]:{{[0-9]+}}: error: 'arith.addi' op requires the same type for all operands and results
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xi32, #gpu.address_space<global>>, %n: i64) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<?xi32, #gpu.address_space<global>>
      %y = "arith.addi"(%x, %n) : (i32, i64) -> i32
      memref.store %y, %a[%c0] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
