// RUN: tessel-translate %s --target=sm_90 --emit=ptx --ptxas=none -o %t.ptx --print-resources | FileCheck %s
// Checks the resources read from PTX text: the workgroup buffer of 64 f32
// (256 bytes of shared memory), 32-wide warps, block 128, 11 parameters
// (84 bytes), and no register count without ptxas.

// CHECK: "format": "ptx"
// CHECK-NOT: "registers"
// CHECK: "kernarg_segment_size": 84
// CHECK: "lds_bytes": 256
// CHECK: "max_flat_workgroup_size": 128
// CHECK: "wavefront_size": 32
// CHECK: "ptx_version": "8.4"
// CHECK: "target": "sm_90"

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>, %n: i32) workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf32, #gpu.address_space<global>>
      memref.store %x, %lds[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %y = memref.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %t = arith.truncf %y : f32 to f8E4M3FN
      %b = arith.bitcast %t : f8E4M3FN to i8
      memref.store %b, %o[%tid] : memref<?xi8, #gpu.address_space<global>>
      gpu.return
    }
  }
}
