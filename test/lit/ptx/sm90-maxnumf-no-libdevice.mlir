// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that arith.maxnumf and arith.minnumf on f32, which the NVVM
// conversion turns into libdevice's fmaxf/fminf, compile without libdevice:
// to max.f32 and min.f32, with no call left.

// CHECK-NOT: call
// CHECK-DAG: max.f32
// CHECK-DAG: min.f32
// CHECK-NOT: call

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %zero = arith.constant 0.0 : f32
      %six = arith.constant 6.0 : f32
      %0 = arith.maxnumf %x, %zero : f32
      %1 = arith.minnumf %0, %six : f32
      memref.store %1, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
