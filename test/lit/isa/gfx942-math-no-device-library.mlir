// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that f32 math that upstream lowers to ocml calls (exp2, log2, rsqrt,
// tanh, floor) compiles without a device library: native instructions, no
// calls.

// CHECK-LABEL: k:
// CHECK-NOT: s_swappc
// CHECK-DAG: v_exp_f32
// CHECK-DAG: v_log_f32
// CHECK-DAG: v_floor_f32
// CHECK: s_endpgm

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %0 = math.exp2 %x : f32
      %1 = math.log2 %0 : f32
      %2 = math.rsqrt %1 : f32
      %3 = math.tanh %2 : f32
      %4 = math.floor %3 : f32
      memref.store %4, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
