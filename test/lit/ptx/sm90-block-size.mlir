// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that known_block_size reaches the PTX entry as the exact thread
// count (.reqntid; Tessel always launches that many), not only a bound.

// CHECK: .entry k(
// CHECK-NOT: .maxntid
// CHECK: .reqntid 128, 1, 1
// CHECK-NOT: .maxntid

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
