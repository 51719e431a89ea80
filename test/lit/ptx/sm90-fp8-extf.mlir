// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that f8E4M3FN -> f32 extension becomes cvt.rn.f16x2.e4m3x2 (two
// values per instruction) and a widening from f16.

// CHECK-COUNT-2: cvt.rn.f16x2.e4m3x2
// CHECK: cvt.f32.f16

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %q: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %b = vector.load %q[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      %f8 = vector.bitcast %b : vector<4xi8> to vector<4xf8E4M3FN>
      %f = arith.extf %f8 : vector<4xf8E4M3FN> to vector<4xf32>
      vector.store %f, %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
