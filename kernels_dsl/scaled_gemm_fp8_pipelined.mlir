// Scaled fp8 GEMM, software-pipelined for sm_90a: C[m, n] = (sum_k A[m, k] *
// B[n, k]) * sa[m] * sb[n].
//
// The arguments, grid and masking of scaled_gemm_fp8.mlir, with a 64x128
// tile of C per program and K steps of 128. The operands never pass
// through registers: each K step is copied from global memory straight
// into shared memory (cp.async, 16 bytes per lane and copy) in the
// canonical K-major 128-byte-swizzled layout that wgmma reads, and
// tile.dot takes the buffers (`!tile.memdesc`) as its operands. Two stages:
// while the dot of step i reads stage i mod 2, the copies of step i + 1
// fill the other stage.
//
//   prologue:  copy step 0 -> stage 0; commit
//   step i:    copy step i + 1 -> stage (i + 1) mod 2; commit
//              wait until one group is left in flight (step i is complete)
//              acc += A(stage i mod 2) * B(stage i mod 2)   (wgmma)
//   epilogue:  scale by sa and sb, store the rows and columns inside C
//
// The copy of step i + 1 is issued in the last step too (every lane masked
// off: it reads nothing and zero-fills the idle stage).
//
// Targets: written for sm_90a, where wgmma reads the stages in place. On
// gfx950 (MFMA) and sm_90 (mma.sync), whose matrix instructions read
// registers, tile-assign-layouts loads each stage with tile.local_load in
// the operand layout before the dot: it compiles and computes the same
// (the emulator checks gfx950), without the benefit. gfx942 is not
// supported: its MFMA takes e4m3fnuz, and the buffers are e4m3fn.
//
// A is [M, K] and B is [N, K], both row-major e4m3fn; sa, sb and C
// (row-major [M, N]) are f32. Program (i, j) of the grid
// (ceil(M / 64), ceil(N / 128)) computes the 64x128 tile of C at rows 64*i
// and columns 128*j. The runtime guarantees the promises in
// `tile.divisibility`: 16-byte aligned buffers and M, N, K multiples of 16.
#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
tile.kernel @scaled_gemm_fp8_pipelined(
    %a: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
    %sa: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %sb: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %M: i32 {tile.divisibility = 16 : i64},
    %N: i32 {tile.divisibility = 16 : i64},
    %K: i32 {tile.divisibility = 16 : i64}) attributes {knobs = [
      #tile.knob<"num_waves" : i32 = 4, values = [4, 8]>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %m0 = arith.muli %c64, %pm : i32
  %pn = tile.program_id 1 : i32
  %n0 = arith.muli %c128, %pn : i32
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %Nv = tile.splat %N : i32 -> tensor<128xi32>
  %Ka = tile.splat %K : i32 -> tensor<64x128xi32>
  %Kb = tile.splat %K : i32 -> tensor<128x128xi32>
  // K steps: ceil(K / 128).
  %Kup = arith.addi %K, %c127 : i32
  %steps = arith.divui %Kup, %c128 : i32

  // Rows of C and of A, columns of C and rows of B.
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %m0v = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %m0v, %r64 : tensor<64xi32>
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %n0v = tile.splat %n0 : i32 -> tensor<128xi32>
  %cols = arith.addi %n0v, %r128 : tensor<128xi32>
  %rowOk = arith.cmpi slt, %rows, %Mv : tensor<64xi32>
  %colOk = arith.cmpi slt, %cols, %Nv : tensor<128xi32>

  // A step [64, 128]: rows * K + k.
  %rows_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %arow_1 = tile.broadcast %rows_1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %arow = arith.muli %arow_1, %Ka : tensor<64x128xi32>
  %ak_1 = tile.expand_dims %r128, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ak = tile.broadcast %ak_1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %aoff0 = arith.addi %arow, %ak : tensor<64x128xi32>
  %arowOk_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %arowOk = tile.broadcast %arowOk_1 : tensor<64x1xi1> -> tensor<64x128xi1>

  // B step [128 (k), 128 (n)]: cols * K + k, k fastest as in memory.
  %cols_1 = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bcol_1 = tile.broadcast %cols_1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %bcol = arith.muli %bcol_1, %Kb : tensor<128x128xi32>
  %bk_1 = tile.expand_dims %r128, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %bk = tile.broadcast %bk_1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %boff0 = arith.addi %bcol, %bk : tensor<128x128xi32>
  %bcolOk_1 = tile.expand_dims %colOk, 0 : tensor<128xi1> -> tensor<1x128xi1>
  %bcolOk = tile.broadcast %bcolOk_1 : tensor<1x128xi1> -> tensor<128x128xi1>

  %bufA = tile.local_alloc : !tile.memdesc<2x64x128xf8E4M3FN, #wgA>
  %bufB = tile.local_alloc : !tile.memdesc<2x128x128xf8E4M3FN, #wgB>

  // Prologue: step 0 into stage 0.
  %akOk0 = arith.cmpi slt, %ak, %Ka : tensor<64x128xi32>
  %amask0 = arith.andi %arowOk, %akOk0 : tensor<64x128xi1>
  %bkOk0 = arith.cmpi slt, %bk, %Kb : tensor<128x128xi32>
  %bmask0 = arith.andi %bcolOk, %bkOk0 : tensor<128x128xi1>
  %sA0 = tile.memdesc_index %bufA[%c0] : !tile.memdesc<2x64x128xf8E4M3FN, #wgA> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %sB0 = tile.memdesc_index %bufB[%c0] : !tile.memdesc<2x128x128xf8E4M3FN, #wgB> -> !tile.memdesc<128x128xf8E4M3FN, #wgB>
  %ta0 = tile.async_copy_global_to_local %a[%aoff0] mask(%amask0 : tensor<64x128xi1>), %sA0 : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
  %tb0 = tile.async_copy_global_to_local %b[%boff0] mask(%bmask0 : tensor<128x128xi1>), %sB0 : !tile.ptr<f8E4M3FN>, tensor<128x128xi32> -> !tile.memdesc<128x128xf8E4M3FN, #wgB>
  %g0 = tile.async_commit_group %ta0, %tb0

  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%d = %zero) -> (tensor<64x128xf32>) : i32 {
    // Copy step i + 1 into the other stage.
    %i1 = arith.addi %i, %c1 : i32
    %k1 = arith.muli %i1, %c128 : i32
    %s1 = arith.remui %i1, %c2 : i32
    %ka = tile.splat %k1 : i32 -> tensor<64x128xi32>
    %aoff = arith.addi %aoff0, %ka : tensor<64x128xi32>
    %akk = arith.addi %ak, %ka : tensor<64x128xi32>
    %akOk = arith.cmpi slt, %akk, %Ka : tensor<64x128xi32>
    %amask = arith.andi %arowOk, %akOk : tensor<64x128xi1>
    %kb = tile.splat %k1 : i32 -> tensor<128x128xi32>
    %boff = arith.addi %boff0, %kb : tensor<128x128xi32>
    %bkk = arith.addi %bk, %kb : tensor<128x128xi32>
    %bkOk = arith.cmpi slt, %bkk, %Kb : tensor<128x128xi32>
    %bmask = arith.andi %bcolOk, %bkOk : tensor<128x128xi1>
    %nA = tile.memdesc_index %bufA[%s1] : !tile.memdesc<2x64x128xf8E4M3FN, #wgA> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
    %nB = tile.memdesc_index %bufB[%s1] : !tile.memdesc<2x128x128xf8E4M3FN, #wgB> -> !tile.memdesc<128x128xf8E4M3FN, #wgB>
    %ta = tile.async_copy_global_to_local %a[%aoff] mask(%amask : tensor<64x128xi1>), %nA : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
    %tb = tile.async_copy_global_to_local %b[%boff] mask(%bmask : tensor<128x128xi1>), %nB : !tile.ptr<f8E4M3FN>, tensor<128x128xi32> -> !tile.memdesc<128x128xf8E4M3FN, #wgB>
    %g = tile.async_commit_group %ta, %tb
    // Step i's group is complete once at most this one is in flight.
    %w = tile.async_wait %g {num = 1 : i32}
    %s = arith.remui %i, %c2 : i32
    %cA = tile.memdesc_index %bufA[%s] : !tile.memdesc<2x64x128xf8E4M3FN, #wgA> -> !tile.memdesc<64x128xf8E4M3FN, #wgA>
    %cB = tile.memdesc_index %bufB[%s] : !tile.memdesc<2x128x128xf8E4M3FN, #wgB> -> !tile.memdesc<128x128xf8E4M3FN, #wgB>
    %r = tile.dot %cA, %cB, %d : !tile.memdesc<64x128xf8E4M3FN, #wgA>, !tile.memdesc<128x128xf8E4M3FN, #wgB> -> tensor<64x128xf32>
    scf.yield %r : tensor<64x128xf32>
  }

  // Epilogue: scale rows and columns, store the rows and columns inside C.
  %sav = tile.load %sa[%rows] mask(%rowOk : tensor<64xi1>) : !tile.ptr<f32>, tensor<64xi32> -> tensor<64xf32>
  %sbv = tile.load %sb[%cols] mask(%colOk : tensor<128xi1>) : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %sa_1 = tile.expand_dims %sav, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %sa2 = tile.broadcast %sa_1 : tensor<64x1xf32> -> tensor<64x128xf32>
  %sb_1 = tile.expand_dims %sbv, 0 : tensor<128xf32> -> tensor<1x128xf32>
  %sb2 = tile.broadcast %sb_1 : tensor<1x128xf32> -> tensor<64x128xf32>
  %scaledRows = arith.mulf %acc, %sa2 : tensor<64x128xf32>
  %out = arith.mulf %scaledRows, %sb2 : tensor<64x128xf32>
  %Nc = tile.splat %N : i32 -> tensor<64x128xi32>
  %crow_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %crow = tile.broadcast %crow_1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %ccol_1 = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ccol = tile.broadcast %ccol_1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %crowOff = arith.muli %crow, %Nc : tensor<64x128xi32>
  %coff = arith.addi %crowOff, %ccol : tensor<64x128xi32>
  %cOkRow_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %cOkRow = tile.broadcast %cOkRow_1 : tensor<64x1xi1> -> tensor<64x128xi1>
  %cOkCol_1 = tile.expand_dims %colOk, 0 : tensor<128xi1> -> tensor<1x128xi1>
  %cOkCol = tile.broadcast %cOkCol_1 : tensor<1x128xi1> -> tensor<64x128xi1>
  %cmask = arith.andi %cOkRow, %cOkCol : tensor<64x128xi1>
  tile.store %out, %c[%coff] mask(%cmask : tensor<64x128xi1>) : tensor<64x128xf32>, !tile.ptr<f32>, tensor<64x128xi32>
  tile.return
}
