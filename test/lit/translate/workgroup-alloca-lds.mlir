// RUN: tessel-translate %s --target=gfx942 --emit=hsaco -o %t.hsaco --print-resources | FileCheck %s --check-prefix=AMD
// RUN: tessel-translate %s --target=sm_90 --emit=ptx --ptxas=none -o %t.ptx --print-resources | FileCheck %s --check-prefix=NV
// Checks that LDS allocated with memref.alloca in the workgroup address space
// becomes group-segment / shared memory (512 f32 = 2048 bytes), not scratch.

// AMD: "lds_bytes": 2048
// AMD: "scratch_bytes": 0
// NV: "lds_bytes": 2048

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %lds = memref.alloca() : memref<512xf32, #gpu.address_space<workgroup>>
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      memref.store %x, %lds[%tid] : memref<512xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %y = memref.load %lds[%c0] : memref<512xf32, #gpu.address_space<workgroup>>
      memref.store %y, %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
