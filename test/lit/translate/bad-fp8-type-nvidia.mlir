// RUN: not tessel-translate %s --target=sm_90 --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// Checks that the gfx942-only fp8 format (e4m3fnuz) is rejected on NVIDIA
// with a located error.

// CHECK: bad-fp8-type-nvidia.mlir:{{[0-9]+}}:{{[0-9]+}}: error: fp8 type 'f8E4M3FNUZ' is not supported on NVIDIA targets

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %t = arith.truncf %v : vector<4xf32> to vector<4xf8E4M3FNUZ>
      %b = vector.bitcast %t : vector<4xf8E4M3FNUZ> to vector<4xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      gpu.return
    }
  }
}
