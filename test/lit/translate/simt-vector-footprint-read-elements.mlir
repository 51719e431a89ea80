// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that the back end's footprint check counts only the elements of a
// vector that are read: a vector<512xi64> (1024 registers if whole) of
// which two elements are extracted, through an elementwise add, compiles;
// and a splat constant of that size (immediates) costs nothing.

// CHECK: .entry k(
// CHECK: ld.global
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xi64, #gpu.address_space<global>>, %x: i64) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %big = arith.constant dense<128> : vector<512xi64>
      %b = vector.broadcast %x : i64 to vector<512xi64>
      %s = arith.addi %b, %big : vector<512xi64>
      %e0 = vector.extract %s[0] : i64 from vector<512xi64>
      %e1 = vector.extract %s[300] : i64 from vector<512xi64>
      %i0 = arith.index_cast %e0 : i64 to index
      %v = memref.load %a[%i0] : memref<?xi64, #gpu.address_space<global>>
      %w = arith.addi %v, %e1 : i64
      memref.store %w, %a[%c0] : memref<?xi64, #gpu.address_space<global>>
      gpu.return
    }
  }
}
