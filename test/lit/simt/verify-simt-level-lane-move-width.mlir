// RUN: tessel-opt %s -split-input-file -verify-simt-level -verify-diagnostics
// Checks that the SIMT-level verifier rejects lane moves of anything but one
// 32-bit scalar per lane (an i64 DPP or shuffle, a vector swizzle), which
// tile-to-simt splits into 32-bit words, and accepts 32-bit ones.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: i64) kernel attributes {tessel.target = "gfx942"} {
      // expected-error @+1 {{'amdgpu.dpp' moves 'i64' across lanes; lane moves carry 32-bit scalars (move wider values word by word)}}
      %d = amdgpu.dpp %v %v row_shr(1 : i32) : i64
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: f64) kernel attributes {tessel.target = "sm_90a"} {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{'gpu.shuffle' moves 'f64' across lanes}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c32 : f64
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: vector<2xi32>) kernel attributes {tessel.target = "gfx950"} {
      // expected-error @+1 {{'amdgpu.swizzle_bitmode' moves 'vector<2xi32>' across lanes}}
      %s = amdgpu.swizzle_bitmode %v 31 0 16 : vector<2xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: i32, %f: f32) kernel attributes {tessel.target = "gfx950"} {
      %d = amdgpu.dpp %v %v row_shr(1 : i32) : i32
      %p = amdgpu.permlane_swap %f 32 : f32
      gpu.return
    }
  }
}
