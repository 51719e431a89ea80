// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that f32 -> f8E4M3FN truncation of a vector<4xf32> becomes two
// saturating cvt.rn.satfinite.e4m3x2.f32 conversions (one per pair).

// CHECK-COUNT-2: cvt.rn.satfinite.e4m3x2.f32
// CHECK-NOT: cvt.rn.satfinite.e4m3x2.f32

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %t = arith.truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
      %b = vector.bitcast %t : vector<4xf8E4M3FN> to vector<4xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      gpu.return
    }
  }
}
