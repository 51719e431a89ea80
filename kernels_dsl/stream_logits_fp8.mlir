// Persistent streaming fp8 logits for sm_90a: the streaming shape of
// paged_mqa_logits without paging. A [M, 128] (queries x heads, M = 64 * G
// per program) stays resident in shared memory while B [N, 128] (keys)
// streams through a ring of `stages` shared-memory tiles of `tile_n` rows.
//
//   logits (full_c = 0):  out[g, n] = sum_{h < 64} relu(C[64 g + h, n]) * w[64 g + h]
//   full C (full_c = 1):  out[m, n] = C[m, n]
//   with C[m, n] = sum_k A[m, k] * B[n, k]   (fp8 e4m3fn, f32 accumulation)
//
// out is row-major f32: [M / 64, N] for the logits, [M, N] for full C.
//
// The grid is (P, M / (64 G)): axis 1 takes the 64 G rows of A at 64 G *
// program_id(1); the P programs of axis 0 are persistent (P is sized from
// the device's occupancy, not from N) and program p computes the N tiles
// p, p + P, p + 2P, ... of B. Local tile i of a program is fill i of the
// ring: stage i mod S, completed on barrier i mod S by every lane's 16-byte
// cp.async copies (cp.async.mbarrier.arrive.noinc). Fill 0 also carries A.
//
//   prologue:  fills 0 .. S-1 -> stages 0 .. S-1
//   tile i:    wait for fill i (mbarrier.try_wait.parity)
//              C = A * B(stage i mod S) on wgmma (4 K steps)
//              fill i + S -> stage i mod S (the copy's workgroup barrier
//                orders it after every warpgroup's wgmma read the stage)
//              epilogue of tile i and its store, while S fills are in flight
//
// Two orientations of the product on wgmma (m64nNk32, M = 64 rows per
// warpgroup, N up to 256):
//
//  - b_on_m = 0: A on wgmma's M side, C [64 G, T] = A * B(tile)^T, one
//    m64nTk32 chain per warpgroup and tile. With G = 2 the program has 8
//    warps (num_waves = 8): warpgroup j computes head group j, so the sum
//    over the 64 heads of a group stays within one warpgroup (registers,
//    lane shuffles, then shared memory across its warps).
//  - b_on_m = 1: the streamed tile on wgmma's M side, C^T [T, 64 G] =
//    B(tile) * A^T: the ring holds [T, 128] tiles (K-major, wgmma's A
//    operand), A is resident as [128, 64 G] (wgmma's B operand), and one
//    m64n(64 G)k32 per K step covers all of the program's rows of A
//    (T = 64 per warpgroup; more warpgroups split T, or 64 G when it is
//    over 256). The head sum then runs along the accumulator's columns:
//    each thread holds 16 of a group's 64 columns in registers and 4
//    adjacent lanes the rest, so it is 15 adds and 2 shuffles per output,
//    with no shared memory.
//
// Fills past the last tile copy nothing (every lane masked off).
//
// Shapes follow the knobs through `{{...}}` templates. The runtime
// guarantees the promises in `tile.divisibility` (16-byte aligned buffers,
// N and M multiples of 16); N * 128 < 2^31 (B's offsets are 32-bit; C's
// are 64-bit).
{{let G = groups}}
{{let M = groups * 64}}
{{let T = tile_n}}
{{let S = stages}}
#wgA = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgB = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
!a8 = tensor<{{M}}x128xf8E4M3FN>
!aoff = tensor<{{M}}x128xi32>
!amask = tensor<{{M}}x128xi1>
!boff = tensor<128x{{T}}xi32>
!bmask = tensor<128x{{T}}xi1>
!acc = tensor<{{M}}x{{T}}xf32>
!acc3 = tensor<{{G}}x64x{{T}}xf32>
!logit = tensor<{{G}}x{{T}}xf32>
!lrow = tensor<{{G}}x{{T}}xi32>
!lrow64 = tensor<{{G}}x{{T}}xi64>
!lmask = tensor<{{G}}x{{T}}xi1>
!coff = tensor<{{M}}x{{T}}xi64>
!cmask = tensor<{{M}}x{{T}}xi1>
!memA = !tile.memdesc<{{M}}x128xf8E4M3FN, #wgA>
!ringB = !tile.memdesc<{{S}}x128x{{T}}xf8E4M3FN, #wgB>
!stageB = !tile.memdesc<128x{{T}}xf8E4M3FN, #wgB>
!bars = !tile.async_barrier<{{S}}>
// b_on_m = 1: the transposed tiles (B's rows first, A's rows last).
!aoffT = tensor<128x{{M}}xi32>
!amaskT = tensor<128x{{M}}xi1>
!boffT = tensor<{{T}}x128xi32>
!bmaskT = tensor<{{T}}x128xi1>
!accT = tensor<{{T}}x{{M}}xf32>
!accT3 = tensor<{{T}}x{{G}}x64xf32>
!logitT = tensor<{{T}}x{{G}}xf32>
!lcolT = tensor<{{T}}x{{G}}xi32>
!lcolT64 = tensor<{{T}}x{{G}}xi64>
!lmaskT = tensor<{{T}}x{{G}}xi1>
!coffT = tensor<{{T}}x{{M}}xi64>
!cmaskT = tensor<{{T}}x{{M}}xi1>
!memAT = !tile.memdesc<128x{{M}}xf8E4M3FN, #wgB>
!ringBT = !tile.memdesc<{{S}}x{{T}}x128xf8E4M3FN, #wgA>
!stageBT = !tile.memdesc<{{T}}x128xf8E4M3FN, #wgA>
tile.kernel @stream_logits_fp8(
    %a: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
    %w: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %M: i32 {tile.divisibility = 16 : i64},
    %N: i32 {tile.divisibility = 16 : i64}) attributes {knobs = [
      #tile.knob<"groups" : i32 = 1, values = [1, 2]>,
      #tile.knob<"tile_n" : i32 = 64, values = [64, 128]>,
      #tile.knob<"stages" : i32 = 4, values = [2, 3, 4]>,
      #tile.knob<"full_c" : i32 = 0, values = [0, 1]>,
      #tile.knob<"b_on_m" : i1 = 0>,
      #tile.knob<"num_waves" : i32 = 4, values = [4, 8]>]} {
  %fullC = tile.knob "full_c" : i32
  %bOnM = tile.knob "b_on_m" : i1
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %cT = arith.constant {{T}} : i32
  %cS = arith.constant {{S}} : i32
  %cM = arith.constant {{M}} : i32
  %pid = tile.program_id 0 : i32
  %nprog = tile.num_programs 0 : i32
  %slice = tile.program_id 1 : i32
  %m0 = arith.muli %slice, %cM : i32
  %isFull = arith.cmpi ne, %fullC, %c0 : i32

  // This program's tiles: p, p + P, ... below ceil(N / T).
  %cTm1 = arith.constant {{T - 1}} : i32
  %Nup = arith.addi %N, %cTm1 : i32
  %ntiles = arith.divui %Nup, %cT : i32
  %left = arith.subi %ntiles, %pid : i32
  %nprogm1 = arith.subi %nprog, %c1 : i32
  %leftUp = arith.addi %left, %nprogm1 : i32
  %mine = arith.divsi %leftUp, %nprog : i32
  %count = arith.maxsi %mine, %c0 : i32

  // This slice's rows of A (masked at M), K, a tile's rows and the output
  // rows of the logits (head groups m0 / 64 + j).
  %ar = tile.range 0 to {{M}} : tensor<{{M}}xi32>
  %m0v = tile.splat %m0 : i32 -> tensor<{{M}}xi32>
  %arows = arith.addi %m0v, %ar : tensor<{{M}}xi32>
  %Mv = tile.splat %M : i32 -> tensor<{{M}}xi32>
  %arowOk = arith.cmpi slt, %arows, %Mv : tensor<{{M}}xi32>
  %k128 = tile.range 0 to 128 : tensor<128xi32>
  %tr = tile.range 0 to {{T}} : tensor<{{T}}xi32>
  %gr = tile.range 0 to {{G}} : tensor<{{G}}xi32>
  %c64 = arith.constant 64 : i32
  %gbase = arith.divui %m0, %c64 : i32
  %gbv = tile.splat %gbase : i32 -> tensor<{{G}}xi32>
  %grows = arith.addi %gbv, %gr : tensor<{{G}}xi32>
  %Mg = arith.divui %M, %c64 : i32
  %Mgv = tile.splat %Mg : i32 -> tensor<{{G}}xi32>
  %growOk = arith.cmpi slt, %grows, %Mgv : tensor<{{G}}xi32>
  %N64 = arith.extsi %N : i32 to i64

  scf.if %bOnM {
    // A as [128 (k), M (rows)]: (m0 + r) * 128 + k, k fastest as in memory.
    %ar_0 = tile.expand_dims %arows, 0 : tensor<{{M}}xi32> -> tensor<1x{{M}}xi32>
    %arB = tile.broadcast %ar_0 : tensor<1x{{M}}xi32> -> !aoffT
    %c128a = tile.splat %c128 : i32 -> !aoffT
    %ar128 = arith.muli %arB, %c128a : !aoffT
    %ak_1 = tile.expand_dims %k128, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %ak = tile.broadcast %ak_1 : tensor<128x1xi32> -> !aoffT
    %aoff = arith.addi %ar128, %ak : !aoffT
    %arowOk_0 = tile.expand_dims %arowOk, 0 : tensor<{{M}}xi1> -> tensor<1x{{M}}xi1>
    %amask = tile.broadcast %arowOk_0 : tensor<1x{{M}}xi1> -> !amaskT

    // A B tile [T (rows), 128 (k)]: row * 128 + k.
    %tr_1 = tile.expand_dims %tr, 1 : tensor<{{T}}xi32> -> tensor<{{T}}x1xi32>
    %trB = tile.broadcast %tr_1 : tensor<{{T}}x1xi32> -> !boffT
    %c128b = tile.splat %c128 : i32 -> !boffT
    %tr128 = arith.muli %trB, %c128b : !boffT
    %bk_0 = tile.expand_dims %k128, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %bk = tile.broadcast %bk_0 : tensor<1x128xi32> -> !boffT
    %boff0 = arith.addi %tr128, %bk : !boffT
    %Nb = tile.splat %N : i32 -> !boffT

    %bufA = tile.local_alloc : !memAT
    %ring = tile.local_alloc : !ringBT
    %bar = tile.async_barrier_alloc : !bars

    // Prologue: fills 0 .. S-1; fill 0 also copies A.
    %ta = tile.async_copy_global_to_local %a[%aoff] mask(%amask : !amaskT), %bufA : !tile.ptr<f8E4M3FN>, !aoffT -> !memAT
    scf.for %f = %c0 to %cS step %c1 : i32 {
      %tf0 = arith.muli %f, %nprog : i32
      %tf = arith.addi %pid, %tf0 : i32
      %nf = arith.muli %tf, %cT : i32
      %nfv = tile.splat %nf : i32 -> !boffT
      %rowsf = arith.addi %nfv, %trB : !boffT
      %okf = arith.cmpi slt, %rowsf, %Nb : !boffT
      %baseF = arith.muli %nf, %c128 : i32
      %baseFv = tile.splat %baseF : i32 -> !boffT
      %offF = arith.addi %baseFv, %boff0 : !boffT
      %stF = tile.memdesc_index %ring[%f] : !ringBT -> !stageBT
      %tbf = tile.async_copy_global_to_local %b[%offF] mask(%okf : !bmaskT), %stF : !tile.ptr<f8E4M3FN>, !boffT -> !stageBT
      %gf = tile.async_commit_group %tbf barrier(%bar[%f] : !bars)
    }

    // The weights of this slice, along the accumulator's columns.
    %wv = tile.load %w[%arows] mask(%arowOk : tensor<{{M}}xi1>) : !tile.ptr<f32>, tensor<{{M}}xi32> -> tensor<{{M}}xf32>
    %w_0 = tile.expand_dims %wv, 0 : tensor<{{M}}xf32> -> tensor<1x{{M}}xf32>
    %wB = tile.broadcast %w_0 : tensor<1x{{M}}xf32> -> !accT
    %zacc = arith.constant dense<0.0> : !accT

    // Output columns n0 + t; rows g (logits) or m0 + r (full C).
    %grows_0 = tile.expand_dims %grows, 0 : tensor<{{G}}xi32> -> tensor<1x{{G}}xi32>
    %grows64 = arith.extsi %grows_0 : tensor<1x{{G}}xi32> to tensor<1x{{G}}xi64>
    %Ng64 = tile.splat %N64 : i64 -> tensor<1x{{G}}xi64>
    %growOff = arith.muli %grows64, %Ng64 : tensor<1x{{G}}xi64>
    %lrowOff = tile.broadcast %growOff : tensor<1x{{G}}xi64> -> !lcolT64
    %growOk_0 = tile.expand_dims %growOk, 0 : tensor<{{G}}xi1> -> tensor<1x{{G}}xi1>
    %lrowOk = tile.broadcast %growOk_0 : tensor<1x{{G}}xi1> -> !lmaskT
    %lcols = tile.broadcast %tr_1 : tensor<{{T}}x1xi32> -> !lcolT
    %Nl = tile.splat %N : i32 -> !lcolT
    %crows64 = arith.extsi %ar_0 : tensor<1x{{M}}xi32> to tensor<1x{{M}}xi64>
    %Nc64 = tile.splat %N64 : i64 -> tensor<1x{{M}}xi64>
    %crowOff1 = arith.muli %crows64, %Nc64 : tensor<1x{{M}}xi64>
    %crowOff = tile.broadcast %crowOff1 : tensor<1x{{M}}xi64> -> !coffT
    %crowOk = tile.broadcast %arowOk_0 : tensor<1x{{M}}xi1> -> !cmaskT
    %ccols = tile.broadcast %tr_1 : tensor<{{T}}x1xi32> -> tensor<{{T}}x{{M}}xi32>
    %Nc = tile.splat %N : i32 -> tensor<{{T}}x{{M}}xi32>

    scf.for %i = %c0 to %count step %c1 : i32 {
      %wt = tile.async_wait %ta barrier(%bar[%i] : !bars)
      %s = arith.remui %i, %cS : i32
      %cur = tile.memdesc_index %ring[%s] : !ringBT -> !stageBT
      %acc = tile.dot %cur, %bufA, %zacc : !stageBT, !memAT -> !accT

      // Fill i + S into the stage just read.
      %fi = arith.addi %i, %cS : i32
      %tn0 = arith.muli %fi, %nprog : i32
      %tn = arith.addi %pid, %tn0 : i32
      %nn = arith.muli %tn, %cT : i32
      %nnv = tile.splat %nn : i32 -> !boffT
      %rowsn = arith.addi %nnv, %trB : !boffT
      %okn = arith.cmpi slt, %rowsn, %Nb : !boffT
      %baseN = arith.muli %nn, %c128 : i32
      %baseNv = tile.splat %baseN : i32 -> !boffT
      %offN = arith.addi %baseNv, %boff0 : !boffT
      %tbn = tile.async_copy_global_to_local %b[%offN] mask(%okn : !bmaskT), %cur : !tile.ptr<f8E4M3FN>, !boffT -> !stageBT
      %gn = tile.async_commit_group %tbn barrier(%bar[%fi] : !bars)

      // Epilogue of tile i (rows n0 .. n0 + T of B).
      %ti0 = arith.muli %i, %nprog : i32
      %ti = arith.addi %pid, %ti0 : i32
      %n0 = arith.muli %ti, %cT : i32
      scf.if %isFull {
        %n0c = tile.splat %n0 : i32 -> tensor<{{T}}x{{M}}xi32>
        %cn = arith.addi %n0c, %ccols : tensor<{{T}}x{{M}}xi32>
        %cnOk = arith.cmpi slt, %cn, %Nc : tensor<{{T}}x{{M}}xi32>
        %cm = arith.andi %crowOk, %cnOk : !cmaskT
        %cn64 = arith.extsi %cn : tensor<{{T}}x{{M}}xi32> to !coffT
        %co = arith.addi %crowOff, %cn64 : !coffT
        tile.store %acc, %out[%co] mask(%cm : !cmaskT) : !accT, !tile.ptr<f32>, !coffT
      } else {
        %relu = arith.maximumf %acc, %zacc : !accT
        %wr = arith.mulf %relu, %wB : !accT
        %w3 = tile.reshape %wr : !accT -> !accT3
        %sum = tile.reduce add %w3, 2 : !accT3 -> !logitT
        %n0l = tile.splat %n0 : i32 -> !lcolT
        %ln = arith.addi %n0l, %lcols : !lcolT
        %lnOk = arith.cmpi slt, %ln, %Nl : !lcolT
        %lm = arith.andi %lrowOk, %lnOk : !lmaskT
        %ln64 = arith.extsi %ln : !lcolT to !lcolT64
        %lo = arith.addi %lrowOff, %ln64 : !lcolT64
        tile.store %sum, %out[%lo] mask(%lm : !lmaskT) : !logitT, !tile.ptr<f32>, !lcolT64
      }
    }
  } else {
    // A [M, 128] of this slice: (m0 + r) * 128 + k, rows masked at M.
    %arows_1 = tile.expand_dims %arows, 1 : tensor<{{M}}xi32> -> tensor<{{M}}x1xi32>
    %arowsB = tile.broadcast %arows_1 : tensor<{{M}}x1xi32> -> !aoff
    %c128a = tile.splat %c128 : i32 -> !aoff
    %arow128 = arith.muli %arowsB, %c128a : !aoff
    %ak_1 = tile.expand_dims %k128, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %ak = tile.broadcast %ak_1 : tensor<1x128xi32> -> !aoff
    %aoff = arith.addi %arow128, %ak : !aoff
    %arowOk_1 = tile.expand_dims %arowOk, 1 : tensor<{{M}}xi1> -> tensor<{{M}}x1xi1>
    %amask = tile.broadcast %arowOk_1 : tensor<{{M}}x1xi1> -> !amask

    // A B tile [128 (k), T (rows)]: row * 128 + k, k fastest as in memory.
    %tr_1 = tile.expand_dims %tr, 0 : tensor<{{T}}xi32> -> tensor<1x{{T}}xi32>
    %trB = tile.broadcast %tr_1 : tensor<1x{{T}}xi32> -> !boff
    %c128b = tile.splat %c128 : i32 -> !boff
    %tr128 = arith.muli %trB, %c128b : !boff
    %bk_1 = tile.expand_dims %k128, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %bk = tile.broadcast %bk_1 : tensor<128x1xi32> -> !boff
    %boff0 = arith.addi %tr128, %bk : !boff
    %Nb = tile.splat %N : i32 -> !boff

    %bufA = tile.local_alloc : !memA
    %ring = tile.local_alloc : !ringB
    %bar = tile.async_barrier_alloc : !bars

    // Prologue: fills 0 .. S-1; fill 0 also copies A.
    %ta = tile.async_copy_global_to_local %a[%aoff] mask(%amask : !amask), %bufA : !tile.ptr<f8E4M3FN>, !aoff -> !memA
    scf.for %f = %c0 to %cS step %c1 : i32 {
      %tf0 = arith.muli %f, %nprog : i32
      %tf = arith.addi %pid, %tf0 : i32
      %nf = arith.muli %tf, %cT : i32
      %nfv = tile.splat %nf : i32 -> !boff
      %rowsf = arith.addi %nfv, %trB : !boff
      %okf = arith.cmpi slt, %rowsf, %Nb : !boff
      %baseF = arith.muli %nf, %c128 : i32
      %baseFv = tile.splat %baseF : i32 -> !boff
      %offF = arith.addi %baseFv, %boff0 : !boff
      %stF = tile.memdesc_index %ring[%f] : !ringB -> !stageB
      %tbf = tile.async_copy_global_to_local %b[%offF] mask(%okf : !bmask), %stF : !tile.ptr<f8E4M3FN>, !boff -> !stageB
      %gf = tile.async_commit_group %tbf barrier(%bar[%f] : !bars)
    }

    // The weights of this slice, in the accumulator's rows.
    %wv = tile.load %w[%arows] mask(%arowOk : tensor<{{M}}xi1>) : !tile.ptr<f32>, tensor<{{M}}xi32> -> tensor<{{M}}xf32>
    %w_1 = tile.expand_dims %wv, 1 : tensor<{{M}}xf32> -> tensor<{{M}}x1xf32>
    %wB = tile.broadcast %w_1 : tensor<{{M}}x1xf32> -> !acc
    %zacc = arith.constant dense<0.0> : !acc

    // Output rows: head group m0 / 64 + j (logits) or row m0 + r (full C).
    %lcols = tile.broadcast %tr_1 : tensor<1x{{T}}xi32> -> !lrow
    %grows_1 = tile.expand_dims %grows, 1 : tensor<{{G}}xi32> -> tensor<{{G}}x1xi32>
    %lrows = tile.broadcast %grows_1 : tensor<{{G}}x1xi32> -> !lrow
    %lrows64 = arith.extsi %lrows : !lrow to !lrow64
    %Nl64 = tile.splat %N64 : i64 -> !lrow64
    %lrowOff = arith.muli %lrows64, %Nl64 : !lrow64
    %growOk_1 = tile.expand_dims %growOk, 1 : tensor<{{G}}xi1> -> tensor<{{G}}x1xi1>
    %lrowOk = tile.broadcast %growOk_1 : tensor<{{G}}x1xi1> -> !lmask
    %Nl = tile.splat %N : i32 -> !lrow
    %ccols = tile.broadcast %tr_1 : tensor<1x{{T}}xi32> -> tensor<{{M}}x{{T}}xi32>
    %crows64 = arith.extsi %arows_1 : tensor<{{M}}x1xi32> to tensor<{{M}}x1xi64>
    %crowsB = tile.broadcast %crows64 : tensor<{{M}}x1xi64> -> !coff
    %Nc64 = tile.splat %N64 : i64 -> !coff
    %crowOff = arith.muli %crowsB, %Nc64 : !coff
    %crowOk = tile.broadcast %arowOk_1 : tensor<{{M}}x1xi1> -> !cmask
    %Nc = tile.splat %N : i32 -> tensor<{{M}}x{{T}}xi32>

    scf.for %i = %c0 to %count step %c1 : i32 {
      %wt = tile.async_wait %ta barrier(%bar[%i] : !bars)
      %s = arith.remui %i, %cS : i32
      %cur = tile.memdesc_index %ring[%s] : !ringB -> !stageB
      %acc = tile.dot %bufA, %cur, %zacc : !memA, !stageB -> !acc

      // Fill i + S into the stage just read.
      %fi = arith.addi %i, %cS : i32
      %tn0 = arith.muli %fi, %nprog : i32
      %tn = arith.addi %pid, %tn0 : i32
      %nn = arith.muli %tn, %cT : i32
      %nnv = tile.splat %nn : i32 -> !boff
      %rowsn = arith.addi %nnv, %trB : !boff
      %okn = arith.cmpi slt, %rowsn, %Nb : !boff
      %baseN = arith.muli %nn, %c128 : i32
      %baseNv = tile.splat %baseN : i32 -> !boff
      %offN = arith.addi %baseNv, %boff0 : !boff
      %tbn = tile.async_copy_global_to_local %b[%offN] mask(%okn : !bmask), %cur : !tile.ptr<f8E4M3FN>, !boff -> !stageB
      %gn = tile.async_commit_group %tbn barrier(%bar[%fi] : !bars)

      // Epilogue of tile i (rows n0 .. n0 + T of B).
      %ti0 = arith.muli %i, %nprog : i32
      %ti = arith.addi %pid, %ti0 : i32
      %n0 = arith.muli %ti, %cT : i32
      scf.if %isFull {
        %n0c = tile.splat %n0 : i32 -> tensor<{{M}}x{{T}}xi32>
        %cn = arith.addi %n0c, %ccols : tensor<{{M}}x{{T}}xi32>
        %cnOk = arith.cmpi slt, %cn, %Nc : tensor<{{M}}x{{T}}xi32>
        %cm = arith.andi %crowOk, %cnOk : !cmask
        %cn64 = arith.extsi %cn : tensor<{{M}}x{{T}}xi32> to !coff
        %co = arith.addi %crowOff, %cn64 : !coff
        tile.store %acc, %out[%co] mask(%cm : !cmask) : !acc, !tile.ptr<f32>, !coff
      } else {
        %relu = arith.maximumf %acc, %zacc : !acc
        %wr = arith.mulf %relu, %wB : !acc
        %w3 = tile.reshape %wr : !acc -> !acc3
        %sum = tile.reduce add %w3, 1 : !acc3 -> !logit
        %n0l = tile.splat %n0 : i32 -> !lrow
        %ln = arith.addi %n0l, %lcols : !lrow
        %lnOk = arith.cmpi slt, %ln, %Nl : !lrow
        %lm = arith.andi %lrowOk, %lnOk : !lmask
        %ln64 = arith.extsi %ln : !lrow to !lrow64
        %lo = arith.addi %lrowOff, %ln64 : !lrow64
        tile.store %sum, %out[%lo] mask(%lm : !lmask) : !logit, !tile.ptr<f32>, !lrow64
      }
    }
  }
  tile.return
}
