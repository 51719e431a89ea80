// The fp8 K-cache writer of the sparse-attention indexer (DESIGN.md §3.4),
// in the plain or the preshuffled cache layout.
//
// Each program quantizes `tokens_per_program` tokens, sixteen at a time (a
// [16, 128] tile, 8 contiguous elements per lane, spread over `num_waves`
// waves). For token t with
// slot s = slot_mapping[t] (skipped when s < 0 or s >= num_slots), with the
// engines' convention (vLLM's writers):
//   scale = max(max_d |k[t, d]|, 1e-4) / fp8_max   (f32 division)
//   scale = 2^ceil(log2(scale))                    (scale_ue8m0 = 1: the
//                                                   exponent rounded up)
//   q[d]  = fp8(k[t, d] / scale)                   (f32 division, then
//                                                   round-to-nearest-even,
//                                                   saturating)
// written to the block blk = s / block_size at row o = s % block_size:
// value byte d of the row at blk*block_size*132 + o*128 + d (plain), or at
// blk*block_size*132 + ((o/16)*8 + d/16)*256 + (o%16)*16 + d%16
// (preshuffle = 1: [block_size/16][128/16][16 tokens][16 bytes], which the
// runtime allows only for block_size % 16 == 0); the f32 at byte
// blk*block_size*132 + block_size*128 + o*4 holds the scale.
//
// Knobs: `k_bf16` picks the input type (bf16 or f32), `fp8_fnuz` is bound
// from the target (e4m3fnuz on gfx942 with fp8_max = 224, as vLLM's ROCm
// writer uses; e4m3fn with 448 elsewhere), `scale_ue8m0` and `preshuffle`
// are the op's options, `tokens_per_program`, `num_waves` and
// `waves_per_eu` are tuning knobs.
// The runtime guarantees the promises in `tile.divisibility` (16-byte
// aligned buffers, k row stride a multiple of 8 elements).
tile.kernel @indexer_k_cache_write(
    %k: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %slot_mapping: !tile.ptr<i64>,
    %cache: !tile.ptr<i8> {tile.divisibility = 16 : i64},
    %num_tokens: i32,
    %k_row_stride: i64 {tile.divisibility = 8 : i64},
    %block_size: i32,
    %num_slots: i64) attributes {knobs = [
      #tile.knob<"k_bf16" : i1 = 1>,
      #tile.knob<"fp8_fnuz" : i1>,
      #tile.knob<"scale_ue8m0" : i1 = 0>,
      #tile.knob<"preshuffle" : i1 = 0>,
      #tile.knob<"tokens_per_program" : i32 = 16, values = [16, 32, 64]>,
      #tile.knob<"num_waves" : i32 = 4, values = [1, 2, 4, 8]>,
      #tile.knob<"waves_per_eu" : i32 = 0, values = [0, 1, 2, 4, 8]>]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %tpp = tile.knob "tokens_per_program" : i32
  %k_bf16 = tile.knob "k_bf16" : i1
  %fnuz = tile.knob "fp8_fnuz" : i1
  %ue8m0 = tile.knob "scale_ue8m0" : i1
  %shuffled = tile.knob "preshuffle" : i1

  %pid = tile.program_id 0 : i32
  %first = arith.muli %pid, %tpp : i32
  %steps = arith.divui %tpp, %c16 : i32

  // Loop-invariant pieces.
  %rows = tile.range 0 to 16 : tensor<16xi32>
  %cols32 = tile.range 0 to 128 : tensor<128xi32>
  %cols64 = arith.extsi %cols32 : tensor<128xi32> to tensor<128xi64>
  %cols_1 = tile.expand_dims %cols64, 0 : tensor<128xi64> -> tensor<1x128xi64>
  %cols = tile.broadcast %cols_1 : tensor<1x128xi64> -> tensor<16x128xi64>
  %ntok = tile.splat %num_tokens : i32 -> tensor<16xi32>
  %nslots = tile.splat %num_slots : i64 -> tensor<16xi64>
  %zero64 = arith.constant dense<0> : tensor<16xi64>
  %none = arith.constant dense<-1> : tensor<16xi64>
  %stride = tile.splat %k_row_stride : i64 -> tensor<16xi64>
  %bs32 = arith.extsi %block_size : i32 to i64
  %bs = tile.splat %bs32 : i64 -> tensor<16xi64>
  %c132 = arith.constant dense<132> : tensor<16xi64>
  %c128 = arith.constant dense<128> : tensor<16xi64>
  %c4v = arith.constant dense<4> : tensor<16xi64>
  %block_bytes = arith.muli %bs, %c132 : tensor<16xi64>
  // A power-of-two block size (every size engines use) splits a slot by a
  // shift and a mask instead of a 64-bit division. log2 of a power of two
  // is the exponent field of its (exact) f32 value.
  %ci1 = arith.constant 1 : i32
  %ci127 = arith.constant 127 : i32
  %ci23 = arith.constant 23 : i32
  %ci3 = arith.constant 3 : i32
  %ci2 = arith.constant 2 : i32
  %bs_m1 = arith.subi %block_size, %ci1 : i32
  %bs_and = arith.andi %block_size, %bs_m1 : i32
  %pow2 = arith.cmpi eq, %bs_and, %c0 : i32
  %bs_f = arith.sitofp %block_size : i32 to f32
  %bs_bits = arith.bitcast %bs_f : f32 to i32
  %bs_exp = arith.shrui %bs_bits, %ci23 : i32
  %shift32 = arith.subi %bs_exp, %ci127 : i32
  %shift64 = arith.extsi %shift32 : i32 to i64
  %shift = tile.splat %shift64 : i64 -> tensor<16xi64>
  %bs_m1_64 = arith.extsi %bs_m1 : i32 to i64
  %in_block = tile.splat %bs_m1_64 : i64 -> tensor<16xi64>
  // With block_size % 4 == 0 a block is a multiple of 16 bytes
  // (block_size * 132 = (block_size / 4) * 528), so every value row starts
  // 16-byte aligned and a lane's 16 fp8 bytes go out in one store.
  %bs_low = arith.andi %block_size, %ci3 : i32
  %aligned = arith.cmpi eq, %bs_low, %c0 : i32
  %bs_q = arith.shrui %block_size, %ci2 : i32
  %bs_q64 = arith.extsi %bs_q : i32 to i64
  %c528 = arith.constant 528 : i64
  %block_bytes16_s = arith.muli %bs_q64, %c528 : i64
  %block_bytes16 = tile.splat %block_bytes16_s : i64 -> tensor<16xi64>
  %scale_region = arith.muli %bs, %c128 : tensor<16xi64>
  %f224 = arith.constant 224.0 : f32
  %f448 = arith.constant 448.0 : f32
  %fp8_max_s = arith.select %fnuz, %f224, %f448 : f32
  %fp8_max = tile.splat %fp8_max_s : f32 -> tensor<16xf32>
  %min_amax = arith.constant dense<1.0e-4> : tensor<16xf32>
  %mant_ones = arith.constant dense<8388607> : tensor<16xi32>
  %exp_mask = arith.constant dense<-8388608> : tensor<16xi32>
  // Where value byte d of a row lies relative to the row's first byte.
  %col_off = scf.if %shuffled -> (tensor<16x128xi64>) {
    %c16c = arith.constant dense<16> : tensor<16x128xi64>
    %c256c = arith.constant dense<256> : tensor<16x128xi64>
    %hi = arith.divui %cols, %c16c : tensor<16x128xi64>
    %lo = arith.remui %cols, %c16c : tensor<16x128xi64>
    %hi256 = arith.muli %hi, %c256c : tensor<16x128xi64>
    %o = arith.addi %hi256, %lo : tensor<16x128xi64>
    scf.yield %o : tensor<16x128xi64>
  } else {
    scf.yield %cols : tensor<16x128xi64>
  }
  %scales_ptr = tile.ptr_cast %cache : !tile.ptr<i8> to !tile.ptr<f32>

  scf.for %it = %c0 to %steps step %c1 : i32 {
    %it16 = arith.muli %it, %c16 : i32
    %t0 = arith.addi %first, %it16 : i32
    %t0v = tile.splat %t0 : i32 -> tensor<16xi32>
    %tok = arith.addi %t0v, %rows : tensor<16xi32>
    %in_range = arith.cmpi slt, %tok, %ntok : tensor<16xi32>
    %tok64 = arith.extsi %tok : tensor<16xi32> to tensor<16xi64>
    %slot = tile.load %slot_mapping[%tok64] mask(%in_range : tensor<16xi1>)
        other(%none : tensor<16xi64>)
        : !tile.ptr<i64>, tensor<16xi64> -> tensor<16xi64>
    %nonneg = arith.cmpi sge, %slot, %zero64 : tensor<16xi64>
    %below = arith.cmpi slt, %slot, %nslots : tensor<16xi64>
    %ok0 = arith.andi %in_range, %nonneg : tensor<16xi1>
    %ok = arith.andi %ok0, %below : tensor<16xi1>
    %ok_1 = tile.expand_dims %ok, 1 : tensor<16xi1> -> tensor<16x1xi1>
    %ok2 = tile.broadcast %ok_1 : tensor<16x1xi1> -> tensor<16x128xi1>
    // k is read for every token in range, skipped slots included, so that
    // the k loads need not wait for the slot load.
    %in_1 = tile.expand_dims %in_range, 1 : tensor<16xi1> -> tensor<16x1xi1>
    %in2 = tile.broadcast %in_1 : tensor<16x1xi1> -> tensor<16x128xi1>

    // Load the rows of k as f32.
    %row = arith.muli %tok64, %stride : tensor<16xi64>
    %row_1 = tile.expand_dims %row, 1 : tensor<16xi64> -> tensor<16x1xi64>
    %row2 = tile.broadcast %row_1 : tensor<16x1xi64> -> tensor<16x128xi64>
    %koff = arith.addi %row2, %cols : tensor<16x128xi64>
    %x = scf.if %k_bf16 -> (tensor<16x128xf32>) {
      %kb = tile.ptr_cast %k : !tile.ptr<i8> to !tile.ptr<bf16>
      %v = tile.load %kb[%koff] mask(%in2 : tensor<16x128xi1>)
          : !tile.ptr<bf16>, tensor<16x128xi64> -> tensor<16x128xbf16>
      %f = arith.extf %v : tensor<16x128xbf16> to tensor<16x128xf32>
      scf.yield %f : tensor<16x128xf32>
    } else {
      %kf = tile.ptr_cast %k : !tile.ptr<i8> to !tile.ptr<f32>
      %v = tile.load %kf[%koff] mask(%in2 : tensor<16x128xi1>)
          : !tile.ptr<f32>, tensor<16x128xi64> -> tensor<16x128xf32>
      scf.yield %v : tensor<16x128xf32>
    }

    // Per-token scale.
    %ax = math.absf %x : tensor<16x128xf32>
    %amax0 = tile.reduce max %ax, 1 : tensor<16x128xf32> -> tensor<16xf32>
    %amax = arith.maximumf %amax0, %min_amax : tensor<16xf32>
    %scale0 = arith.divf %amax, %fp8_max : tensor<16xf32>
    // ue8m0: a positive normal f32 rounded up to a power of two by carrying
    // a non-zero mantissa into the exponent.
    %scale = scf.if %ue8m0 -> (tensor<16xf32>) {
      %bits = arith.bitcast %scale0 : tensor<16xf32> to tensor<16xi32>
      %up = arith.addi %bits, %mant_ones : tensor<16xi32>
      %pow = arith.andi %up, %exp_mask : tensor<16xi32>
      %r = arith.bitcast %pow : tensor<16xi32> to tensor<16xf32>
      scf.yield %r : tensor<16xf32>
    } else {
      scf.yield %scale0 : tensor<16xf32>
    }
    // y = x / scale, correctly rounded, from one division per token: with
    // r = 1 / scale correctly rounded, q = x * r is within an ulp of x /
    // scale, e = x - q * scale is exact (fma), and q + e * r rounds to
    // x / scale (Markstein's theorem) wherever the quotient is a normal f32.
    // It is here, as |x| <= amax: |x / scale| <= fp8_max. A subnormal
    // quotient (|x| < 2^-126 * scale) is fp8 0 either way. An infinite
    // scale (an infinite k in the row) has r = 0, and x / scale is q = x * 0.
    // That is 4 f32 operations per value instead of an IEEE division each.
    %one = arith.constant dense<1.0> : tensor<16xf32>
    %zero_f = arith.constant dense<0.0> : tensor<16xf32>
    %rcp = arith.divf %one, %scale : tensor<16xf32>
    %finite = arith.cmpf une, %rcp, %zero_f : tensor<16xf32>
    %finite_1 = tile.expand_dims %finite, 1 : tensor<16xi1> -> tensor<16x1xi1>
    %finite2 = tile.broadcast %finite_1 : tensor<16x1xi1> -> tensor<16x128xi1>
    %rcp_1 = tile.expand_dims %rcp, 1 : tensor<16xf32> -> tensor<16x1xf32>
    %rcp2 = tile.broadcast %rcp_1 : tensor<16x1xf32> -> tensor<16x128xf32>
    %div_1 = tile.expand_dims %scale, 1 : tensor<16xf32> -> tensor<16x1xf32>
    %div2 = tile.broadcast %div_1 : tensor<16x1xf32> -> tensor<16x128xf32>
    %q0 = arith.mulf %x, %rcp2 : tensor<16x128xf32>
    %nq0 = arith.negf %q0 : tensor<16x128xf32>
    %err = math.fma %nq0, %div2, %x : tensor<16x128xf32>
    %q1 = math.fma %err, %rcp2, %q0 : tensor<16x128xf32>
    %y = arith.select %finite2, %q1, %q0 : tensor<16x128xi1>, tensor<16x128xf32>

    // Cache addresses.
    // (Lanes of skipped slots compute garbage here; they store nothing.)
    %blk, %off = scf.if %pow2 -> (tensor<16xi64>, tensor<16xi64>) {
      %b = arith.shrsi %slot, %shift : tensor<16xi64>
      %o = arith.andi %slot, %in_block : tensor<16xi64>
      scf.yield %b, %o : tensor<16xi64>, tensor<16xi64>
    } else {
      %b = arith.divsi %slot, %bs : tensor<16xi64>
      %o = arith.remsi %slot, %bs : tensor<16xi64>
      scf.yield %b, %o : tensor<16xi64>, tensor<16xi64>
    }
    // The row's first value byte: o*128 (plain), or (o/16)*2048 + (o%16)*16.
    %row_in_block = scf.if %shuffled -> (tensor<16xi64>) {
      %c16r = arith.constant dense<16> : tensor<16xi64>
      %c2048r = arith.constant dense<2048> : tensor<16xi64>
      %group = arith.divsi %off, %c16r : tensor<16xi64>
      %within = arith.remsi %off, %c16r : tensor<16xi64>
      %g2048 = arith.muli %group, %c2048r : tensor<16xi64>
      %w16 = arith.muli %within, %c16r : tensor<16xi64>
      %r = arith.addi %g2048, %w16 : tensor<16xi64>
      scf.yield %r : tensor<16xi64>
    } else {
      %r = arith.muli %off, %c128 : tensor<16xi64>
      scf.yield %r : tensor<16xi64>
    }
    scf.if %aligned {
      %base = arith.muli %blk, %block_bytes16 : tensor<16xi64>
      %vrow = arith.addi %base, %row_in_block : tensor<16xi64>
      %vrow_1 = tile.expand_dims %vrow, 1 : tensor<16xi64> -> tensor<16x1xi64>
      %vrow2 = tile.broadcast %vrow_1 : tensor<16x1xi64> -> tensor<16x128xi64>
      %voff = arith.addi %vrow2, %col_off : tensor<16x128xi64>
      %sbyte = arith.addi %base, %scale_region : tensor<16xi64>
      %sword = arith.divsi %sbyte, %c4v : tensor<16xi64>
      %soff = arith.addi %sword, %off : tensor<16xi64>

      scf.if %fnuz {
        %q = arith.truncf %y : tensor<16x128xf32> to tensor<16x128xf8E4M3FNUZ>
        %p = tile.ptr_cast %cache : !tile.ptr<i8> to !tile.ptr<f8E4M3FNUZ>
        tile.store %q, %p[%voff] mask(%ok2 : tensor<16x128xi1>)
            : tensor<16x128xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<16x128xi64>
      } else {
        %q = arith.truncf %y : tensor<16x128xf32> to tensor<16x128xf8E4M3FN>
        %p = tile.ptr_cast %cache : !tile.ptr<i8> to !tile.ptr<f8E4M3FN>
        tile.store %q, %p[%voff] mask(%ok2 : tensor<16x128xi1>)
            : tensor<16x128xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<16x128xi64>
      }
      tile.store %scale, %scales_ptr[%soff] mask(%ok : tensor<16xi1>)
          : tensor<16xf32>, !tile.ptr<f32>, tensor<16xi64>
    } else {
      %base = arith.muli %blk, %block_bytes : tensor<16xi64>
      %vrow = arith.addi %base, %row_in_block : tensor<16xi64>
      %vrow_1 = tile.expand_dims %vrow, 1 : tensor<16xi64> -> tensor<16x1xi64>
      %vrow2 = tile.broadcast %vrow_1 : tensor<16x1xi64> -> tensor<16x128xi64>
      %voff = arith.addi %vrow2, %col_off : tensor<16x128xi64>
      %sbyte = arith.addi %base, %scale_region : tensor<16xi64>
      %sword = arith.divsi %sbyte, %c4v : tensor<16xi64>
      %soff = arith.addi %sword, %off : tensor<16xi64>

      scf.if %fnuz {
        %q = arith.truncf %y : tensor<16x128xf32> to tensor<16x128xf8E4M3FNUZ>
        %p = tile.ptr_cast %cache : !tile.ptr<i8> to !tile.ptr<f8E4M3FNUZ>
        tile.store %q, %p[%voff] mask(%ok2 : tensor<16x128xi1>)
            : tensor<16x128xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<16x128xi64>
      } else {
        %q = arith.truncf %y : tensor<16x128xf32> to tensor<16x128xf8E4M3FN>
        %p = tile.ptr_cast %cache : !tile.ptr<i8> to !tile.ptr<f8E4M3FN>
        tile.store %q, %p[%voff] mask(%ok2 : tensor<16x128xi1>)
            : tensor<16x128xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<16x128xi64>
      }
      tile.store %scale, %scales_ptr[%soff] mask(%ok : tensor<16xi1>)
          : tensor<16xf32>, !tile.ptr<f32>, tensor<16xi64>
    }
  }
  tile.return
}
