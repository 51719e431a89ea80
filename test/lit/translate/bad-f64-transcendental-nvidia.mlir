// RUN: not tessel-translate %s --target=sm_90 --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// Checks that f64 exp on NVIDIA is reported by name (no libdevice), not an
// abort in the NVPTX back end.

// CHECK: error: the kernel calls external function(s) __nv_exp that Tessel does not provide

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf64, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "sm_90"} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<?xf64, #gpu.address_space<global>>
      %e = math.exp %x : f64
      memref.store %e, %a[%tid] : memref<?xf64, #gpu.address_space<global>>
      gpu.return
    }
  }
}
