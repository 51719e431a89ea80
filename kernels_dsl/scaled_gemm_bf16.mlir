// Scaled bf16 GEMM: C[m, n] = (sum_k A[m, k] * B[n, k]) * sa[m] * sb[n].
//
// A is [M, K] and B is [N, K], both row-major bf16; sa, sb and C (row-major
// [M, N]) are f32. The same kernel as scaled_gemm_fp8.mlir on bf16 tiles. Program (i, j) of the 2-D grid computes
// the 64x64 tile of C at rows 64*i and columns 64*j, stepping K by 32 and
// accumulating in registers. Loads are plain tile.loads: layout assignment
// gives them the matrix instruction's operand layouts, so no data moves
// between the loads and the tile.dot. Rows, columns and k beyond M, N and K
// are masked (A and B read 0 there).
//
// The runtime guarantees the promises in `tile.divisibility`: 16-byte
// aligned buffers and M, N, K multiples of 16.
tile.kernel @scaled_gemm_bf16(
    %a: !tile.ptr<bf16> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<bf16> {tile.divisibility = 16 : i64},
    %sa: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %sb: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %M: i32 {tile.divisibility = 16 : i64},
    %N: i32 {tile.divisibility = 16 : i64},
    %K: i32 {tile.divisibility = 16 : i64}) attributes {knobs = [
      #tile.knob<"num_waves" : i32 = 4, values = [1, 2, 4, 8]>]} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id 0 : i32
  %m0 = arith.muli %c64, %pm : i32
  %pn = tile.program_id 1 : i32
  %n0 = arith.muli %c64, %pn : i32
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %Nv = tile.splat %N : i32 -> tensor<64xi32>
  %Ka = tile.splat %K : i32 -> tensor<64x32xi32>
  %Kb = tile.splat %K : i32 -> tensor<32x64xi32>

  // Rows of C and of A, columns of C and rows of B.
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %m0v = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %m0v, %r64 : tensor<64xi32>
  %n0v = tile.splat %n0 : i32 -> tensor<64xi32>
  %cols = arith.addi %n0v, %r64 : tensor<64xi32>
  %rowOk = arith.cmpi slt, %rows, %Mv : tensor<64xi32>
  %colOk = arith.cmpi slt, %cols, %Nv : tensor<64xi32>
  %kr = tile.range 0 to 32 : tensor<32xi32>

  // A tile [64, 32]: rows * K + k.
  %rows_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %arow_1 = tile.broadcast %rows_1 : tensor<64x1xi32> -> tensor<64x32xi32>
  %arow = arith.muli %arow_1, %Ka : tensor<64x32xi32>
  %ak_1 = tile.expand_dims %kr, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %ak = tile.broadcast %ak_1 : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff0 = arith.addi %arow, %ak : tensor<64x32xi32>
  %arowOk_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %arowOk = tile.broadcast %arowOk_1 : tensor<64x1xi1> -> tensor<64x32xi1>

  // B tile [32, 64] (B transposed): cols * K + k.
  %cols_1 = tile.expand_dims %cols, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bcol_1 = tile.broadcast %cols_1 : tensor<1x64xi32> -> tensor<32x64xi32>
  %bcol = arith.muli %bcol_1, %Kb : tensor<32x64xi32>
  %bk_1 = tile.expand_dims %kr, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bk = tile.broadcast %bk_1 : tensor<32x1xi32> -> tensor<32x64xi32>
  %boff0 = arith.addi %bcol, %bk : tensor<32x64xi32>
  %bcolOk_1 = tile.expand_dims %colOk, 0 : tensor<64xi1> -> tensor<1x64xi1>
  %bcolOk = tile.broadcast %bcolOk_1 : tensor<1x64xi1> -> tensor<32x64xi1>

  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%d = %zero) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k : i32 -> tensor<64x32xi32>
    %aoff = arith.addi %aoff0, %ka : tensor<64x32xi32>
    %akk = arith.addi %ak, %ka : tensor<64x32xi32>
    %akOk = arith.cmpi slt, %akk, %Ka : tensor<64x32xi32>
    %amask = arith.andi %arowOk, %akOk : tensor<64x32xi1>
    %av = tile.load %a[%aoff] mask(%amask : tensor<64x32xi1>) : !tile.ptr<bf16>, tensor<64x32xi32> -> tensor<64x32xbf16>
    %kb = tile.splat %k : i32 -> tensor<32x64xi32>
    %boff = arith.addi %boff0, %kb : tensor<32x64xi32>
    %bkk = arith.addi %bk, %kb : tensor<32x64xi32>
    %bkOk = arith.cmpi slt, %bkk, %Kb : tensor<32x64xi32>
    %bmask = arith.andi %bcolOk, %bkOk : tensor<32x64xi1>
    %bv = tile.load %b[%boff] mask(%bmask : tensor<32x64xi1>) : !tile.ptr<bf16>, tensor<32x64xi32> -> tensor<32x64xbf16>
    %next = tile.dot %av, %bv, %d : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
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
