// sm_90 kernels for BackendGpuFp8Check: f32 -> e4m3fn (arith.truncf) and
// e4m3fn -> f32 (arith.extf), four values per lane.
module attributes {gpu.container_module} {
  gpu.module @trunc {
    gpu.func @trunc(%a: memref<?xf32, #gpu.address_space<global>>,
                    %o: memref<?xi8, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c4 = arith.constant 4 : index
      %g = arith.muli %bid, %c64 : index
      %t = arith.addi %g, %tid : index
      %i = arith.muli %t, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %q = arith.truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
      %b = vector.bitcast %q : vector<4xf8E4M3FN> to vector<4xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      gpu.return
    }
  }
  gpu.module @ext {
    gpu.func @ext(%q: memref<?xi8, #gpu.address_space<global>>,
                  %f: memref<?xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %b = vector.load %q[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      %f8 = vector.bitcast %b : vector<4xi8> to vector<4xf8E4M3FN>
      %e = arith.extf %f8 : vector<4xf8E4M3FN> to vector<4xf32>
      vector.store %e, %f[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}
