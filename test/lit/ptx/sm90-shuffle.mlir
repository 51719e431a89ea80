// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that gpu.shuffle xor/up/down/idx become shfl.sync with the full
// warp mask.

// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-DAG: shfl.sync.up.b32 {{.*}}, 1, 0, -1;
// CHECK-DAG: shfl.sync.down.b32 {{.*}}, 2, 31, -1;
// CHECK-DAG: shfl.sync.idx.b32 {{.*}}, 31, -1;

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      %w = arith.constant 32 : i32
      %c16 = arith.constant 16 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c5 = arith.constant 5 : i32
      %s0, %v0 = gpu.shuffle xor %x, %c16, %w : f32
      %s1, %v1 = gpu.shuffle up %s0, %c1, %w : f32
      %s2, %v2 = gpu.shuffle down %s1, %c2, %w : f32
      %s3, %v3 = gpu.shuffle idx %s2, %c5, %w : f32
      memref.store %s3, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
