// RUN: tessel-translate %s --target=gfx942 --emit=llvm -o - | FileCheck %s --check-prefix=FNUZ
// RUN: sed s/f8E4M3FNUZ/f8E4M3FN/g %s | sed s/gfx942/gfx950/ | tessel-translate - --target=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=FN
// Checks that fp8 truncation on AMD clamps to the format's largest finite
// value with NaN-propagating max/min before converting, so +-Inf saturate to
// +-240 (e4m3fnuz) or +-448 (e4m3fn) as SIMT IR specifies, like sm_90's
// satfinite, instead of becoming NaN.

// FNUZ: call <2 x float> @llvm.maximum.v2f32(<2 x float> %{{.*}}, <2 x float> splat (float -2.400000e+02))
// FNUZ: call <2 x float> @llvm.minimum.v2f32(<2 x float> %{{.*}}, <2 x float> splat (float 2.400000e+02))
// FNUZ: @llvm.amdgcn.cvt.pk.fp8.f32
// FN: call <2 x float> @llvm.maximum.v2f32(<2 x float> %{{.*}}, <2 x float> splat (float -4.480000e+02))
// FN: call <2 x float> @llvm.minimum.v2f32(<2 x float> %{{.*}}, <2 x float> splat (float 4.480000e+02))
// FN: @llvm.amdgcn.cvt.pk.fp8.f32
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xi8, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx942"} {
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %i = arith.muli %tid, %c2 : index
      %v = vector.load %a[%i] : memref<?xf32, #gpu.address_space<global>>, vector<2xf32>
      %t = arith.truncf %v : vector<2xf32> to vector<2xf8E4M3FNUZ>
      %b = vector.bitcast %t : vector<2xf8E4M3FNUZ> to vector<2xi8>
      vector.store %b, %o[%i] : memref<?xi8, #gpu.address_space<global>>, vector<2xi8>
      gpu.return
    }
  }
}
