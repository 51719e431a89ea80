// RUN: tessel-opt %s -split-input-file -verify-simt-level -verify-diagnostics
// Checks that the SIMT-level verifier rejects ops outside SIMT IR: tile ops
// and the other vendor's cross-lane ops.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel attributes {tessel.target = "gfx942"} {
      // expected-error @+1 {{'tile.range' is not allowed in SIMT IR for AMD targets}}
      %r = tile.range 0 to 4 : tensor<4xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: i32) kernel attributes {tessel.target = "gfx950"} {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{'gpu.shuffle' is not allowed in SIMT IR for AMD targets}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c32 : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: f32) kernel attributes {tessel.target = "sm_90"} {
      // expected-error @+1 {{'amdgpu.dpp' is not allowed in SIMT IR for NVIDIA targets}}
      %d = amdgpu.dpp %v %v row_shr(1 : i32) : f32
      gpu.return
    }
  }
}
