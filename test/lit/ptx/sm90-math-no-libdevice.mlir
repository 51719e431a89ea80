// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that f32 math which upstream lowers to libdevice calls compiles
// without libdevice: ex2/lg2/sqrt instructions and no calls.

// CHECK-NOT: call
// CHECK-DAG: ex2.approx.f32
// CHECK-DAG: lg2.approx.f32
// CHECK-DAG: sqrt.rn.f32
// CHECK-NOT: call

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %0 = math.exp %x : f32
      %1 = math.log %0 : f32
      %2 = math.sqrt %1 : f32
      %3 = math.tanh %2 : f32
      memref.store %3, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
