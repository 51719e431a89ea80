// fp8 paged MQA logits of the sparse-attention indexer (DESIGN.md §3.1),
// split-grid variant over a plain-layout KV cache. With persistent = 1 the
// kernel is instead the persistent variant that reads the schedule of
// paged_mqa_logits_metadata.mlir (its body is at the end of this file).
//
// Row r = b*next_n + j sees len_r tokens (1-D lengths: context_lens[b] -
// next_n + j + 1; 2-D: context_lens[b*next_n + j]; clamped to
// [0, max_model_len]) and gets, for t < max_model_len,
//   out[r, t] = kscale[t] * sum_h relu(q[r,h,:] . k[t,:]) * weights[r,h]
//                                                             for t < len_r
//   out[r, t] = -inf                  for len_r <= t (when write_tail != 0)
// where k[t] is token t of batch b: block block_tables[b*bt_stride +
// (t >> block_shift)], row t & (block_size - 1) of the block, whose bytes
// are [block_size*128 fp8 values][block_size f32 scales].
//
// Program (s, b, g) of the grid (split_kv, B, ceil(next_n /
// rows_per_program)) takes the rows j = g*rows_per_program + i of batch b
// (rows past next_n are masked) and packs them into the M dimension of one
// tile.dot: M = rows_per_program * heads, so Q and the weights of all its
// rows are loaded once and stay in registers. The tokens [0, L) (L the
// longest of its rows) are cut into chunks of chunk_k; split s computes a
// contiguous share of them, then writes every split_kv-th chunk of the -inf
// tail [ceil(L / chunk_k) * chunk_k, max_model_len). Per chunk: gather the
// block ids, load K as [128, chunk_k] (each lane reads 16 contiguous bytes
// of a token's row: the dot over D is invariant under any permutation of D
// shared by Q and K, so the operand layout needs no LDS) and the scales,
// Q·Kᵀ on MFMA, relu, times the weights, sum over the heads (a reshape to
// [rows, heads, chunk] that only relabels layout bits, then a reduction),
// times the scales, store. The K loads are software-pipelined: the loop
// carries the next chunk's K and scales and the block ids of the one after,
// so their loads are in flight while the MFMAs of the current chunk run.
//
// On sm_90a the dot is wgmma (e4m3, f32 accumulation; M = rows * heads a
// multiple of 64) and on sm_90 mma.sync (e4m3 converted to f16); the head
// sum is the same. Two ways to feed it (knob `stages`):
//   stages = 0: the loop above; wgmma's operands are staged from registers
//     into shared memory per chunk (16 bytes per lane where
//     kv_rows_aligned = 1 makes every K row 16-byte aligned);
//   stages > 0 (sm_90a): Q resident in shared memory, K through a ring of
//     `stages` shared-memory tiles filled by 16-byte cp.async and completed
//     on mbarriers, wgmma reading both in place (see the ring's comment).
//     With tokens_on_m = 1 the ring's stages are K as [chunk_k, 128] and the
//     product is transposed, C^T [chunk_k, M] = K * Q^T: the tokens are
//     wgmma's M side (64 per warpgroup and M tile) and the M = rows * heads
//     of Q its N side, so the head sum runs along a thread's accumulator
//     registers and a quad of lanes (shfl) instead of across the rows of
//     the tile. M is then at most 256 (one instruction's N).
// kv_rows_aligned = 1 assumes block_size % 4 == 0 (the runtime picks such a
// variant only then).
//
// Shapes depend on the knobs through `{{...}}` templates, which the
// compiler expands from the knob values before parsing (Pipeline.h,
// "Kernel source templates").
//
// The runtime guarantees the promises in `tile.divisibility` (16-byte
// aligned q and kv_cache). Output offsets are 64-bit.
{{let H = heads}}
{{let R = rows_per_program}}
{{let M = rows_per_program * heads}}
{{let C = chunk_k}}
!q8 = tensor<{{M}}x128xi8>
!qoff = tensor<{{M}}x128xi64>
!qmask = tensor<{{M}}x128xi1>
!mvec = tensor<{{M}}xi32>
!mvec64 = tensor<{{M}}xi64>
!mmask = tensor<{{M}}xi1>
!wvec = tensor<{{M}}xf32>
!k8 = tensor<128x{{C}}xi8>
!koff = tensor<128x{{C}}xi64>
!tok = tensor<{{C}}xi32>
!tok64 = tensor<{{C}}xi64>
!scl = tensor<{{C}}xf32>
!acc = tensor<{{M}}x{{C}}xf32>
!acc3 = tensor<{{R}}x{{H}}x{{C}}xf32>
!rows = tensor<{{R}}xi32>
!rows64 = tensor<{{R}}xi64>
!rmask = tensor<{{R}}xi1>
!logit = tensor<{{R}}x{{C}}xf32>
!rc32 = tensor<{{R}}x{{C}}xi32>
!rc64 = tensor<{{R}}x{{C}}xi64>
!rcmask = tensor<{{R}}x{{C}}xi1>
{{let S = stages + 1 / (stages + 1)}}
#wgQ = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wgK = #tile.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
!memQ = !tile.memdesc<{{M}}x128xf8E4M3FN, #wgQ>
!ringK = !tile.memdesc<{{S}}x128x{{C}}xf8E4M3FN, #wgK>
!stageK = !tile.memdesc<128x{{C}}xf8E4M3FN, #wgK>
!bars = !tile.async_barrier<{{S}}>
// tokens_on_m = 1: the transposed ring (K tokens on wgmma's M side).
!memQT = !tile.memdesc<128x{{M}}xf8E4M3FN, #wgK>
!ringKT = !tile.memdesc<{{S}}x{{C}}x128xf8E4M3FN, #wgQ>
!stageKT = !tile.memdesc<{{C}}x128xf8E4M3FN, #wgQ>
!qoffT = tensor<128x{{M}}xi64>
!qmaskT = tensor<128x{{M}}xi1>
!koffT = tensor<{{C}}x128xi64>
!accT = tensor<{{C}}x{{M}}xf32>
!accT3 = tensor<{{C}}x{{R}}x{{H}}xf32>
!logitT = tensor<{{C}}x{{R}}xf32>
!cr32 = tensor<{{C}}x{{R}}xi32>
!cr64 = tensor<{{C}}x{{R}}xi64>
!crmask = tensor<{{C}}x{{R}}xi1>
// tokens_on_m transposes the shared-memory ring; without a ring (stages =
// 0) it would be silently ignored. The check is (tokens_on_m ? stages : 1)
// != 0.
{{require tokens_on_m * stages + 1 - tokens_on_m : tokens_on_m = 1 needs the shared-memory ring of K (stages > 0)}}
tile.kernel @paged_mqa_logits(
    %q: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %kv: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %weights: !tile.ptr<f32>,
    %context_lens: !tile.ptr<i32>,
    %block_tables: !tile.ptr<i32>,
    %out: !tile.ptr<f32>,
    %schedule: !tile.ptr<i32>,
    %batch: i32, %next_n: i32, %lens_2d: i32, %bt_stride: i64,
    %block_shift: i32, %out_stride: i64, %max_model_len: i32,
    %write_tail: i32, %split_tokens: i32) attributes {knobs = [
      #tile.knob<"fp8_fnuz" : i1>,
      #tile.knob<"heads" : i32 = 64, values = [16, 32, 64, 128]>,
      #tile.knob<"rows_per_program" : i32 = 1, values = [1, 2, 4, 8]>,
      #tile.knob<"chunk_k" : i32 = 256, values = [64, 128, 256]>,
      #tile.knob<"num_waves" : i32 = 4, values = [1, 2, 4, 8]>,
      #tile.knob<"waves_per_eu" : i32 = 0, values = [0, 1, 2, 4]>,
      #tile.knob<"preshuffle" : i32 = 0, values = [0, 1]>,
      #tile.knob<"persistent" : i32 = 0, values = [0, 1]>,
      #tile.knob<"kv_rows_aligned" : i32 = 0, values = [0, 1]>,
      #tile.knob<"stages" : i32 = 0, values = [0, 2, 3, 4]>,
      #tile.knob<"tokens_on_m" : i1 = 0>]} {
  %fnuz = tile.knob "fp8_fnuz" : i1
  %H = tile.knob "heads" : i32
  %R = tile.knob "rows_per_program" : i32
  %C = tile.knob "chunk_k" : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %split = tile.program_id 0 : i32
  %b = tile.program_id 1 : i32
  %g = tile.program_id 2 : i32
  %nsplit = tile.num_programs 0 : i32
  // persistent = 1 runs the schedule-driven body at the end of the kernel;
  // the split-grid body then computes no chunk and writes no tail, and
  // canonicalization removes it.
  %persistentKnob = tile.knob "persistent" : i32
  %isPersistent = arith.cmpi ne, %persistentKnob, %c0 : i32

  // The rows of this program: j = j0 + i for i < R, masked at next_n.
  %j0 = arith.muli %g, %R : i32
  %brow = arith.muli %b, %next_n : i32
  %r0 = arith.addi %brow, %j0 : i32
  %ri = tile.range 0 to {{R}} : !rows
  %j0v = tile.splat %j0 : i32 -> !rows
  %jv = arith.addi %j0v, %ri : !rows
  %nnv = tile.splat %next_n : i32 -> !rows
  %rowOk = arith.cmpi slt, %jv, %nnv : !rows

  // Row lengths, clamped to [0, max_model_len]; 0 for masked rows.
  %ctx = tile.load %context_lens[%b] : !tile.ptr<i32>, i32 -> i32
  %ctxv = tile.splat %ctx : i32 -> !rows
  %len1a = arith.subi %ctxv, %nnv : !rows
  %len1b = arith.addi %len1a, %jv : !rows
  %onev = arith.constant dense<1> : !rows
  %len1 = arith.addi %len1b, %onev : !rows
  %browv = tile.splat %brow : i32 -> !rows
  %l2off = arith.addi %browv, %jv : !rows
  %is2d = arith.cmpi ne, %lens_2d, %c0 : i32
  %is2dv = tile.splat %is2d : i1 -> !rmask
  %read2d = arith.andi %rowOk, %is2dv : !rmask
  %len2 = tile.load %context_lens[%l2off] mask(%read2d : !rmask)
      : !tile.ptr<i32>, !rows -> !rows
  %lenRaw = arith.select %is2dv, %len2, %len1 : !rmask, !rows
  %zerov = arith.constant dense<0> : !rows
  %mmlv = tile.splat %max_model_len : i32 -> !rows
  %lenPos = arith.maxsi %lenRaw, %zerov : !rows
  %lenCap = arith.minsi %lenPos, %mmlv : !rows
  %len = arith.select %rowOk, %lenCap, %zerov : !rmask, !rows
  %L = tile.reduce max %len, 0 : !rows -> i32

  // This split's chunks of [0, L).
  %Cm1 = arith.subi %C, %c1 : i32
  %Lr = arith.addi %L, %Cm1 : i32
  %nch = arith.divui %Lr, %C : i32
  %nsm1 = arith.subi %nsplit, %c1 : i32
  %nchr = arith.addi %nch, %nsm1 : i32
  %cps = arith.divui %nchr, %nsplit : i32
  %cb = arith.muli %split, %cps : i32
  %ceRaw = arith.addi %cb, %cps : i32
  %ceSplit = arith.minsi %ceRaw, %nch : i32
  %ce = arith.select %isPersistent, %cb, %ceSplit : i32

  // Q [M, 128] and the weights [M] of all rows, once: row m*128 of q from
  // the program's first row on; rows of masked MTP rows are not read.
  %mr = tile.range 0 to {{M}} : !mvec
  %Hm = tile.splat %H : i32 -> !mvec
  %rowOfM = arith.divui %mr, %Hm : !mvec
  %j0m = tile.splat %j0 : i32 -> !mvec
  %jm = arith.addi %j0m, %rowOfM : !mvec
  %nnm = tile.splat %next_n : i32 -> !mvec
  %mOk = arith.cmpi slt, %jm, %nnm : !mvec
  %r0H = arith.muli %r0, %H : i32
  %r0H64 = arith.extsi %r0H : i32 to i64
  %r0Hv = tile.splat %r0H64 : i64 -> !mvec64
  %mr64 = arith.extsi %mr : !mvec to !mvec64
  %wrow = arith.addi %r0Hv, %mr64 : !mvec64
  %wv = tile.load %weights[%wrow] mask(%mOk : !mmask)
      : !tile.ptr<f32>, !mvec64 -> !wvec
  %c128v = arith.constant dense<128> : !mvec64
  %qrow = arith.muli %wrow, %c128v : !mvec64
  %qrow_1 = tile.expand_dims %qrow, 1 : !mvec64 -> tensor<{{M}}x1xi64>
  %qrow2 = tile.broadcast %qrow_1 : tensor<{{M}}x1xi64> -> !qoff
  %d = tile.range 0 to 128 : tensor<128xi32>
  %d64 = arith.extsi %d : tensor<128xi32> to tensor<128xi64>
  %dq_1 = tile.expand_dims %d64, 0 : tensor<128xi64> -> tensor<1x128xi64>
  %dq = tile.broadcast %dq_1 : tensor<1x128xi64> -> !qoff
  %qoff = arith.addi %qrow2, %dq : !qoff
  %mOk_1 = tile.expand_dims %mOk, 1 : !mmask -> tensor<{{M}}x1xi1>
  %qmask = tile.broadcast %mOk_1 : tensor<{{M}}x1xi1> -> !qmask
  %q8 = tile.load %q[%qoff] mask(%qmask : !qmask) : !tile.ptr<i8>, !qoff -> !q8
  %w_1 = tile.expand_dims %wv, 1 : !wvec -> tensor<{{M}}x1xf32>
  %wmc = tile.broadcast %w_1 : tensor<{{M}}x1xf32> -> !acc

  // Paging: token t of this batch is row t & (bs - 1) of block
  // block_tables[b*bt_stride + (t >> block_shift)]. Tokens at or past L
  // (the last chunk's padding, the prefetch past the last chunk) read the
  // last valid token's block, so every read stays inside the cache.
  %bs = arith.shli %c1, %block_shift : i32
  // With kv_rows_aligned = 1 (chosen only for block_size % 4 == 0) the
  // block stride is written as a visible multiple of 4 tokens, so that every
  // token row (132-byte tokens, 128-byte rows) starts 16-byte aligned and
  // its K bytes load 16 at a time where 16-byte loads need that alignment.
  %aligned = tile.knob "kv_rows_aligned" : i32
  %isAligned = arith.cmpi ne, %aligned, %c0 : i32
  %bsQuads = arith.shrui %bs, %c2 : i32
  %bs4 = arith.shli %bsQuads, %c2 : i32
  %bsA = arith.select %isAligned, %bs4, %bs : i32
  %bsm1 = arith.subi %bs, %c1 : i32
  %bsm1v = tile.splat %bsm1 : i32 -> !tok
  %shiftv = tile.splat %block_shift : i32 -> !tok
  %Lm1 = arith.subi %L, %c1 : i32
  %lastTok = arith.maxsi %Lm1, %c0 : i32
  %lastv = tile.splat %lastTok : i32 -> !tok
  %b64 = arith.extsi %b : i32 to i64
  %btRow = arith.muli %b64, %bt_stride : i64
  %btRowv = tile.splat %btRow : i64 -> !tok64
  %tr = tile.range 0 to {{C}} : !tok
  // Per block: block_size*128 value bytes then block_size f32 scales;
  // token rows of values and scales counted in 4-byte words, so that the
  // byte offsets are visibly multiples of 4 (dword-aligned 16-byte loads).
  %bs64 = arith.extsi %bsA : i32 to i64
  %c33 = arith.constant 33 : i64
  %c32 = arith.constant 32 : i64
  %blockWords = arith.muli %bs64, %c33 : i64
  %blockWordsv = tile.splat %blockWords : i64 -> !tok64
  %scaleWords = arith.muli %bs64, %c32 : i64
  %scaleWordsv = tile.splat %scaleWords : i64 -> !tok64
  %c32v = arith.constant dense<32> : !tok64
  %c4v = arith.constant dense<4> : !tok64
  %kvf = tile.ptr_cast %kv : !tile.ptr<i8> to !tile.ptr<f32>
  %dk_1 = tile.expand_dims %d64, 1 : tensor<128xi64> -> tensor<128x1xi64>
  %dk = tile.broadcast %dk_1 : tensor<128x1xi64> -> !koff

  // Block ids of the tokens of chunk %cb (the first this split computes);
  // not read when the split has no chunk.
  %some = arith.cmpi slt, %cb, %ce : i32
  %somev = tile.splat %some : i1 -> tensor<{{C}}xi1>
  %t0f = arith.muli %cb, %C : i32
  %t0fv = tile.splat %t0f : i32 -> !tok
  %tokf = arith.addi %t0fv, %tr : !tok
  %tcf = arith.minsi %tokf, %lastv : !tok
  %bif = arith.shrui %tcf, %shiftv : !tok
  %bif64 = arith.extsi %bif : !tok to !tok64
  %btf = arith.addi %btRowv, %bif64 : !tok64
  %ids0 = tile.load %block_tables[%btf] mask(%somev : tensor<{{C}}xi1>)
      : !tile.ptr<i32>, !tok64 -> !tok

  // Chunk c of the loop computes on the K and scales loaded by iteration
  // c - 1 while the loads of chunk c + 1 (K, scales) and c + 2 (block ids)
  // are in flight. The loop starts one iteration early, which only loads.
  %zk = arith.constant dense<0> : !k8
  %zs = arith.constant dense<0.0> : !scl
  %zacc = arith.constant dense<0.0> : !acc
  %negInf = arith.constant dense<0xFF800000> : !logit
  %lb = arith.subi %cb, %c1 : i32
  %ub = arith.select %some, %ce, %lb : i32
  %tail = arith.cmpi ne, %write_tail, %c0 : i32
  %tailv = tile.splat %tail : i1 -> !rcmask
  %mmlrc = tile.splat %max_model_len : i32 -> !rc32
  %len_1 = tile.expand_dims %len, 1 : !rows -> tensor<{{R}}x1xi32>
  %lenrc = tile.broadcast %len_1 : tensor<{{R}}x1xi32> -> !rc32
  %rowOk_1 = tile.expand_dims %rowOk, 1 : !rmask -> tensor<{{R}}x1xi1>
  %rowOkrc = tile.broadcast %rowOk_1 : tensor<{{R}}x1xi1> -> !rcmask
  %r064 = arith.extsi %r0 : i32 to i64
  %ri64 = arith.extsi %ri : !rows to !rows64
  %r0v = tile.splat %r064 : i64 -> !rows64
  %grow = arith.addi %r0v, %ri64 : !rows64
  %ostride = tile.splat %out_stride : i64 -> !rows64
  %orow = arith.muli %grow, %ostride : !rows64
  %orow_1 = tile.expand_dims %orow, 1 : !rows64 -> tensor<{{R}}x1xi64>
  %orowrc = tile.broadcast %orow_1 : tensor<{{R}}x1xi64> -> !rc64
  %tr_1 = tile.expand_dims %tr, 0 : !tok -> tensor<1x{{C}}xi32>
  %trrc = tile.broadcast %tr_1 : tensor<1x{{C}}xi32> -> !rc32
  // ---- K through a shared-memory ring (stages > 0; sm_90a) -------------
  // Q [M, 128] is copied once into shared memory; chunk cb + f of this
  // split is fill f of a ring of S stages: its K [128, C] bytes go by
  // 16-byte cp.async into stage f mod S and complete on barrier f mod S.
  // Iteration i consumes fill i - S (wait, wgmma from shared memory, the
  // logits) and then refills that stage with fill i, so S fills are in
  // flight while a chunk computes. Block ids and scales are plain loads
  // issued before the wait, so their latency overlaps it.
  %stagesK = tile.knob "stages" : i32
  %ring = arith.cmpi ne, %stagesK, %c0 : i32
  scf.if %ring {
    %q8p = tile.ptr_cast %q : !tile.ptr<i8> to !tile.ptr<f8E4M3FN>
    %kv8p = tile.ptr_cast %kv : !tile.ptr<i8> to !tile.ptr<f8E4M3FN>
    %cS = arith.constant {{S}} : i32
    %mine = arith.subi %ce, %cb : i32
    %count = arith.maxsi %mine, %c0 : i32
    %iters = arith.addi %count, %cS : i32
    %tokensOnM = tile.knob "tokens_on_m" : i1
    scf.if %tokensOnM {
      // tokens_on_m = 1: the ring's stages are K as [C, 128] (token rows,
      // K-major: wgmma's A operand, 64 tokens per warpgroup and M tile) and
      // Q is resident as [128, M] (its B operand), so one m64nMk32 chain per
      // 64 tokens covers every head of the program's rows. The logits are
      // then C^T [C, M] = K * Q^T: relu, times the weights along the
      // columns, and the head sum over N, inside a thread's accumulator
      // fragment and its quad of lanes. Schedule, masks and stores are the
      // ring's above, transposed to [C, R].
      %qmemT = tile.local_alloc : !memQT
      %ringKT = tile.local_alloc : !ringKT
      %barT = tile.async_barrier_alloc : !bars
      %qrowT_0 = tile.expand_dims %qrow, 0 : !mvec64 -> tensor<1x{{M}}xi64>
      %qrowT = tile.broadcast %qrowT_0 : tensor<1x{{M}}xi64> -> !qoffT
      %dT_1 = tile.expand_dims %d64, 1 : tensor<128xi64> -> tensor<128x1xi64>
      %dqT = tile.broadcast %dT_1 : tensor<128x1xi64> -> !qoffT
      %qoffT = arith.addi %qrowT, %dqT : !qoffT
      %mOkT_0 = tile.expand_dims %mOk, 0 : !mmask -> tensor<1x{{M}}xi1>
      %qmaskT = tile.broadcast %mOkT_0 : tensor<1x{{M}}xi1> -> !qmaskT
      %dkT_0 = tile.expand_dims %d64, 0 : tensor<128xi64> -> tensor<1x128xi64>
      %dkT = tile.broadcast %dkT_0 : tensor<1x128xi64> -> !koffT
      %wT_0 = tile.expand_dims %wv, 0 : !wvec -> tensor<1x{{M}}xf32>
      %wmcT = tile.broadcast %wT_0 : tensor<1x{{M}}xf32> -> !accT
      %zaccT = arith.constant dense<0.0> : !accT
      %negInfT = arith.constant dense<0xFF800000> : !logitT
      %tailT = tile.splat %tail : i1 -> !crmask
      %mmlcr = tile.splat %max_model_len : i32 -> !cr32
      %len_0 = tile.expand_dims %len, 0 : !rows -> tensor<1x{{R}}xi32>
      %lencr = tile.broadcast %len_0 : tensor<1x{{R}}xi32> -> !cr32
      %rowOk_0 = tile.expand_dims %rowOk, 0 : !rmask -> tensor<1x{{R}}xi1>
      %rowOkcr = tile.broadcast %rowOk_0 : tensor<1x{{R}}xi1> -> !crmask
      %orow_0 = tile.expand_dims %orow, 0 : !rows64 -> tensor<1x{{R}}xi64>
      %orowcr = tile.broadcast %orow_0 : tensor<1x{{R}}xi64> -> !cr64
      %trT_1 = tile.expand_dims %tr, 1 : !tok -> tensor<{{C}}x1xi32>
      %trcr = tile.broadcast %trT_1 : tensor<{{C}}x1xi32> -> !cr32
      %tqT = tile.async_copy_global_to_local %q8p[%qoffT] mask(%qmaskT : !qmaskT), %qmemT
          : !tile.ptr<f8E4M3FN>, !qoffT -> !memQT
      scf.for %i = %c0 to %iters step %c1 : i32 {
        %fillOk = arith.cmpi slt, %i, %count : i32
        %fillOkv = tile.splat %fillOk : i1 -> tensor<{{C}}xi1>
        %cf = arith.addi %cb, %i : i32
        %tf0 = arith.muli %cf, %C : i32
        %tf0v = tile.splat %tf0 : i32 -> !tok
        %tokF = arith.addi %tf0v, %tr : !tok
        %tcF = arith.minsi %tokF, %lastv : !tok
        %biF = arith.shrui %tcF, %shiftv : !tok
        %biF64 = arith.extsi %biF : !tok to !tok64
        %btF = arith.addi %btRowv, %biF64 : !tok64
        %idsF = tile.load %block_tables[%btF] mask(%fillOkv : tensor<{{C}}xi1>)
            : !tile.ptr<i32>, !tok64 -> !tok

        %j = arith.subi %i, %cS : i32
        %consumes = arith.cmpi sge, %i, %cS : i32
        scf.if %consumes {
          %cj = arith.addi %cb, %j : i32
          %t0 = arith.muli %cj, %C : i32
          %t0v = tile.splat %t0 : i32 -> !tok
          %tokJ = arith.addi %t0v, %tr : !tok
          %tcJ = arith.minsi %tokJ, %lastv : !tok
          %biJ = arith.shrui %tcJ, %shiftv : !tok
          %biJ64 = arith.extsi %biJ : !tok to !tok64
          %btJ = arith.addi %btRowv, %biJ64 : !tok64
          %idsJ = tile.load %block_tables[%btJ] : !tile.ptr<i32>, !tok64 -> !tok
          %inJ = arith.andi %tcJ, %bsm1v : !tok
          %inJ64 = arith.extsi %inJ : !tok to !tok64
          %idsJ64 = arith.extsi %idsJ : !tok to !tok64
          %blkJ = arith.muli %idsJ64, %blockWordsv : !tok64
          %swJ0 = arith.addi %blkJ, %scaleWordsv : !tok64
          %swJ = arith.addi %swJ0, %inJ64 : !tok64
          %scur = tile.load %kvf[%swJ] : !tile.ptr<f32>, !tok64 -> !scl
          %w = tile.async_wait %tqT barrier(%barT[%j] : !bars)
          %st = arith.remui %j, %cS : i32
          %cur = tile.memdesc_index %ringKT[%st] : !ringKT -> !stageKT
          %acc = tile.dot %cur, %qmemT, %zaccT : !stageKT, !memQT -> !accT
          %relu = arith.maxnumf %acc, %zaccT : !accT
          %wrelu = arith.mulf %relu, %wmcT : !accT
          %w3 = tile.reshape %wrelu : !accT -> !accT3
          %sum = tile.reduce add %w3, 2 : !accT3 -> !logitT
          %s_1 = tile.expand_dims %scur, 1 : !scl -> tensor<{{C}}x1xf32>
          %scr = tile.broadcast %s_1 : tensor<{{C}}x1xf32> -> !logitT
          %logit = arith.mulf %sum, %scr : !logitT
          %t0cr = tile.splat %t0 : i32 -> !cr32
          %tok = arith.addi %t0cr, %trcr : !cr32
          %inLen = arith.cmpi slt, %tok, %lencr : !cr32
          %val = arith.select %inLen, %logit, %negInfT : !crmask, !logitT
          %inRow = arith.cmpi slt, %tok, %mmlcr : !cr32
          %wanted = arith.ori %inLen, %tailT : !crmask
          %keep0 = arith.andi %rowOkcr, %inRow : !crmask
          %keep = arith.andi %keep0, %wanted : !crmask
          %tok64 = arith.extsi %tok : !cr32 to !cr64
          %ooff = arith.addi %orowcr, %tok64 : !cr64
          tile.store %val, %out[%ooff] mask(%keep : !crmask)
              : !logitT, !tile.ptr<f32>, !cr64
        }

        // Fill i: K [C, 128], 16 bytes of one token row per copy.
        scf.if %fillOk {
          %inF = arith.andi %tcF, %bsm1v : !tok
          %inF64 = arith.extsi %inF : !tok to !tok64
          %idsF64 = arith.extsi %idsF : !tok to !tok64
          %blkF = arith.muli %idsF64, %blockWordsv : !tok64
          %rowF = arith.muli %inF64, %c32v : !tok64
          %rowWordsF = arith.addi %blkF, %rowF : !tok64
          %rowBytesF = arith.muli %rowWordsF, %c4v : !tok64
          %rbF_1 = tile.expand_dims %rowBytesF, 1 : !tok64 -> tensor<{{C}}x1xi64>
          %rbF = tile.broadcast %rbF_1 : tensor<{{C}}x1xi64> -> !koffT
          %koffF = arith.addi %rbF, %dkT : !koffT
          %sf = arith.remui %i, %cS : i32
          %stF = tile.memdesc_index %ringKT[%sf] : !ringKT -> !stageKT
          %tk = tile.async_copy_global_to_local %kv8p[%koffF], %stF
              : !tile.ptr<f8E4M3FN>, !koffT -> !stageKT
          %gk = tile.async_commit_group %tk barrier(%barT[%i] : !bars)
        }
      }
    } else {
      %qmem = tile.local_alloc : !memQ
      %ringK = tile.local_alloc : !ringK
      %bar = tile.async_barrier_alloc : !bars
      // Q lands before fill 0's barrier fires (it counts every earlier copy).
      %tq = tile.async_copy_global_to_local %q8p[%qoff] mask(%qmask : !qmask), %qmem
          : !tile.ptr<f8E4M3FN>, !qoff -> !memQ
      scf.for %i = %c0 to %iters step %c1 : i32 {
        %fillOk = arith.cmpi slt, %i, %count : i32
        %fillOkv = tile.splat %fillOk : i1 -> tensor<{{C}}xi1>
        %cf = arith.addi %cb, %i : i32
        %tf0 = arith.muli %cf, %C : i32
        %tf0v = tile.splat %tf0 : i32 -> !tok
        %tokF = arith.addi %tf0v, %tr : !tok
        %tcF = arith.minsi %tokF, %lastv : !tok
        %biF = arith.shrui %tcF, %shiftv : !tok
        %biF64 = arith.extsi %biF : !tok to !tok64
        %btF = arith.addi %btRowv, %biF64 : !tok64
        %idsF = tile.load %block_tables[%btF] mask(%fillOkv : tensor<{{C}}xi1>)
            : !tile.ptr<i32>, !tok64 -> !tok

        %j = arith.subi %i, %cS : i32
        %consumes = arith.cmpi sge, %i, %cS : i32
        scf.if %consumes {
          %cj = arith.addi %cb, %j : i32
          %t0 = arith.muli %cj, %C : i32
          %t0v = tile.splat %t0 : i32 -> !tok
          %tokJ = arith.addi %t0v, %tr : !tok
          %tcJ = arith.minsi %tokJ, %lastv : !tok
          %biJ = arith.shrui %tcJ, %shiftv : !tok
          %biJ64 = arith.extsi %biJ : !tok to !tok64
          %btJ = arith.addi %btRowv, %biJ64 : !tok64
          %idsJ = tile.load %block_tables[%btJ] : !tile.ptr<i32>, !tok64 -> !tok
          %inJ = arith.andi %tcJ, %bsm1v : !tok
          %inJ64 = arith.extsi %inJ : !tok to !tok64
          %idsJ64 = arith.extsi %idsJ : !tok to !tok64
          %blkJ = arith.muli %idsJ64, %blockWordsv : !tok64
          %swJ0 = arith.addi %blkJ, %scaleWordsv : !tok64
          %swJ = arith.addi %swJ0, %inJ64 : !tok64
          %scur = tile.load %kvf[%swJ] : !tile.ptr<f32>, !tok64 -> !scl
          %w = tile.async_wait %tq barrier(%bar[%j] : !bars)
          %st = arith.remui %j, %cS : i32
          %cur = tile.memdesc_index %ringK[%st] : !ringK -> !stageK
          %acc = tile.dot %qmem, %cur, %zacc : !memQ, !stageK -> !acc
          %relu = arith.maxnumf %acc, %zacc : !acc
          %wrelu = arith.mulf %relu, %wmc : !acc
          %w3 = tile.reshape %wrelu : !acc -> !acc3
          %sum = tile.reduce add %w3, 1 : !acc3 -> !logit
          %s_1 = tile.expand_dims %scur, 0 : !scl -> tensor<1x{{C}}xf32>
          %src = tile.broadcast %s_1 : tensor<1x{{C}}xf32> -> !logit
          %logit = arith.mulf %sum, %src : !logit
          %t0rc = tile.splat %t0 : i32 -> !rc32
          %tok = arith.addi %t0rc, %trrc : !rc32
          %inLen = arith.cmpi slt, %tok, %lenrc : !rc32
          %val = arith.select %inLen, %logit, %negInf : !rcmask, !logit
          %inRow = arith.cmpi slt, %tok, %mmlrc : !rc32
          %wanted = arith.ori %inLen, %tailv : !rcmask
          %keep0 = arith.andi %rowOkrc, %inRow : !rcmask
          %keep = arith.andi %keep0, %wanted : !rcmask
          %tok64 = arith.extsi %tok : !rc32 to !rc64
          %ooff = arith.addi %orowrc, %tok64 : !rc64
          tile.store %val, %out[%ooff] mask(%keep : !rcmask)
              : !logit, !tile.ptr<f32>, !rc64
        }

        // Fill i into the stage just read (the copy's barrier orders it
        // after every warpgroup's wgmma read it).
        scf.if %fillOk {
          %inF = arith.andi %tcF, %bsm1v : !tok
          %inF64 = arith.extsi %inF : !tok to !tok64
          %idsF64 = arith.extsi %idsF : !tok to !tok64
          %blkF = arith.muli %idsF64, %blockWordsv : !tok64
          %rowF = arith.muli %inF64, %c32v : !tok64
          %rowWordsF = arith.addi %blkF, %rowF : !tok64
          %rowBytesF = arith.muli %rowWordsF, %c4v : !tok64
          %rbF_1 = tile.expand_dims %rowBytesF, 0 : !tok64 -> tensor<1x{{C}}xi64>
          %rbF = tile.broadcast %rbF_1 : tensor<1x{{C}}xi64> -> !koff
          %koffF = arith.addi %rbF, %dk : !koff
          %sf = arith.remui %i, %cS : i32
          %stF = tile.memdesc_index %ringK[%sf] : !ringK -> !stageK
          %tk = tile.async_copy_global_to_local %kv8p[%koffF], %stF
              : !tile.ptr<f8E4M3FN>, !koff -> !stageK
          %gk = tile.async_commit_group %tk barrier(%bar[%i] : !bars)
        }
      }
    }
  } else {
    // ---- K staged through registers (stages = 0) -----------------------
    %loop:3 = scf.for %c = %lb to %ub step %c1
        iter_args(%kcur = %zk, %scur = %zs, %idsn = %ids0) -> (!k8, !scl, !tok) : i32 {
      // ---- K load (plain layout) -------------------------------------------
      // K of chunk c + 1 as [128, C] bytes (d, token) and its scales; every
      // lane loads 16 contiguous bytes of one token row per access. With
      // preshuffle = 1 the value bytes of each block are stored
      // [bs/16][128/16][16 tok][16 B]: the load takes the block start and
      // the plain in-block offsets, and tile-preshuffle-kv addresses them
      // (16 tokens of one 16-byte D group are then 256 contiguous bytes).
      %cn = arith.addi %c, %c1 : i32
      %tn0 = arith.muli %cn, %C : i32
      %tn0v = tile.splat %tn0 : i32 -> !tok
      %tokn = arith.addi %tn0v, %tr : !tok
      %tcn = arith.minsi %tokn, %lastv : !tok
      %inblk = arith.andi %tcn, %bsm1v : !tok
      %inblk64 = arith.extsi %inblk : !tok to !tok64
      %idsn64 = arith.extsi %idsn : !tok to !tok64
      %blkw = arith.muli %idsn64, %blockWordsv : !tok64
      %roww = arith.muli %inblk64, %c32v : !tok64
      %preshuffle = tile.knob "preshuffle" : i32
      %shuffled = arith.cmpi ne, %preshuffle, %c0 : i32
      %knext = scf.if %shuffled -> (!k8) {
        %baseBytes = arith.muli %blkw, %c4v : !tok64
        %rowInBlk = arith.muli %roww, %c4v : !tok64
        %bb_1 = tile.expand_dims %baseBytes, 0 : !tok64 -> tensor<1x{{C}}xi64>
        %bb = tile.broadcast %bb_1 : tensor<1x{{C}}xi64> -> !koff
        %ib_1 = tile.expand_dims %rowInBlk, 0 : !tok64 -> tensor<1x{{C}}xi64>
        %ib = tile.broadcast %ib_1 : tensor<1x{{C}}xi64> -> !koff
        %inoff = arith.addi %ib, %dk : !koff
        %k = tile.load %kv[%inoff] block_base(%bb : !koff)
            {data_layout = #tile<data_layout preshuffled>}
            : !tile.ptr<i8>, !koff -> !k8
        scf.yield %k : !k8
      } else {
        %rowWords = arith.addi %blkw, %roww : !tok64
        %rowBytes = arith.muli %rowWords, %c4v : !tok64
        %rb_1 = tile.expand_dims %rowBytes, 0 : !tok64 -> tensor<1x{{C}}xi64>
        %rb = tile.broadcast %rb_1 : tensor<1x{{C}}xi64> -> !koff
        %koff = arith.addi %rb, %dk : !koff
        %k = tile.load %kv[%koff] : !tile.ptr<i8>, !koff -> !k8
        scf.yield %k : !k8
      }
      %sw0 = arith.addi %blkw, %scaleWordsv : !tok64
      %sw = arith.addi %sw0, %inblk64 : !tok64
      %snext = tile.load %kvf[%sw] : !tile.ptr<f32>, !tok64 -> !scl
      // ---- end of K load ---------------------------------------------------
  
      // Block ids of chunk c + 2.
      %cnn = arith.addi %c, %c2 : i32
      %tnn0 = arith.muli %cnn, %C : i32
      %tnn0v = tile.splat %tnn0 : i32 -> !tok
      %toknn = arith.addi %tnn0v, %tr : !tok
      %tcnn = arith.minsi %toknn, %lastv : !tok
      %binn = arith.shrui %tcnn, %shiftv : !tok
      %binn64 = arith.extsi %binn : !tok to !tok64
      %btnn = arith.addi %btRowv, %binn64 : !tok64
      %idsnn = tile.load %block_tables[%btnn] : !tile.ptr<i32>, !tok64 -> !tok
  
      %computes = arith.cmpi sge, %c, %cb : i32
      scf.if %computes {
        %acc = scf.if %fnuz -> (!acc) {
          %qf = arith.bitcast %q8 : !q8 to tensor<{{M}}x128xf8E4M3FNUZ>
          %kf = arith.bitcast %kcur : !k8 to tensor<128x{{C}}xf8E4M3FNUZ>
          %r = tile.dot %qf, %kf, %zacc : tensor<{{M}}x128xf8E4M3FNUZ>, tensor<128x{{C}}xf8E4M3FNUZ> -> !acc
          scf.yield %r : !acc
        } else {
          %qf = arith.bitcast %q8 : !q8 to tensor<{{M}}x128xf8E4M3FN>
          %kf = arith.bitcast %kcur : !k8 to tensor<128x{{C}}xf8E4M3FN>
          %r = tile.dot %qf, %kf, %zacc : tensor<{{M}}x128xf8E4M3FN>, tensor<128x{{C}}xf8E4M3FN> -> !acc
          scf.yield %r : !acc
        }
        %relu = arith.maxnumf %acc, %zacc : !acc
        %wrelu = arith.mulf %relu, %wmc : !acc
        %w3 = tile.reshape %wrelu : !acc -> !acc3
        %sum = tile.reduce add %w3, 1 : !acc3 -> !logit
        %s_1 = tile.expand_dims %scur, 0 : !scl -> tensor<1x{{C}}xf32>
        %src = tile.broadcast %s_1 : tensor<1x{{C}}xf32> -> !logit
        %logit = arith.mulf %sum, %src : !logit
        %t0 = arith.muli %c, %C : i32
        %t0rc = tile.splat %t0 : i32 -> !rc32
        %tok = arith.addi %t0rc, %trrc : !rc32
        %inLen = arith.cmpi slt, %tok, %lenrc : !rc32
        %val = arith.select %inLen, %logit, %negInf : !rcmask, !logit
        %inRow = arith.cmpi slt, %tok, %mmlrc : !rc32
        %wanted = arith.ori %inLen, %tailv : !rcmask
        %keep0 = arith.andi %rowOkrc, %inRow : !rcmask
        %keep = arith.andi %keep0, %wanted : !rcmask
        %tok64 = arith.extsi %tok : !rc32 to !rc64
        %ooff = arith.addi %orowrc, %tok64 : !rc64
        tile.store %val, %out[%ooff] mask(%keep : !rcmask)
            : !logit, !tile.ptr<f32>, !rc64
      }
      scf.yield %knext, %snext, %idsnn : !k8, !scl, !tok
    }
  }

  // The -inf tail past the computed chunks: chunks nch + split,
  // nch + split + split_kv, ... up to max_model_len.
  %isSplitGrid = arith.cmpi eq, %persistentKnob, %c0 : i32
  %splitTail = arith.andi %tail, %isSplitGrid : i1
  scf.if %splitTail {
    %mmlr = arith.addi %max_model_len, %Cm1 : i32
    %ntot = arith.divui %mmlr, %C : i32
    %tb = arith.addi %nch, %split : i32
    scf.for %c = %tb to %ntot step %nsplit : i32 {
      %t0 = arith.muli %c, %C : i32
      %t0rc = tile.splat %t0 : i32 -> !rc32
      %tok = arith.addi %t0rc, %trrc : !rc32
      %inRow = arith.cmpi slt, %tok, %mmlrc : !rc32
      %keep = arith.andi %rowOkrc, %inRow : !rcmask
      %tok64 = arith.extsi %tok : !rc32 to !rc64
      %ooff = arith.addi %orowrc, %tok64 : !rc64
      tile.store %negInf, %out[%ooff] mask(%keep : !rcmask)
          : !logit, !tile.ptr<f32>, !rc64
    }
  }

  // ---- Persistent variant (persistent = 1) ---------------------------------
  // Program p of the grid (num_cus, 1, ceil(next_n / rows_per_program)) takes,
  // for its row group g, the segments from schedule pair p up to pair p + 1
  // (paged_mqa_logits_metadata: (batch, segment) start pairs), in (b, s)
  // order. Segment s of batch b is the tokens [s*S, (s+1)*S) with S =
  // split_tokens, of the batch's longest row as the metadata counts it, so
  // batch b has nseg_b = ceil(len_b / S) segments. Per batch, Q and the
  // weights of the group are loaded once; per segment the program does what
  // a split of the split-grid variant does: the pipelined chunk loop over the
  // segment's tokens below L (stores masked to the segment), then -inf for
  // the rest of the segment and for every nseg_b-th chunk of the batch's tail
  // past its last segment, so that the tail is spread over the batch's
  // segments. A batch of length 0 has no segment in the schedule: the
  // program whose first and last batches enclose it (program 0 from batch 0
  // on, which names each such batch exactly once) runs it as one empty
  // segment, whose tail is the whole row.
  scf.if %isPersistent {
    %c3 = arith.constant 3 : i32
    %pat = arith.muli %split, %c2 : i32
    %pat1 = arith.addi %pat, %c1 : i32
    %pat2 = arith.addi %pat, %c2 : i32
    %pat3 = arith.addi %pat, %c3 : i32
    %bA = tile.load %schedule[%pat] : !tile.ptr<i32>, i32 -> i32
    %sA = tile.load %schedule[%pat1] : !tile.ptr<i32>, i32 -> i32
    %bZ = tile.load %schedule[%pat2] : !tile.ptr<i32>, i32 -> i32
    %sZ = tile.load %schedule[%pat3] : !tile.ptr<i32>, i32 -> i32
    %firstProg = arith.cmpi eq, %split, %c0 : i32
    %bFrom = arith.select %firstProg, %c0, %bA : i32
    %endsInside = arith.cmpi sgt, %sZ, %c0 : i32
    %bZ1 = arith.addi %bZ, %c1 : i32
    %bToRaw = arith.select %endsInside, %bZ1, %bZ : i32
    %bTo = arith.minsi %bToRaw, %batch : i32
    %segTok = arith.maxsi %split_tokens, %c1 : i32
    scf.for %pb = %bFrom to %bTo step %c1 : i32 {
      // The group's row lengths, as the split-grid variant computes them.
      %pctx = tile.load %context_lens[%pb] : !tile.ptr<i32>, i32 -> i32
      %pctxv = tile.splat %pctx : i32 -> !rows
      %pl1a = arith.subi %pctxv, %nnv : !rows
      %pl1b = arith.addi %pl1a, %jv : !rows
      %pl1 = arith.addi %pl1b, %onev : !rows
      %pbrow = arith.muli %pb, %next_n : i32
      %pbrowv = tile.splat %pbrow : i32 -> !rows
      // Rows past next_n read the batch's last row (rowOk drops them), so
      // that the load needs only the 2-D mask, not one per row.
      %nnm1v = arith.subi %nnv, %onev : !rows
      %jin = arith.minsi %jv, %nnm1v : !rows
      %pl2off = arith.addi %pbrowv, %jin : !rows
      %pl2 = tile.load %context_lens[%pl2off] mask(%is2dv : !rmask)
          : !tile.ptr<i32>, !rows -> !rows
      %plRaw = arith.select %is2dv, %pl2, %pl1 : !rmask, !rows
      %plPos = arith.maxsi %plRaw, %zerov : !rows
      %plCap = arith.minsi %plPos, %mmlv : !rows
      %plen = arith.select %rowOk, %plCap, %zerov : !rmask, !rows
      %pL = tile.reduce max %plen, 0 : !rows -> i32

      // len_b of the metadata: context_lens[b], or the longest of the
      // batch's next_n rows (2-D); negative counts as 0; not clamped.
      %jall = tile.range 0 to 8 : tensor<8xi32>
      %nn8 = tile.splat %next_n : i32 -> tensor<8xi32>
      %jallOk = arith.cmpi slt, %jall, %nn8 : tensor<8xi32>
      %is2d8 = tile.splat %is2d : i1 -> tensor<8xi1>
      %read8 = arith.andi %jallOk, %is2d8 : tensor<8xi1>
      %pbrow8 = tile.splat %pbrow : i32 -> tensor<8xi32>
      %at8 = arith.addi %pbrow8, %jall : tensor<8xi32>
      %l8 = tile.load %context_lens[%at8] mask(%read8 : tensor<8xi1>)
          : !tile.ptr<i32>, tensor<8xi32> -> tensor<8xi32>
      %l2max = tile.reduce max %l8, 0 : tensor<8xi32> -> i32
      %lb0 = arith.select %is2d, %l2max, %pctx : i32
      %lenB = arith.maxsi %lb0, %c0 : i32
      %segWhole = arith.divui %lenB, %segTok : i32
      %segPart = arith.remui %lenB, %segTok : i32
      %hasPart = arith.cmpi ne, %segPart, %c0 : i32
      %hasPart32 = arith.extui %hasPart : i1 to i32
      %nseg = arith.addi %segWhole, %hasPart32 : i32
      %isFirstB = arith.cmpi eq, %pb, %bA : i32
      %sFrom = arith.select %isFirstB, %sA, %c0 : i32
      %isLastB = arith.cmpi eq, %pb, %bZ : i32
      %sToSeg = arith.select %isLastB, %sZ, %nseg : i32
      // A batch of length 0 (which this program encloses) runs as one empty
      // segment: no tokens, and the whole row as its tail.
      %emptyB = arith.cmpi eq, %nseg, %c0 : i32
      %sTo = arith.select %emptyB, %c1, %sToSeg : i32
      %segLen = arith.select %emptyB, %c0, %segTok : i32

      // Q and the weights of the group's rows in this batch, once.
      %pr0 = arith.addi %pbrow, %j0 : i32
      %pr0H = arith.muli %pr0, %H : i32
      %pr0H64 = arith.extsi %pr0H : i32 to i64
      %pr0Hv = tile.splat %pr0H64 : i64 -> !mvec64
      %pwrow = arith.addi %pr0Hv, %mr64 : !mvec64
      %pwv = tile.load %weights[%pwrow] mask(%mOk : !mmask)
          : !tile.ptr<f32>, !mvec64 -> !wvec
      %pqrow = arith.muli %pwrow, %c128v : !mvec64
      %pqrow_1 = tile.expand_dims %pqrow, 1 : !mvec64 -> tensor<{{M}}x1xi64>
      %pqrow2 = tile.broadcast %pqrow_1 : tensor<{{M}}x1xi64> -> !qoff
      %pqoff = arith.addi %pqrow2, %dq : !qoff
      %pq8 = tile.load %q[%pqoff] mask(%qmask : !qmask) : !tile.ptr<i8>, !qoff -> !q8
      %pw_1 = tile.expand_dims %pwv, 1 : !wvec -> tensor<{{M}}x1xf32>
      %pwmc = tile.broadcast %pw_1 : tensor<{{M}}x1xf32> -> !acc

      // Output rows and paging of this batch (as the split-grid variant).
      %pr064 = arith.extsi %pr0 : i32 to i64
      %pr0v = tile.splat %pr064 : i64 -> !rows64
      %pgrow = arith.addi %pr0v, %ri64 : !rows64
      %porow = arith.muli %pgrow, %ostride : !rows64
      %porow_1 = tile.expand_dims %porow, 1 : !rows64 -> tensor<{{R}}x1xi64>
      %porowrc = tile.broadcast %porow_1 : tensor<{{R}}x1xi64> -> !rc64
      %plen_1 = tile.expand_dims %plen, 1 : !rows -> tensor<{{R}}x1xi32>
      %plenrc = tile.broadcast %plen_1 : tensor<{{R}}x1xi32> -> !rc32
      %pLm1 = arith.subi %pL, %c1 : i32
      %plast = arith.maxsi %pLm1, %c0 : i32
      %plastv = tile.splat %plast : i32 -> !tok
      %pb64 = arith.extsi %pb : i32 to i64
      %pbtRow = arith.muli %pb64, %bt_stride : i64
      %pbtRowv = tile.splat %pbtRow : i64 -> !tok64

      // The batch's tail past its segments: [nseg*S, max_model_len), in
      // chunks; segment s writes chunks s, s + nseg, ...
      %segEnd = arith.muli %nseg, %segTok : i32
      %tailTok0 = arith.subi %max_model_len, %segEnd : i32
      %tailTok = arith.maxsi %tailTok0, %c0 : i32
      %tailTokr = arith.addi %tailTok, %Cm1 : i32
      %ntail = arith.divui %tailTokr, %C : i32
      %segStep = arith.maxsi %nseg, %c1 : i32
      scf.for %ps = %sFrom to %sTo step %c1 : i32 {
        // Tokens [st0, st1) of the segment; the chunks below L compute.
        %st0 = arith.muli %ps, %segTok : i32
        %st1a = arith.addi %st0, %segLen : i32
        %st1 = arith.minsi %st1a, %max_model_len : i32
        %stc = arith.minsi %st1, %pL : i32
        %span0 = arith.subi %stc, %st0 : i32
        %span = arith.maxsi %span0, %c0 : i32
        %spanr = arith.addi %span, %Cm1 : i32
        %pnc = arith.divui %spanr, %C : i32
        %st1rc = tile.splat %st1 : i32 -> !rc32
        %st0v = tile.splat %st0 : i32 -> !tok

        // Block ids of the segment's first chunk; not read without one.
        %psome = arith.cmpi sgt, %pnc, %c0 : i32
        %psomev = tile.splat %psome : i1 -> tensor<{{C}}xi1>
        %ptokf = arith.addi %st0v, %tr : !tok
        %ptcf = arith.minsi %ptokf, %plastv : !tok
        %pbif = arith.shrui %ptcf, %shiftv : !tok
        %pbif64 = arith.extsi %pbif : !tok to !tok64
        %pbtf = arith.addi %pbtRowv, %pbif64 : !tok64
        %pids0 = tile.load %block_tables[%pbtf] mask(%psomev : tensor<{{C}}xi1>)
            : !tile.ptr<i32>, !tok64 -> !tok

        // The split-grid variant's pipeline over chunks k of the segment
        // (tokens st0 + k*C): iteration k computes chunk k on what k - 1
        // loaded, while chunk k + 1's K and scales and chunk k + 2's block
        // ids are in flight; it starts at k = -1, which only loads.
        %cm1 = arith.subi %c0, %c1 : i32
        %pub = arith.select %psome, %pnc, %cm1 : i32
        %ploop:3 = scf.for %k = %cm1 to %pub step %c1
            iter_args(%pkcur = %zk, %pscur = %zs, %pidsn = %pids0) -> (!k8, !scl, !tok) : i32 {
          %kn = arith.addi %k, %c1 : i32
          %ktn0 = arith.muli %kn, %C : i32
          %ktn0v = tile.splat %ktn0 : i32 -> !tok
          %ktokr = arith.addi %ktn0v, %tr : !tok
          %ktokn = arith.addi %st0v, %ktokr : !tok
          %ktcn = arith.minsi %ktokn, %plastv : !tok
          %kinblk = arith.andi %ktcn, %bsm1v : !tok
          %kinblk64 = arith.extsi %kinblk : !tok to !tok64
          %kidsn64 = arith.extsi %pidsn : !tok to !tok64
          %kblkw = arith.muli %kidsn64, %blockWordsv : !tok64
          %kroww = arith.muli %kinblk64, %c32v : !tok64
          %pshuf = tile.knob "preshuffle" : i32
          %pshuffled = arith.cmpi ne, %pshuf, %c0 : i32
          %pknext = scf.if %pshuffled -> (!k8) {
            %kbaseBytes = arith.muli %kblkw, %c4v : !tok64
            %krowInBlk = arith.muli %kroww, %c4v : !tok64
            %kbb_1 = tile.expand_dims %kbaseBytes, 0 : !tok64 -> tensor<1x{{C}}xi64>
            %kbb = tile.broadcast %kbb_1 : tensor<1x{{C}}xi64> -> !koff
            %kib_1 = tile.expand_dims %krowInBlk, 0 : !tok64 -> tensor<1x{{C}}xi64>
            %kib = tile.broadcast %kib_1 : tensor<1x{{C}}xi64> -> !koff
            %kinoff = arith.addi %kib, %dk : !koff
            %kk = tile.load %kv[%kinoff] block_base(%kbb : !koff)
                {data_layout = #tile<data_layout preshuffled>}
                : !tile.ptr<i8>, !koff -> !k8
            scf.yield %kk : !k8
          } else {
            %krowWords = arith.addi %kblkw, %kroww : !tok64
            %krowBytes = arith.muli %krowWords, %c4v : !tok64
            %krb_1 = tile.expand_dims %krowBytes, 0 : !tok64 -> tensor<1x{{C}}xi64>
            %krb = tile.broadcast %krb_1 : tensor<1x{{C}}xi64> -> !koff
            %kkoff = arith.addi %krb, %dk : !koff
            %kk = tile.load %kv[%kkoff] : !tile.ptr<i8>, !koff -> !k8
            scf.yield %kk : !k8
          }
          %ksw0 = arith.addi %kblkw, %scaleWordsv : !tok64
          %ksw = arith.addi %ksw0, %kinblk64 : !tok64
          %psnext = tile.load %kvf[%ksw] : !tile.ptr<f32>, !tok64 -> !scl

          %knn = arith.addi %k, %c2 : i32
          %ktnn0 = arith.muli %knn, %C : i32
          %ktnn0v = tile.splat %ktnn0 : i32 -> !tok
          %ktoknnr = arith.addi %ktnn0v, %tr : !tok
          %ktoknn = arith.addi %st0v, %ktoknnr : !tok
          %ktcnn = arith.minsi %ktoknn, %plastv : !tok
          %kbinn = arith.shrui %ktcnn, %shiftv : !tok
          %kbinn64 = arith.extsi %kbinn : !tok to !tok64
          %kbtnn = arith.addi %pbtRowv, %kbinn64 : !tok64
          %pidsnn = tile.load %block_tables[%kbtnn] : !tile.ptr<i32>, !tok64 -> !tok

          %kcomputes = arith.cmpi sge, %k, %c0 : i32
          scf.if %kcomputes {
            %pacc = scf.if %fnuz -> (!acc) {
              %qf = arith.bitcast %pq8 : !q8 to tensor<{{M}}x128xf8E4M3FNUZ>
              %kf = arith.bitcast %pkcur : !k8 to tensor<128x{{C}}xf8E4M3FNUZ>
              %r = tile.dot %qf, %kf, %zacc : tensor<{{M}}x128xf8E4M3FNUZ>, tensor<128x{{C}}xf8E4M3FNUZ> -> !acc
              scf.yield %r : !acc
            } else {
              %qf = arith.bitcast %pq8 : !q8 to tensor<{{M}}x128xf8E4M3FN>
              %kf = arith.bitcast %pkcur : !k8 to tensor<128x{{C}}xf8E4M3FN>
              %r = tile.dot %qf, %kf, %zacc : tensor<{{M}}x128xf8E4M3FN>, tensor<128x{{C}}xf8E4M3FN> -> !acc
              scf.yield %r : !acc
            }
            %prelu = arith.maxnumf %pacc, %zacc : !acc
            %pwrelu = arith.mulf %prelu, %pwmc : !acc
            %pw3 = tile.reshape %pwrelu : !acc -> !acc3
            %psum = tile.reduce add %pw3, 1 : !acc3 -> !logit
            %ps_1 = tile.expand_dims %pscur, 0 : !scl -> tensor<1x{{C}}xf32>
            %psrc = tile.broadcast %ps_1 : tensor<1x{{C}}xf32> -> !logit
            %plogit = arith.mulf %psum, %psrc : !logit
            %kt0 = arith.muli %k, %C : i32
            %kt1 = arith.addi %st0, %kt0 : i32
            %kt0rc = tile.splat %kt1 : i32 -> !rc32
            %ktok = arith.addi %kt0rc, %trrc : !rc32
            %kinLen = arith.cmpi slt, %ktok, %plenrc : !rc32
            %kval = arith.select %kinLen, %plogit, %negInf : !rcmask, !logit
            %kinSeg = arith.cmpi slt, %ktok, %st1rc : !rc32
            %kwanted = arith.ori %kinLen, %tailv : !rcmask
            %kkeep0 = arith.andi %rowOkrc, %kinSeg : !rcmask
            %kkeep = arith.andi %kkeep0, %kwanted : !rcmask
            %ktok64 = arith.extsi %ktok : !rc32 to !rc64
            %kooff = arith.addi %porowrc, %ktok64 : !rc64
            tile.store %kval, %out[%kooff] mask(%kkeep : !rcmask)
                : !logit, !tile.ptr<f32>, !rc64
          }
          scf.yield %pknext, %psnext, %pidsnn : !k8, !scl, !tok
        }

        scf.if %tail {
          // -inf for the segment's chunks at or past L.
          %sall0 = arith.subi %st1, %st0 : i32
          %sall = arith.maxsi %sall0, %c0 : i32
          %sallr = arith.addi %sall, %Cm1 : i32
          %pncAll = arith.divui %sallr, %C : i32
          scf.for %rc = %pnc to %pncAll step %c1 : i32 {
            %rt0 = arith.muli %rc, %C : i32
            %rt1 = arith.addi %st0, %rt0 : i32
            %rt0rc = tile.splat %rt1 : i32 -> !rc32
            %rtok = arith.addi %rt0rc, %trrc : !rc32
            %rinSeg = arith.cmpi slt, %rtok, %st1rc : !rc32
            %rkeep = arith.andi %rowOkrc, %rinSeg : !rcmask
            %rtok64 = arith.extsi %rtok : !rc32 to !rc64
            %rooff = arith.addi %porowrc, %rtok64 : !rc64
            tile.store %negInf, %out[%rooff] mask(%rkeep : !rcmask)
                : !logit, !tile.ptr<f32>, !rc64
          }
          // This segment's share of the batch's tail.
          scf.for %tc = %ps to %ntail step %segStep : i32 {
            %tt0 = arith.muli %tc, %C : i32
            %tt1 = arith.addi %segEnd, %tt0 : i32
            %tt0rc = tile.splat %tt1 : i32 -> !rc32
            %ttok = arith.addi %tt0rc, %trrc : !rc32
            %tinRow = arith.cmpi slt, %ttok, %mmlrc : !rc32
            %tkeep = arith.andi %rowOkrc, %tinRow : !rcmask
            %ttok64 = arith.extsi %ttok : !rc32 to !rc64
            %tooff = arith.addi %porowrc, %ttok64 : !rc64
            tile.store %negInf, %out[%tooff] mask(%tkeep : !rcmask)
                : !logit, !tile.ptr<f32>, !rc64
          }
        }
      }
    }
  }
  tile.return
}
