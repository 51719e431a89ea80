// scaled_gemm_fp8_ring.mlir with the partial sums promoted to f32: each
// K step's wgmma accumulates its 64 products per element from zero, and
// the step's sum is then added to an f32 accumulator in registers, so the
// tensor core's narrower accumulation (about 14 bits for fp8 on Hopper)
// rounds sums of 64 products only: C[m, n] = (sum_k A[m, k] * B[n, k]) *
// sa[m] * sb[n], as there; the ring, barriers and grid are the same.
//
//   step i:    wait for fill i
//              part = A(stage i mod 3) * B(stage i mod 3)           (async)
//              fill i + 2 -> stage (i + 2) mod 3 (step i - 1's wgmma,
//                which read it, was waited for in step i - 1)
//              wait for part; acc += part
//   epilogue:  scale, store C
//
// The copies of fill i + 2 are issued while the wgmma runs. The wgmma is
// not left in flight across steps: with the add reading the previous
// step's registers after `tile.dot_wait pending = 1`, ptxas (CUDA 13.0)
// serializes every wgmma of the kernel instead (warning C7514).
#wgA = #tile.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]}>
tile.kernel @scaled_gemm_fp8_ring_promoted(
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
  %c3 = arith.constant 3 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pm = tile.program_id 0 : i32
  %m0 = arith.muli %c64, %pm : i32
  %pn = tile.program_id 1 : i32
  %n0 = arith.muli %c128, %pn : i32
  %Mv = tile.splat %M : i32 -> tensor<64xi32>
  %Nv = tile.splat %N : i32 -> tensor<128xi32>
  %Ka = tile.splat %K : i32 -> tensor<64x64xi32>
  %Kb = tile.splat %K : i32 -> tensor<64x128xi32>
  // K steps: ceil(K / 64).
  %Kup = arith.addi %K, %c63 : i32
  %steps = arith.divui %Kup, %c64 : i32

  // Rows of C and of A, columns of C and rows of B.
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %m0v = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %m0v, %r64 : tensor<64xi32>
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %n0v = tile.splat %n0 : i32 -> tensor<128xi32>
  %cols = arith.addi %n0v, %r128 : tensor<128xi32>
  %rowOk = arith.cmpi slt, %rows, %Mv : tensor<64xi32>
  %colOk = arith.cmpi slt, %cols, %Nv : tensor<128xi32>

  // A step [64, 64]: rows * K + k.
  %rows_1 = tile.expand_dims %rows, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %arow_1 = tile.broadcast %rows_1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %arow = arith.muli %arow_1, %Ka : tensor<64x64xi32>
  %ak_1 = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ak = tile.broadcast %ak_1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %aoff0 = arith.addi %arow, %ak : tensor<64x64xi32>
  %arowOk_1 = tile.expand_dims %rowOk, 1 : tensor<64xi1> -> tensor<64x1xi1>
  %arowOk = tile.broadcast %arowOk_1 : tensor<64x1xi1> -> tensor<64x64xi1>

  // B step [64 (k), 128 (n)]: cols * K + k, k fastest as in memory.
  %cols_1 = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %bcol_1 = tile.broadcast %cols_1 : tensor<1x128xi32> -> tensor<64x128xi32>
  %bcol = arith.muli %bcol_1, %Kb : tensor<64x128xi32>
  %bk_1 = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %bk = tile.broadcast %bk_1 : tensor<64x1xi32> -> tensor<64x128xi32>
  %boff0 = arith.addi %bcol, %bk : tensor<64x128xi32>
  %bcolOk_1 = tile.expand_dims %colOk, 0 : tensor<128xi1> -> tensor<1x128xi1>
  %bcolOk = tile.broadcast %bcolOk_1 : tensor<1x128xi1> -> tensor<64x128xi1>

  %bufA = tile.local_alloc : !tile.memdesc<3x64x64xf8E4M3FN, #wgA>
  %bufB = tile.local_alloc : !tile.memdesc<3x64x128xf8E4M3FN, #wgB>
  %bar = tile.async_barrier_alloc : !tile.async_barrier<3>

  // Fill f: K step f into stage f mod 3, completing on barrier f mod 3.
  %akOk0 = arith.cmpi slt, %ak, %Ka : tensor<64x64xi32>
  %amask0 = arith.andi %arowOk, %akOk0 : tensor<64x64xi1>
  %bkOk0 = arith.cmpi slt, %bk, %Kb : tensor<64x128xi32>
  %bmask0 = arith.andi %bcolOk, %bkOk0 : tensor<64x128xi1>
  %sA0 = tile.memdesc_index %bufA[%c0] : !tile.memdesc<3x64x64xf8E4M3FN, #wgA> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
  %sB0 = tile.memdesc_index %bufB[%c0] : !tile.memdesc<3x64x128xf8E4M3FN, #wgB> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
  %ta0 = tile.async_copy_global_to_local %a[%aoff0] mask(%amask0 : tensor<64x64xi1>), %sA0 : !tile.ptr<f8E4M3FN>, tensor<64x64xi32> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
  %tb0 = tile.async_copy_global_to_local %b[%boff0] mask(%bmask0 : tensor<64x128xi1>), %sB0 : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
  %g0 = tile.async_commit_group %ta0, %tb0 barrier(%bar[%c0] : !tile.async_barrier<3>)

  %ka1 = tile.splat %c64 : i32 -> tensor<64x64xi32>
  %aoff1 = arith.addi %aoff0, %ka1 : tensor<64x64xi32>
  %akk1 = arith.addi %ak, %ka1 : tensor<64x64xi32>
  %akOk1 = arith.cmpi slt, %akk1, %Ka : tensor<64x64xi32>
  %amask1 = arith.andi %arowOk, %akOk1 : tensor<64x64xi1>
  %kb1 = tile.splat %c64 : i32 -> tensor<64x128xi32>
  %boff1 = arith.addi %boff0, %kb1 : tensor<64x128xi32>
  %bkk1 = arith.addi %bk, %kb1 : tensor<64x128xi32>
  %bkOk1 = arith.cmpi slt, %bkk1, %Kb : tensor<64x128xi32>
  %bmask1 = arith.andi %bcolOk, %bkOk1 : tensor<64x128xi1>
  %sA1 = tile.memdesc_index %bufA[%c1] : !tile.memdesc<3x64x64xf8E4M3FN, #wgA> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
  %sB1 = tile.memdesc_index %bufB[%c1] : !tile.memdesc<3x64x128xf8E4M3FN, #wgB> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
  %ta1 = tile.async_copy_global_to_local %a[%aoff1] mask(%amask1 : tensor<64x64xi1>), %sA1 : !tile.ptr<f8E4M3FN>, tensor<64x64xi32> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
  %tb1 = tile.async_copy_global_to_local %b[%boff1] mask(%bmask1 : tensor<64x128xi1>), %sB1 : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
  %g1 = tile.async_commit_group %ta1, %tb1 barrier(%bar[%c1] : !tile.async_barrier<3>)

  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%sum = %zero) -> (tensor<64x128xf32>) : i32 {
    %w = tile.async_wait %g1 barrier(%bar[%i] : !tile.async_barrier<3>)
    %s = arith.remui %i, %c3 : i32
    %cA = tile.memdesc_index %bufA[%s] : !tile.memdesc<3x64x64xf8E4M3FN, #wgA> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
    %cB = tile.memdesc_index %bufB[%s] : !tile.memdesc<3x64x128xf8E4M3FN, #wgB> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
    %r = tile.dot %cA, %cB, %zero {async} : !tile.memdesc<64x64xf8E4M3FN, #wgA>, !tile.memdesc<64x128xf8E4M3FN, #wgB> -> tensor<64x128xf32>

    %i2 = arith.addi %i, %c2 : i32
    %k2 = arith.muli %i2, %c64 : i32
    %s2 = arith.remui %i2, %c3 : i32
    %ka = tile.splat %k2 : i32 -> tensor<64x64xi32>
    %aoff = arith.addi %aoff0, %ka : tensor<64x64xi32>
    %akk = arith.addi %ak, %ka : tensor<64x64xi32>
    %akOk = arith.cmpi slt, %akk, %Ka : tensor<64x64xi32>
    %amask = arith.andi %arowOk, %akOk : tensor<64x64xi1>
    %kb = tile.splat %k2 : i32 -> tensor<64x128xi32>
    %boff = arith.addi %boff0, %kb : tensor<64x128xi32>
    %bkk = arith.addi %bk, %kb : tensor<64x128xi32>
    %bkOk = arith.cmpi slt, %bkk, %Kb : tensor<64x128xi32>
    %bmask = arith.andi %bcolOk, %bkOk : tensor<64x128xi1>
    %nA = tile.memdesc_index %bufA[%s2] : !tile.memdesc<3x64x64xf8E4M3FN, #wgA> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
    %nB = tile.memdesc_index %bufB[%s2] : !tile.memdesc<3x64x128xf8E4M3FN, #wgB> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
    %ta = tile.async_copy_global_to_local %a[%aoff] mask(%amask : tensor<64x64xi1>), %nA : !tile.ptr<f8E4M3FN>, tensor<64x64xi32> -> !tile.memdesc<64x64xf8E4M3FN, #wgA>
    %tb = tile.async_copy_global_to_local %b[%boff] mask(%bmask : tensor<64x128xi1>), %nB : !tile.ptr<f8E4M3FN>, tensor<64x128xi32> -> !tile.memdesc<64x128xf8E4M3FN, #wgB>
    %g = tile.async_commit_group %ta, %tb barrier(%bar[%i2] : !tile.async_barrier<3>)
    %part = tile.dot_wait pending = 0, %r : tensor<64x128xf32>
    %sum1 = arith.addf %sum, %part : tensor<64x128xf32>
    scf.yield %sum1 : tensor<64x128xf32>
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
