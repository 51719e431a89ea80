// Schedule metadata of the persistent paged MQA logits kernel (DESIGN.md
// §3.3): splits every batch's context into segments of `split_tokens`
// tokens and hands each of `num_cus` units floor(S/n) or ceil(S/n) of the
// S segments, in order.
//
// For batch b, len_b is context_lens[b] (1-D lengths) or the largest of
// context_lens[b*next_n + j] over j < next_n (2-D lengths), negative
// lengths counting as 0; segs_b = ceil(len_b / split_tokens) and the
// batches' segments are numbered in order, batch b holding
// [prefix_excl[b], prefix_excl[b] + segs_b). With q = S / n, rem = S % n,
// unit i < n starts at global segment g_i = i*q + min(i, rem), and
//   schedule[i] = (b, g_i - prefix_excl[b])   for the b holding g_i,
//   schedule[i] = (batch, 0)                  when g_i == S,
//   schedule[n] = (batch, 0).
// In both cases schedule[i].b = #{b : prefix_incl[b] <= g_i} and the
// offset is g_i - (the segments of those batches): with the prefix sums in
// a sorted tile, each unit finds both by a binary search (tile.gather), so
// the work is O(B + n log B) spread over the lanes, with no loop over
// batches per unit.
//
// One workgroup. Batches go through in tiles of 4096 and units in tiles of
// 512: a first pass over the batch tiles sums S; then, per unit tile, a
// pass over the batch tiles scans each (tile.scan) and advances every
// unit's count by a search inside the tile, carrying the running prefix.
// With one batch tile (B <= 4096) there is no first pass: S is that tile's
// sum, taken in the searching pass, which saves a load of the lengths and a
// reduction on the kernel's serial chain. The search takes only the steps
// the tile's batches need (floor(log2(batches in the tile)) + 1 of 13).
// Limits: S < 2^31 - 1 and batch * next_n < 2^31 (i32 arithmetic).
// split_tokens < 1 counts as 1; num_cus < 0 writes nothing.
// `num_waves`: 16 (1024 lanes, 4 batches per lane) is the widest workgroup;
// 8 also fits in registers; 4 is correct but spills SGPRs on gfx942, so
// variants.json builds 8 and 16.
tile.kernel @paged_mqa_logits_metadata(
    %context_lens: !tile.ptr<i32>,
    %schedule: !tile.ptr<i32>,
    %batch: i32,
    %next_n: i32,
    %lens_2d: i32,
    %split_tokens: i32,
    %num_cus: i32) attributes {knobs = [
      #tile.knob<"num_waves" : i32 = 16, values = [4, 8, 16]>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c13 = arith.constant 13 : i32
  %c512 = arith.constant 512 : i32
  %c4095 = arith.constant 4095 : i32
  %c4096 = arith.constant 4096 : i32
  %split = arith.maxsi %split_tokens, %c1 : i32
  %n = arith.maxsi %num_cus, %c1 : i32 // divisor only
  %is2d = arith.cmpi ne, %lens_2d, %c0 : i32
  %per_b0 = arith.select %is2d, %next_n, %c1 : i32
  %per_b = arith.maxsi %per_b0, %c0 : i32
  %nb = arith.maxsi %batch, %c0 : i32
  %nb_up = arith.addi %nb, %c4095 : i32
  %batch_tiles = arith.divui %nb_up, %c4096 : i32
  %rows = arith.maxsi %num_cus, %c0 : i32 // rows 0..num_cus are written
  %rows_up = arith.addi %rows, %c512 : i32
  %unit_tiles = arith.divui %rows_up, %c512 : i32
  %passes = arith.addi %unit_tiles, %c1 : i32
  // One batch tile: no summing pass (S comes from the tile itself).
  %single = arith.cmpi ule, %batch_tiles, %c1 : i32
  %first_pass = arith.select %single, %c1, %c0 : i32

  %brange = tile.range 0 to 4096 : tensor<4096xi32>
  %urange = tile.range 0 to 512 : tensor<512xi32>
  %zb = arith.constant dense<0> : tensor<4096xi32>
  %zu = arith.constant dense<0> : tensor<512xi32>
  %never = arith.constant dense<2147483647> : tensor<4096xi32>
  %split_v = tile.splat %split : i32 -> tensor<4096xi32>
  %per_b_v = tile.splat %per_b : i32 -> tensor<4096xi32>
  %nb_v = tile.splat %nb : i32 -> tensor<4096xi32>
  %tile_v = arith.constant dense<4096> : tensor<512xi32>
  %c1v = arith.constant dense<1> : tensor<512xi32>

  // Pass 0 sums S; pass p > 0 schedules units [(p-1)*512, p*512).
  %unused = scf.for %p = %first_pass to %passes step %c1 iter_args(%s = %c0) -> (i32) : i32 {
    %searching = arith.cmpi sgt, %p, %c0 : i32
    %p1 = arith.subi %p, %c1 : i32
    %u0 = arith.muli %p1, %c512 : i32
    %u0v = tile.splat %u0 : i32 -> tensor<512xi32>
    %unit = arith.addi %u0v, %urange : tensor<512xi32>
    %ncv = tile.splat %num_cus : i32 -> tensor<512xi32>
    %is_last = arith.cmpi sge, %unit, %ncv : tensor<512xi32>

    %r:4 = scf.for %t = %c0 to %batch_tiles step %c1
        iter_args(%carry = %c0, %owner = %zu, %done = %zu, %g_in = %zu)
        -> (i32, tensor<512xi32>, tensor<512xi32>, tensor<512xi32>) : i32 {
      // segs of batches [t*4096, t*4096 + 4096); 0 past the last batch.
      %b0 = arith.muli %t, %c4096 : i32
      %b0v = tile.splat %b0 : i32 -> tensor<4096xi32>
      %b = arith.addi %b0v, %brange : tensor<4096xi32>
      %valid = arith.cmpi slt, %b, %nb_v : tensor<4096xi32>
      %row0 = arith.muli %b, %per_b_v : tensor<4096xi32>
      %len = scf.for %j = %c0 to %per_b step %c1 iter_args(%acc = %zb)
          -> (tensor<4096xi32>) : i32 {
        %jv = tile.splat %j : i32 -> tensor<4096xi32>
        %off = arith.addi %row0, %jv : tensor<4096xi32>
        %l = tile.load %context_lens[%off] mask(%valid : tensor<4096xi1>)
            : !tile.ptr<i32>, tensor<4096xi32> -> tensor<4096xi32>
        %m = arith.maxsi %acc, %l : tensor<4096xi32>
        scf.yield %m : tensor<4096xi32>
      }
      %whole = arith.divsi %len, %split_v : tensor<4096xi32>
      %part = arith.remsi %len, %split_v : tensor<4096xi32>
      %has_part = arith.cmpi ne, %part, %zb : tensor<4096xi32>
      %part1 = arith.extui %has_part : tensor<4096xi1> to tensor<4096xi32>
      %segs = arith.addi %whole, %part1 : tensor<4096xi32>
      %tile_segs = tile.reduce add %segs, 0 : tensor<4096xi32> -> i32

      %adv:3 = scf.if %searching
          -> (tensor<512xi32>, tensor<512xi32>, tensor<512xi32>) {
        // Each unit's first global segment g, from S.
        %s_all = arith.select %single, %tile_segs, %s : i32
        %q = arith.divui %s_all, %n : i32
        %rem = arith.remui %s_all, %n : i32
        %qv = tile.splat %q : i32 -> tensor<512xi32>
        %remv = tile.splat %rem : i32 -> tensor<512xi32>
        %sv = tile.splat %s_all : i32 -> tensor<512xi32>
        %iq = arith.muli %unit, %qv : tensor<512xi32>
        %extra = arith.minsi %unit, %remv : tensor<512xi32>
        %g0 = arith.addi %iq, %extra : tensor<512xi32>
        %g = arith.select %is_last, %sv, %g0 : tensor<512xi1>, tensor<512xi32>
        // Inclusive prefix inside the tile; padding sorts after everything.
        %incl = tile.scan add %segs, 0 : tensor<4096xi32>
        %sorted = arith.select %valid, %incl, %never
            : tensor<4096xi1>, tensor<4096xi32>
        %carry_v = tile.splat %carry : i32 -> tensor<512xi32>
        %x = arith.subi %g, %carry_v : tensor<512xi32>
        // pos = #{sorted <= x}; below = sorted[pos - 1] (0 when pos = 0).
        // Steps 4096 >> k for k >= 12 - floor(log2(m)) cover the tile's m
        // batches (padding never counts), so the larger ones are skipped.
        // floor(log2(m)) is the exponent of m's exact f32 (1 <= m <= 4096).
        %left = arith.subi %nb, %b0 : i32
        %m = arith.minsi %left, %c4096 : i32
        %m_f = arith.sitofp %m : i32 to f32
        %m_bits = arith.bitcast %m_f : f32 to i32
        %c23 = arith.constant 23 : i32
        %c139 = arith.constant 139 : i32 // 127 + 12
        %m_exp = arith.shrui %m_bits, %c23 : i32
        %k0 = arith.subi %c139, %m_exp : i32
        %found:2 = scf.for %k = %k0 to %c13 step %c1
            iter_args(%pos = %zu, %below = %zu)
            -> (tensor<512xi32>, tensor<512xi32>) : i32 {
          %step = arith.shrui %c4096, %k : i32
          %step_v = tile.splat %step : i32 -> tensor<512xi32>
          %probe0 = arith.addi %pos, %step_v : tensor<512xi32>
          %probe = arith.subi %probe0, %c1v : tensor<512xi32>
          %v = tile.gather %sorted[%probe], 0
              : tensor<4096xi32>, tensor<512xi32> -> tensor<512xi32>
          %inside = arith.cmpi slt, %probe, %tile_v : tensor<512xi32>
          %le = arith.cmpi sle, %v, %x : tensor<512xi32>
          %take = arith.andi %inside, %le : tensor<512xi1>
          %pos1 = arith.select %take, %probe0, %pos
              : tensor<512xi1>, tensor<512xi32>
          %below1 = arith.select %take, %v, %below
              : tensor<512xi1>, tensor<512xi32>
          scf.yield %pos1, %below1 : tensor<512xi32>, tensor<512xi32>
        }
        %owner1 = arith.addi %owner, %found#0 : tensor<512xi32>
        %done1 = arith.addi %done, %found#1 : tensor<512xi32>
        scf.yield %owner1, %done1, %g
            : tensor<512xi32>, tensor<512xi32>, tensor<512xi32>
      } else {
        scf.yield %owner, %done, %g_in
            : tensor<512xi32>, tensor<512xi32>, tensor<512xi32>
      }
      %carry1 = arith.addi %carry, %tile_segs : i32
      scf.yield %carry1, %adv#0, %adv#1, %adv#2
          : i32, tensor<512xi32>, tensor<512xi32>, tensor<512xi32>
    }

    scf.if %searching {
      %nonneg = arith.cmpi sge, %unit, %zu : tensor<512xi32>
      %in_rows = arith.cmpi sle, %unit, %ncv : tensor<512xi32>
      %write = arith.andi %nonneg, %in_rows : tensor<512xi1>
      %offset = arith.subi %r#3, %r#2 : tensor<512xi32>
      %c2v = arith.constant dense<2> : tensor<512xi32>
      %at_b = arith.muli %unit, %c2v : tensor<512xi32>
      %at_off = arith.addi %at_b, %c1v : tensor<512xi32>
      tile.store %r#1, %schedule[%at_b] mask(%write : tensor<512xi1>)
          : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
      tile.store %offset, %schedule[%at_off] mask(%write : tensor<512xi1>)
          : tensor<512xi32>, !tile.ptr<i32>, tensor<512xi32>
    }
    %s1 = arith.select %searching, %s, %r#0 : i32
    scf.yield %s1 : i32
  }
  tile.return
}
