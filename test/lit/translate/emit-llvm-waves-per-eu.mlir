// RUN: tessel-translate %s --target=gfx942 --emit=llvm -o - | FileCheck %s
// Checks that tessel.waves_per_eu and known_block_size become the AMDGPU
// function attributes amdgpu-waves-per-eu and amdgpu-flat-work-group-size.

// CHECK: define amdgpu_kernel void @k({{.*}}) {{.*}}#[[ATTRS:[0-9]+]]
// CHECK: attributes #[[ATTRS]] = {{{.*}}"amdgpu-flat-work-group-size"="256,256"{{.*}}"amdgpu-waves-per-eu"="2"

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>, %n: i32)
        workgroup(%lds: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessel.target = "gfx942", tessel.waves_per_eu = 2 : i32} {
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
