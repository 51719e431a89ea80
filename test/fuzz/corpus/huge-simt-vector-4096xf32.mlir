// Fuzzer failure: timeout on --target=gfx942 --emit=hsaco
// from test/lit/translate/resource-json-amd.mlir#0, mutant 104 of seed 2 (shape_all)
// no result within the timeout


module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>, %n: i32)
        workgroup(%lds: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4096 : index
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4096xf32>
      %s = vector.reduction <add>, %v : vector<4096xf32> into f32
      memref.store %s, %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = memref.load %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %rv = vector.broadcast %r : f32 to vector<4096xf32>
      %t = arith.truncf %rv : vector<4096xf32> to vector<4096xf8E4M3FNUZ>
      %b = vector.bitcast %t : vector<4096xf8E4M3FNUZ> to vector<4096xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4096xi8>
      gpu.return
    }
  }
}
