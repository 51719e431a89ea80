// Scaled fp8 GEMM with K steps of 128: C[m, n] = (sum_k A[m, k] * B[n, k])
// * sa[m] * sb[n].
//
// The same computation, arguments and masking as scaled_gemm_fp8.mlir, with
// [64, 128] and [128, 64] operand tiles per step of the K loop instead of
// [64, 32] and [32, 64]. A step of 128 lets gfx950 use its double-rate
// v_mfma_f32_16x16x128_f8f6f4 (one instruction per 16x16 tile of C and
// step); gfx942 runs the step as four v_mfma_f32_16x16x32_fp8_fp8 per tile.
// On gfx950 each lane loads 16 consecutive k of a row of A (and of B) at a
// time: the f8f6f4 operands hold two runs of 16 per lane, 64 apart.
//
// A is [M, K] and B is [N, K], both row-major fp8 (e4m3fnuz on gfx942,
// e4m3fn elsewhere: the `fp8_fnuz` knob is bound from the target); sa, sb
// and C (row-major [M, N]) are f32. Program (i, j) of the 2-D grid computes
// the 64x64 tile of C at rows 64*i and columns 64*j. Rows, columns and k
// beyond M, N and K are masked (A and B read 0 there).
//
// The runtime guarantees the promises in `tile.divisibility`: 16-byte
// aligned buffers and M, N, K multiples of 16.
tile.kernel @scaled_gemm_fp8_k128(
    %a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %sa: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %sb: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %M: i32 {tile.divisibility = 16 : i64},
    %N: i32 {tile.divisibility = 16 : i64},
    %K: i32 {tile.divisibility = 16 : i64}) attributes {knobs = [
      #tile.knob<"fp8_fnuz" : i1>,
      #tile.knob<"num_waves" : i32 = 4, values = [1, 2, 4, 8]>]} {
  %fnuz = tile.knob "fp8_fnuz" : i1
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %m0 = arith.muli %c64, %pm : i32
  %pn = tile.program_id 1 : i32
  %n0 = arith.muli %c64, %pn : i32
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %Nv = tile.splat %N : i32 -> tensor<64xi32>
  %Ka = tile.splat %K : i32 -> tensor<64x128xi32>
  %Kb = tile.splat %K : i32 -> tensor<128x64xi32>

  // Rows of C and of A, columns of C and rows of B.
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %m0v = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %m0v, %r64 : tensor<64xi32>
  %n0v = tile.splat %n0 : i32 -> tensor<64xi32>
  %cols = arith.addi %n0v, %r64 : tensor<64xi32>
  %rowOk = arith.cmpi slt, %rows, %Mv : tensor<64xi32>
  %colOk = arith.cmpi slt, %cols, %Nv : tensor<64xi32>
  %kr = tile.range 0 to 128 : tensor<128xi32>

  // A tile [64, 128]: rows * K + k.
  %rows_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %arow_1 = tile.broadcast %rows_1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %arow = arith.muli %arow_1, %Ka : tensor<64x128xi32>
  %ak_1 = tile.expand_dims %kr, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak_1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %aoff0 = arith.addi %arow, %ak : tensor<64x128xi32>
  %arowOk_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %arowOk = tile.broadcast %arowOk_1 : tensor<64x1xi1> -> tensor<64x128xi1>

  // B tile [128, 64] (B transposed): cols * K + k.
  %cols_1 = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bcol_1 = tile.broadcast %cols_1 : tensor<1x64xi32> -> tensor<128x64xi32>
  %bcol = arith.muli %bcol_1, %Kb : tensor<128x64xi32>
  %bk_1 = tile.expand_dims %kr, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk_1 : tensor<128x1xi32> -> tensor<128x64xi32>
  %boff0 = arith.addi %bcol, %bk : tensor<128x64xi32>
  %bcolOk_1 = tile.expand_dims %colOk, 0 : tensor<64xi1> -> tensor<1x64xi1>
  %bcolOk = tile.broadcast %bcolOk_1 : tensor<1x64xi1> -> tensor<128x64xi1>

  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%d = %zero) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k : i32 -> tensor<64x128xi32>
    %aoff = arith.addi %aoff0, %ka : tensor<64x128xi32>
    %akk = arith.addi %ak, %ka : tensor<64x128xi32>
    %akOk = arith.cmpi slt, %akk, %Ka : tensor<64x128xi32>
    %amask = arith.andi %arowOk, %akOk : tensor<64x128xi1>
    %a8 = tile.load %a[%aoff] mask(%amask : tensor<64x128xi1>) : !tile.ptr<i8>, tensor<64x128xi32> -> tensor<64x128xi8>
    %kb = tile.splat %k : i32 -> tensor<128x64xi32>
    %boff = arith.addi %boff0, %kb : tensor<128x64xi32>
    %bkk = arith.addi %bk, %kb : tensor<128x64xi32>
    %bkOk = arith.cmpi slt, %bkk, %Kb : tensor<128x64xi32>
    %bmask = arith.andi %bcolOk, %bkOk : tensor<128x64xi1>
    %b8 = tile.load %b[%boff] mask(%bmask : tensor<128x64xi1>) : !tile.ptr<i8>, tensor<128x64xi32> -> tensor<128x64xi8>
    %next = scf.if %fnuz -> (tensor<64x64xf32>) {
      %av = arith.bitcast %a8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FNUZ>
      %bv = arith.bitcast %b8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FNUZ>
      %r = tile.dot %av, %bv, %d : tensor<64x128xf8E4M3FNUZ>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
      scf.yield %r : tensor<64x64xf32>
    } else {
      %av = arith.bitcast %a8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FN>
      %bv = arith.bitcast %b8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FN>
      %r = tile.dot %av, %bv, %d : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
      scf.yield %r : tensor<64x64xf32>
    }
    scf.yield %next : tensor<64x64xf32>
  }

  // Epilogue: scale rows and columns, store the rows and columns inside C.
  %sav = tile.load %sa[%rows] mask(%rowOk : tensor<64xi1>) : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>
  %sbv = tile.load %sb[%cols] mask(%colOk : tensor<64xi1>) : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>
  %sa_1 = tile.expand_dims %sav, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %sa2 = tile.broadcast %sa_1 : tensor<64x1xf32> -> tensor<64x64xf32>
  %sb_1 = tile.expand_dims %sbv, 0 : tensor<64xf32> -> tensor<1x64xf32>
  %sb2 = tile.broadcast %sb_1 : tensor<1x64xf32> -> tensor<64x64xf32>
  %scaledRows = arith.mulf %acc, %sa2 : tensor<64x64xf32>
  %out = arith.mulf %scaledRows, %sb2 : tensor<64x64xf32>
  %Nc = tile.splat %N : i32 -> tensor<64x64xi32>
  %crow_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %crow = tile.broadcast %crow_1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccol_1 = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ccol = tile.broadcast %ccol_1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %crowOff = arith.muli %crow, %Nc : tensor<64x64xi32>
  %coff = arith.addi %crowOff, %ccol : tensor<64x64xi32>
  %cOkRow_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %cOkRow = tile.broadcast %cOkRow_1 : tensor<64x1xi1> -> tensor<64x64xi1>
  %cOkCol_1 = tile.expand_dims %colOk, 0 : tensor<64xi1> -> tensor<1x64xi1>
  %cOkCol = tile.broadcast %cOkCol_1 : tensor<1x64xi1> -> tensor<64x64xi1>
  %cmask = arith.andi %cOkRow, %cOkCol : tensor<64x64xi1>
  tile.store %out, %c[%coff] mask(%cmask : tensor<64x64xi1>) : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>
  tile.return
}
