// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx950 -tile-assign-layouts=target=gfx950 -convert-tile-to-simt=target=gfx950 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a [16, 256] x [256, 16] fp8 tile.dot on one gfx950 wave runs
// as two chained amdgpu.mfma 16x16x128 (K = 256 / 128), each fed from its
// own 32 operand registers per lane (the two runs of 16 K of one K tile:
// slots 0-31, then 32-63) with no data moved between lanes, and that each
// lane loads its 64 bytes of A and of B as four 16-byte loads. The
// accumulator is transposed, so B is the instruction's first operand.

// CHECK-COUNT-4: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?xi8, #gpu.address_space<global>>, vector<16xi8>
// CHECK: %[[AI:.*]] = vector.from_elements {{.*}} : vector<64xi8>
// CHECK-COUNT-4: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<?xi8, #gpu.address_space<global>>, vector<16xi8>
// CHECK: %[[BI:.*]] = vector.from_elements {{.*}} : vector<64xi8>
// CHECK: %[[A:.*]] = arith.bitcast %[[AI]] : vector<64xi8> to vector<64xf8E4M3FN>
// CHECK: %[[B:.*]] = arith.bitcast %[[BI]] : vector<64xi8> to vector<64xf8E4M3FN>
// CHECK-DAG: %[[A0:.*]] = vector.extract_strided_slice %[[A]] {offsets = [0], sizes = [32], strides = [1]}
// CHECK-DAG: %[[B0:.*]] = vector.extract_strided_slice %[[B]] {offsets = [0], sizes = [32], strides = [1]}
// CHECK: %[[D0:.*]] = amdgpu.mfma 16x16x128 %[[B0]] * %[[A0]] + %{{.*}} : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
// CHECK-DAG: %[[A1:.*]] = vector.extract_strided_slice %[[A]] {offsets = [32], sizes = [32], strides = [1]}
// CHECK-DAG: %[[B1:.*]] = vector.extract_strided_slice %[[B]] {offsets = [32], sizes = [32], strides = [1]}
// CHECK: amdgpu.mfma 16x16x128 %[[B1]] * %[[A1]] + %[[D0]] {{.*}}: vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
tile.kernel @dot_k256(%a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                      %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 1>]} {
  // A [16, 256] and B^T [16, 256], both row-major.
  %r = tile.range 0 to 16 : tensor<16xi32>
  %k = tile.range 0 to 256 : tensor<256xi32>
  %c256 = arith.constant 256 : i32
  %s = tile.splat %c256 : i32 -> tensor<16x256xi32>
  %r_1 = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rows = tile.broadcast %r_1 : tensor<16x1xi32> -> tensor<16x256xi32>
  %k_0 = tile.expand_dims %k, 0 : tensor<256xi32> -> tensor<1x256xi32>
  %ks = tile.broadcast %k_0 : tensor<1x256xi32> -> tensor<16x256xi32>
  %rs = arith.muli %rows, %s : tensor<16x256xi32>
  %aoff = arith.addi %rs, %ks : tensor<16x256xi32>
  %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<16x256xi32> -> tensor<16x256xi8>
  // B [k, n] at n * 256 + k.
  %k_1 = tile.expand_dims %k, 1 : tensor<256xi32> -> tensor<256x1xi32>
  %bk = tile.broadcast %k_1 : tensor<256x1xi32> -> tensor<256x16xi32>
  %r_0b = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %bn = tile.broadcast %r_0b : tensor<1x16xi32> -> tensor<256x16xi32>
  %sb = tile.splat %c256 : i32 -> tensor<256x16xi32>
  %bns = arith.muli %bn, %sb : tensor<256x16xi32>
  %boff = arith.addi %bns, %bk : tensor<256x16xi32>
  %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<256x16xi32> -> tensor<256x16xi8>
  %av = arith.bitcast %a8 : tensor<16x256xi8> to tensor<16x256xf8E4M3FN>
  %bv = arith.bitcast %b8 : tensor<256x16xi8> to tensor<256x16xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %av, %bv, %zero : tensor<16x256xf8E4M3FN>, tensor<256x16xf8E4M3FN> -> tensor<16x16xf32>
  %c16 = arith.constant 16 : i32
  %s16 = tile.splat %c16 : i32 -> tensor<16x16xi32>
  %r16 = tile.broadcast %r_1 : tensor<16x1xi32> -> tensor<16x16xi32>
  %r_0 = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %c16v = tile.broadcast %r_0 : tensor<1x16xi32> -> tensor<16x16xi32>
  %cr = arith.muli %r16, %s16 : tensor<16x16xi32>
  %coff = arith.addi %cr, %c16v : tensor<16x16xi32>
  tile.store %d, %c[%coff] : tensor<16x16xf32>, !tile.ptr<f32>, tensor<16x16xi32>
  tile.return
}
