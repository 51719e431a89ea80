// RUN: not tessel-translate %s --target=gfx950 --emit=asm -o /dev/null 2>&1 | FileCheck %s
// Checks that SIMT IR distributed for gfx942 is not compiled for gfx950
// (its fp8 format and layouts differ); the error points at the kernel.

// CHECK: bad-target-mismatch.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kernel was distributed for target 'gfx942' but is being compiled for 'gfx950'

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>, %n: i32)
        workgroup(%lds: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %s = vector.reduction <add>, %v : vector<4xf32> into f32
      memref.store %s, %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = memref.load %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %rv = vector.broadcast %r : f32 to vector<4xf32>
      %t = arith.truncf %rv : vector<4xf32> to vector<4xf8E4M3FNUZ>
      %b = vector.bitcast %t : vector<4xf8E4M3FNUZ> to vector<4xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      gpu.return
    }
  }
}
