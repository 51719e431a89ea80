// RUN: not tessel-translate %s --target=gfx942 --emit=hsaco -o /dev/null 2>&1 | FileCheck %s
// Checks that two gpu.modules defining the same kernel symbol cannot be
// linked into one code object, and the error names the second module.

// CHECK: bad-duplicate-kernel.mlir:[[@LINE+10]]:{{[0-9]+}}: error: cannot link gpu.module 'b' with the others: {{.*}}'k'
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      memref.store %x, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      memref.store %x, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
