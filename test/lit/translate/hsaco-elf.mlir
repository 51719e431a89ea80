// RUN: tessel-translate %s --target=gfx950 --emit=hsaco -o %t.hsaco
// RUN: llvm-readelf -h --notes %t.hsaco | FileCheck %s
// Checks that --emit=hsaco writes a linked AMDGPU shared object whose
// metadata note names the gfx950 target and the kernel.

// CHECK: OS/ABI: AMDGPU - HSA
// CHECK: Type: DYN (Shared object file)
// CHECK: Machine: EM_AMDGPU
// CHECK: AMDGPU {{.*}}NT_AMDGPU_METADATA
// CHECK: .name: k
// CHECK: amdhsa.target: amdgcn-amd-amdhsa--gfx950

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>, %n: i32)
        workgroup(%lds: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessel.target = "gfx950"} {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %s = vector.reduction <add>, %v : vector<4xf32> into f32
      memref.store %s, %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = memref.load %lds[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      %rv = vector.broadcast %r : f32 to vector<4xf32>
      %t = arith.truncf %rv : vector<4xf32> to vector<4xf8E4M3FN>
      %b = vector.bitcast %t : vector<4xf8E4M3FN> to vector<4xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
      gpu.return
    }
  }
}
