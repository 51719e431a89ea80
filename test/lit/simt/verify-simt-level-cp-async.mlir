// RUN: tessel-opt %s -split-input-file -verify-simt-level -verify-diagnostics
// Checks that the SIMT-level verifier accepts cp.async (nvgpu
// device_async_copy, nvvm cp.async commit/wait groups) on NVIDIA targets
// and rejects the same ops on AMD targets.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%g: memref<?xi8, #gpu.address_space<global>>, %i: index)
        workgroup(%l : memref<256xi8, #gpu.address_space<workgroup>>)
        kernel attributes {tessel.target = "sm_90"} {
      %t = nvgpu.device_async_copy %g[%i], %l[%i], 16 {bypassL1} : memref<?xi8, #gpu.address_space<global>> to memref<256xi8, #gpu.address_space<workgroup>>
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 0
      gpu.barrier
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%g: memref<?xi8, #gpu.address_space<global>>, %i: index)
        workgroup(%l : memref<256xi8, #gpu.address_space<workgroup>>)
        kernel attributes {tessel.target = "gfx942"} {
      // expected-error @+1 {{'nvgpu.device_async_copy' is not allowed in SIMT IR for AMD targets}}
      %t = nvgpu.device_async_copy %g[%i], %l[%i], 16 {bypassL1} : memref<?xi8, #gpu.address_space<global>> to memref<256xi8, #gpu.address_space<workgroup>>
      // expected-error @+1 {{'nvvm.cp.async.wait.group' is not allowed in SIMT IR for AMD targets}}
      nvvm.cp.async.wait.group 0
      gpu.return
    }
  }
}
