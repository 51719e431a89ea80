// RUN: tessel-translate %s --target=gfx942 --emit=hsaco -o %t.hsaco --print-resources | FileCheck %s
// Checks that several gpu.modules are linked into one code object that holds
// every kernel.

// CHECK-DAG: "name": "first"
// CHECK-DAG: "name": "second"

module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @first(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @second(%a: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xi32, #gpu.address_space<global>>
      %y = arith.addi %x, %x : i32
      memref.store %y, %a[%tid] : memref<?xi32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
