// RUN: not tessel-translate %s --target=gfx942 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that a dynamically sized workgroup alloca (LDS must be sized at
// compile time) is rejected at the op.

// CHECK: bad-dynamic-workgroup-alloca.mlir:[[@LINE+6]]:{{[0-9]+}}: error: workgroup memref.alloca needs a static shape
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %n: index) kernel {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %lds = memref.alloca(%n) : memref<?xf32, #gpu.address_space<workgroup>>
      memref.store %x, %lds[%tid] : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
