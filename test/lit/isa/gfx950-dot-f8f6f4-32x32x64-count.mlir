// RUN: tessel-translate %s --target=gfx950 --emit=asm --knob num_waves=4 -o - | FileCheck %s
// Checks that on gfx950 a 64x64 fp8 GEMM stepping K by 64 (a multiple of
// 64 but not of 128) takes the double-rate v_mfma_f32_32x32x64_f8f6f4 with
// the arithmetic minimum per K step, inside the K loop, and no fp8_fp8
// MFMA: (64/32) * (64/32) * (64/64) = 4 per program, 1 per wave with 2x2
// waves.

// CHECK-NOT: v_mfma
// CHECK: [[LOOP:\.LBB[0-9_]+]]:
// CHECK-NEXT: Loop Header
// CHECK-COUNT-1: v_mfma_f32_32x32x64_f8f6f4
// CHECK-NOT: v_mfma
// CHECK: s_cbranch_{{[a-z0-9]+}} [[LOOP]]
// CHECK-NOT: v_mfma

// C[m, n] = sum_k A[m, k] * B[n, k] for one 64x64 tile; A [64, K] and B
// [64, K] row-major e4m3fn, K a multiple of 64.
tile.kernel @gemm_k64(
    %a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %K: i32 {tile.divisibility = 64 : i64}) attributes {knobs = [
      #tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0 to 64 : tensor<64xi32>
  %r_1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tile.broadcast %r_1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %r_0 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tile.broadcast %r_0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %Kv = tile.splat %K : i32 -> tensor<64x64xi32>
  // A[m, k] at m * K + k; B [k, n] (B transposed) at n * K + k.
  %arow = arith.muli %rows, %Kv : tensor<64x64xi32>
  %aoff0 = arith.addi %arow, %cols : tensor<64x64xi32>
  %bcol = arith.muli %cols, %Kv : tensor<64x64xi32>
  %boff0 = arith.addi %bcol, %rows : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%d = %zero) -> (tensor<64x64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<64x64xi32>
    %aoff = arith.addi %aoff0, %ks : tensor<64x64xi32>
    %boff = arith.addi %boff0, %ks : tensor<64x64xi32>
    %a8 = tile.load %a[%aoff] : !tile.ptr<i8>, tensor<64x64xi32> -> tensor<64x64xi8>
    %b8 = tile.load %b[%boff] : !tile.ptr<i8>, tensor<64x64xi32> -> tensor<64x64xi8>
    %av = arith.bitcast %a8 : tensor<64x64xi8> to tensor<64x64xf8E4M3FN>
    %bv = arith.bitcast %b8 : tensor<64x64xi8> to tensor<64x64xf8E4M3FN>
    %next = tile.dot %av, %bv, %d : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %c64v = tile.splat %c64 : i32 -> tensor<64x64xi32>
  %crow = arith.muli %rows, %c64v : tensor<64x64xi32>
  %coff = arith.addi %crow, %cols : tensor<64x64xi32>
  tile.store %acc, %c[%coff] : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
}
