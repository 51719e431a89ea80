// Top-k per row of the sparse-attention indexer (DESIGN.md §3.2) in two
// variants: one program (workgroup) per row, for many rows (`persistent` =
// 0), and several programs per row joined by grid barriers, for few long
// rows (`persistent` = 1).
//
// Row r = b*next_n + j of `logits` (row stride `row_stride` elements) sees
// its first len_r columns: len_r = context_lens[b] - next_n + j + 1 with
// 1-D lengths (`lens_2d` = 0), context_lens[r] with 2-D lengths, clamped
// to [0, cols]. indices[r, 0..k) gets the columns of the k largest of
// them (tile.topk: a radix select over order-preserving keys, expanded by
// tile-expand-radix-select); a row with len_r <= k holds 0..len_r-1 and
// then -1. Ties go to the smaller column (stable), NaN ranks above +inf,
// -0.0 equals +0.0; the order inside a row is unspecified unless `sorted`.
// The row is read from global memory twice (the first digit's histogram
// and write pass) when the first threshold bin fits the expansion's LDS
// candidate buffer (4096 pairs on gfx942, gfx950 and sm_90; 2048 on sm_90
// with `sorted`, whose k pairs also live in shared memory): the later
// digits read the buffer. A larger bin makes the next digit read the row
// again.
//
// The grid: (rows) with `persistent` = 0, where `workspace` and `parts`
// are not read. With `persistent` = 1 it is (parts, rows): program_id 1 is
// the row (rows <= 64, tessel/topk_workspace.h), program_id 0 the part of
// it, and tile.topk's split form sums the first digit's histogram over the
// parts in `workspace` (kSplitWorkspaceBytes, zero before the first
// launch, left zero). Its grid barriers need every program of the grid
// resident at once, which the runtime's choice of `parts` ensures.
//
// Knobs: `k` (512, 1024, 2048), the row of indices; `num_waves`, the
// workgroup, which holds 256 elements per wave of a row per step (4 per
// lane, one 16-byte load); `sorted` (0, 1): the row in descending order
// of value, ties by the smaller column, a short row's 0..len_r-1 in that
// order before its -1 (the expansion sorts the selected pairs in LDS);
// `persistent` (0, 1): the variant, as above. Both knobs fold the scf.if
// on them away, so each variant holds one tile.topk.
{{let K = k}}
{{let C = num_waves * 256}}
tile.kernel @topk_per_row(
    %logits: !tile.ptr<f32>,
    %context_lens: !tile.ptr<i32>,
    %indices: !tile.ptr<i32>,
    %rows: i32,
    %cols: i32,
    %row_stride: i64,
    %next_n: i32,
    %lens_2d: i32,
    %workspace: !tile.ptr<i32>,
    %parts: i32) attributes {knobs = [
      #tile.knob<"k" : i32 = 2048, values = [512, 1024, 2048]>,
      #tile.knob<"num_waves" : i32 = 16, values = [4, 8, 16]>,
      #tile.knob<"sorted" : i32 = 0, values = [0, 1]>,
      #tile.knob<"persistent" : i32 = 0, values = [0, 1]>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c0_i64 = arith.constant 0 : i64
  %k = tile.knob "k" : i32
  %persistentKnob = tile.knob "persistent" : i32
  %persistent = arith.cmpi ne, %persistentKnob, %c0 : i32
  %pid0 = tile.program_id 0 : i32
  %pid1 = tile.program_id 1 : i32
  %r = arith.select %persistent, %pid1, %pid0 : i32
  %part = arith.select %persistent, %pid0, %c0 : i32
  %nn = arith.maxsi %next_n, %c1 : i32
  %b = arith.divui %r, %nn : i32
  %j = arith.remui %r, %nn : i32
  %is2d = arith.cmpi ne, %lens_2d, %c0 : i32
  %at = arith.select %is2d, %r, %b : i32
  %l = tile.load %context_lens[%at] : !tile.ptr<i32>, i32 -> i32
  %l1 = arith.subi %l, %nn : i32
  %l2 = arith.addi %l1, %j : i32
  %causal = arith.addi %l2, %c1 : i32
  %len = arith.select %is2d, %l, %causal : i32
  %len0 = arith.maxsi %len, %c0 : i32
  %n = arith.minsi %len0, %cols : i32
  %r64 = arith.extsi %r : i32 to i64
  %src = arith.muli %r64, %row_stride : i64
  %k64 = arith.extsi %k : i32 to i64
  %dst = arith.muli %r64, %k64 : i64
  %sortedKnob = tile.knob "sorted" : i32
  %sorted = arith.cmpi ne, %sortedKnob, %c0 : i32
  scf.if %persistent {
    scf.if %sorted {
      tile.topk %logits[%src], %n -> %indices[%dst]
          split(%workspace[%c0_i64], %r, %part, %parts)
          {k = {{K}} : i32, chunk = {{C}} : i32, stable, sorted}
          : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<i32>
    } else {
      tile.topk %logits[%src], %n -> %indices[%dst]
          split(%workspace[%c0_i64], %r, %part, %parts)
          {k = {{K}} : i32, chunk = {{C}} : i32, stable}
          : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<i32>
    }
  } else {
    scf.if %sorted {
      tile.topk %logits[%src], %n -> %indices[%dst] {k = {{K}} : i32, chunk = {{C}} : i32, stable, sorted}
          : !tile.ptr<f32>, !tile.ptr<i32>
    } else {
      tile.topk %logits[%src], %n -> %indices[%dst] {k = {{K}} : i32, chunk = {{C}} : i32, stable}
          : !tile.ptr<f32>, !tile.ptr<i32>
    }
  }
  tile.return
}
