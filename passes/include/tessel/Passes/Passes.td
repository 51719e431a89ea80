//===- Passes.td - Target-independent passes on tile IR ----*- tablegen -*-===//
#ifndef TESSEL_PASSES_TD
#define TESSEL_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSpecializeKnobs : Pass<"tile-specialize-knobs", "::mlir::ModuleOp"> {
  let summary = "Binds every knob of every kernel to a constant";
  let description = [{
    Replaces each `tile.knob` by an `arith.constant` holding the bound value
    (from the `knobs` option, else the declaration's default), and records
    the values on the kernel as `tessel.knobs`. It fails with a precise
    error when a knob has no value, a value is not among the declared
    `values`, or the option names a knob that no kernel declares.

    With `target` set, knobs that describe the target are bound from its
    `TargetInfo` when a kernel declares them: `fp8_fnuz` (i1) is 1 when the
    target's fp8 is e4m3fnuz (gfx942) and 0 otherwise. Binding such a knob
    explicitly to another value is an error. A target given here is recorded
    on the module as `tessel.target`, and the pass refuses a module already
    specialized for another target.

    Before (with `knobs=tokens_per_program=4`):
    ```mlir
    tile.kernel @k(%x: !tile.ptr<f32>) attributes {
        knobs = [#tile.knob<"tokens_per_program" : i32 = 1>]} {
      %t = tile.knob "tokens_per_program" : i32
      ...
    }
    ```
    After:
    ```mlir
    tile.kernel @k(%x: !tile.ptr<f32>) attributes {
        knobs = [#tile.knob<"tokens_per_program" : i32 = 1>],
        tessel.knobs = {tokens_per_program = 4 : i32}} {
      %t = arith.constant 4 : i32
      ...
    }
    ```
  }];
  let options = [
    ListOption<"knobs", "knobs", "std::string",
               "Knob bindings, each NAME=VALUE (integers; true/false for i1)">,
    Option<"target", "target", "std::string", "\"\"",
           "Target whose facts bind target knobs (gfx942, gfx950, sm_90a, sm_90)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileExpandRadixSelect : Pass<"tile-expand-radix-select", "::mlir::ModuleOp"> {
  let summary = "Expands tile.topk into a radix select of histograms and scans";
  let description = [{
    Rewrites every `tile.topk` into tile ops that one program runs over its
    row, `chunk` elements at a time (before layout assignment, so the
    expansion gets layouts like hand-written tile IR):

    - Keys: each f32 becomes an order-preserving u32 key (as i32 bits):
      NaNs lose their sign bit (every NaN ranks above +inf), -0.0 becomes
      +0.0, negative values are inverted and the others get the top bit.
    - Rows with `n <= k` write `0..n-1` and then `-1`.
    - Otherwise three digits, bits [21, 32), [10, 21) and [0, 10) of the
      key. For each: a pass over the row builds the histogram (2048 bins)
      of the digit of the candidates (the elements whose higher digits
      equal the threshold bins chosen so far) in LDS: the bins are a
      `tile.local_alloc` zeroed once, each chunk only adds to them
      (`tile.histogram_add`, no barrier, so waves run ahead and keep their
      loads in flight), and after the loop one `tile.barrier` and a
      `tile.local_load` give the counts (the next digit's zeroing store
      waits, by its own barrier, for these reads); a suffix
      `tile.scan {reverse}` gives, per bin, the candidates at or above it;
      the threshold bin is the largest bin whose suffix count reaches the
      number still needed (`tile.reduce max`). A second pass writes the
      positions of the candidates above that bin straight to `dst`, at
      offsets from `tile.prefix_count` of the selection flags (ballot
      prefix counts in each wave plus a per-wave offset) plus the count
      written so far.
    - Early exit: when the threshold bin holds exactly the elements still
      needed, they are written in the same pass and the remaining digits
      are skipped. At the last digit the bin's elements have equal keys;
      the first ones by index are taken, so ties always go to the smaller
      index (the `stable` rule; without `stable` the same set is valid).
    - Candidate buffer: the first threshold bin that is not final (no
      early exit, not the last digit) and holds at most `candidates`
      elements is copied to LDS while its digit's write pass reads the
      row: the bin's (key, column) pairs, scattered (`tile.atomic_rmw
      xchg`) to two LDS tiles at the bin-rank positions that pass already
      computes with `tile.prefix_count`, so they keep column order. Later
      digits build their histogram and write their selection from that
      buffer only (the pairs whose key matches the prefix), in pieces of
      `min(chunk, candidates)` pairs over its count, not from the row: a
      row whose first threshold bin fits is read from global memory twice
      (histogram and write of the first digit) instead of up to six times.
      Reading the buffer in position order is reading in column order, so
      the last digit's rule still takes the smallest columns.
    - Overflow: a bin with more elements than the buffer holds is not
      copied, and the next digit reads the row again (the prefix match
      over the whole row); the first later bin that fits is copied then.
      Re-reading needs no global workspace, so the kernel's ABI and the
      runtime stay as they are and a row never fails; a bin that large
      (over 4096 elements sharing the digits fixed so far at the default
      capacity) is rare in logits rows, and costs one more pair of row
      reads per digit. (The alternative, spilling the
      overflow to a per-row global workspace, would read fewer bytes for
      such rows but make the runtime own and size a workspace per launch.)
    - Capacity (`candidates`): by default derived from the target's LDS
      (`TargetInfo::ldsBytesPerWorkgroup`, from the `target` option or the
      module's `tessel.target`): the largest power of two of pairs, at most
      4096, whose 8 bytes each fit beside 16 KiB kept for the histogram's
      bins (8 KiB, dead before the scan) and the scans' scratch and, with `sorted`, the 8k bytes of the
      sort's pairs. That is 4096 on gfx942 and gfx950 and 4096 on sm_90
      (2048 with `sorted` and k = 2048). `candidates=0` turns the buffer
      off (every digit reads the row); another power of two overrides the
      capacity.

    With `sorted` (k a power of two), the same workgroup orders the row
    before writing it, in shared memory:

    - Two LDS buffers of k i32 (`tile.local_alloc`, zeroed: the exchanges
      read the old words) hold the row's (key, column) pairs. The selection puts its chosen pairs there instead of
      in `dst` (`tile.atomic_rmw xchg`, a scatter into LDS); a short row's
      pairs are its columns 0..n-1 and then column -1 with key 0, which is
      below every value's key.
    - A stable LSD radix sort, descending, of one key bit per pass, bit 0
      first: `tile.prefix_count` of the set bits gives each pair its
      position (set bits first, in order; then the clear ones), the pairs
      are scattered there and read back. A pass whose bit is the same in
      every key (count 0 or k) is skipped. Each producer gives equal keys
      in column order, and the sort keeps it, so ties go to the smaller
      column and the -1 padding stays last.
    - The sorted columns are stored to `dst` in one pass.

    With `split` (several programs per row, variant (b) of topk_per_row),
    the first digit is computed by all `parts` programs of the row and the
    rest by part 0, in phases joined by `tile.grid_barrier` (on the
    workspace's first two words), which every program reaches whatever
    its row's length:

    - Phase 1: each part histograms its chunk-aligned slice of the row in
      LDS as above, then adds the non-empty bins to the row's global
      histogram in the workspace (`tile.atomic_rmw add`, device scope).
    - Phase 2: each part reads the row's histogram and finds the threshold
      bin as above, then stores its own slice's counts above and in that
      bin (from its LDS histogram) at its pair of count words.
    - Phase 3: each part sums the counts of the parts before it, which
      gives its row-wide output positions and bin ranks, so the output is
      in column order without atomics on positions: it writes its slice's
      elements above the bin to `dst`, the bin's too on an early exit, and
      otherwise, when the bin holds at most 4096, its bin elements' (key,
      column) pairs to the workspace's candidates at their bin ranks.
    - Part 0 then runs the later digits from the workspace's candidates
      (from the row when the bin did not fit there), with the stable rule
      as above, and zeroes the row's histogram, so that the workspace is
      zero again for the next launch. With `sorted` it first loads the
      columns the parts wrote (and their keys, from the row) into the LDS
      pair buffers, and sorts as above.

    Before (split):
    ```mlir
    tile.topk %x[%row], %n -> %out[%orow] split(%ws[%c0], %r, %part, %parts)
        {k = 2048 : i32, chunk = 4096 : i32, stable}
        : !tile.ptr<f32>, !tile.ptr<i32>, !tile.ptr<i32>
    ```
    After (abridged):
    ```mlir
    %local = scf.if %long -> (tensor<2048xi32>) {
      ... the slice's histogram, then:
      %old = tile.atomic_rmw add, %ws[%hist_at], %h mask(%used : tensor<2048xi1>)
          : !tile.ptr<i32>, tensor<2048xi64>, tensor<2048xi32>
      scf.yield %h : tensor<2048xi32>
    } else { ... }
    tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
    %t:3 = scf.if %long -> (i32, i32, i32) {
      %g = tile.load %ws[%hist_at] : ... -> tensor<2048xi32>
      ... threshold; this part's counts stored at %ws[%counts + 2 * %part] ...
    } else { ... }
    tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
    scf.if %long { ... the emission at row-wide positions; candidates to %ws ... }
    tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
    scf.if %part_is_0 {
      ... short rows, or the digits 1 and 2 from %ws's candidates ...
      tile.store %zeros, %ws[%hist_at] : tensor<2048xi32>, !tile.ptr<i32>, tensor<2048xi64>
    }
    ```

    Why one-bit passes: the partition needs only the ballot prefix count that
    already places the selection's output, and at most 32 passes of k
    elements, with the equal bits skipped. Wider digits need a count per
    bin value below each element (one prefix count per value), and a
    bitonic network over 2048 pairs takes 66 data-dependent exchange
    stages (`tile.gather`s through LDS) and is not stable, so it would
    have to compare columns too.

    Before (sorted):
    ```mlir
    tile.topk %x[%row], %n -> %out[%orow] {k = 2048 : i32, chunk = 4096 : i32, sorted}
        : !tile.ptr<f32>, !tile.ptr<i32>
    ```
    After (abridged):
    ```mlir
    %keys = tile.local_alloc (%zeros : tensor<2048xi32>) : !tile.memdesc<2048xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
    %cols = tile.local_alloc (%zeros : tensor<2048xi32>) : !tile.memdesc<2048xi32, #shared>
    %p:2 = scf.if %short -> (tensor<2048xi32>, tensor<2048xi32>) {
      ... keys of columns 0..n-1, then key 0 and column -1 ...
    } else {
      ... the digits as below, the emission scattering to the buffers:
      %old = tile.atomic_rmw xchg, %keys[%at], %key mask(%sel : tensor<4096xi1>)
          : !tile.memdesc<2048xi32, #shared>, tensor<4096xi32>, tensor<4096xi32>
      ...
      %k0 = tile.local_load %keys : !tile.memdesc<2048xi32, #shared> -> tensor<2048xi32>
      %c0 = tile.local_load %cols : !tile.memdesc<2048xi32, #shared> -> tensor<2048xi32>
      scf.yield %k0, %c0 : tensor<2048xi32>, tensor<2048xi32>
    }
    %s:2 = scf.for %bit = %c0 to %c32 step %c1 iter_args(%key = %p#0, %col = %p#1) -> ... {
      %set = ... ((%key >> %bit) & 1) != 0 ...
      %pos, %ones = tile.prefix_count %set : tensor<2048xi1> -> tensor<2048xi32>
      %at = arith.select %set, %pos, %after_ones : tensor<2048xi1>, tensor<2048xi32>
      %r:2 = scf.if %moves -> ... {
        ... tile.atomic_rmw xchg of %key and %col to %at, tile.local_load of both ...
      } else { scf.yield %key, %col : ... }
      scf.yield %r#0, %r#1 : ...
    }
    tile.store %s#1, %out[%at_row] : tensor<2048xi32>, !tile.ptr<i32>, tensor<2048xi64>
    ```

    Before:
    ```mlir
    tile.topk %x[%row], %n -> %out[%orow] {k = 2048 : i32, chunk = 4096 : i32}
        : !tile.ptr<f32>, !tile.ptr<i32>
    ```
    After (abridged, `candidates` = 4096):
    ```mlir
    %n0 = arith.maxsi %n, %c0 : i32
    %short = arith.cmpi sle, %n0, %c2048 : i32
    scf.if %short {
      ... tile.store (0..n-1, then -1) ...
    } else {
      %ckeys = tile.local_alloc : !tile.memdesc<1x4096xi32, #shared>
      %ccols = tile.local_alloc : !tile.memdesc<1x4096xi32, #shared>
      ... each stage zeroed by tile.local_store ...
      %r:6 = scf.for %d = %c0 to %c3 step %c1 iter_args(%written = %c0,
          %need = %c2048, %prefix = %c0, %pmask = %c0, %done = %false,
          %count = %c-1) -> ... {   // %count: pairs in the buffer, -1: none
        %s:6 = scf.if %done -> ... { scf.yield ... } else {
          %buffered = arith.cmpi sge, %count, %c0 : i32
          %h = scf.if %buffered -> (tensor<2048xi32>) {
            %bb = tile.local_alloc (%zeros : tensor<2048xi32>) : !tile.memdesc<2048xi32, #shared>
            scf.for %c = %c0 to %pieces step %c1 : i32 {
              %stage = tile.memdesc_index %ckeys[%c] : ... -> !tile.memdesc<4096xi32, #shared>
              %key = tile.local_load %stage : ... -> tensor<4096xi32>
              ... candidate mask (position < %count, prefix match), digit ...
              tile.histogram_add %digit mask(%cand : tensor<4096xi1>) into %bb ...
            }
            tile.barrier
            %hb = tile.local_load %bb : !tile.memdesc<2048xi32, #shared> -> tensor<2048xi32>
            scf.yield %hb : tensor<2048xi32>
          } else {
            %br = tile.local_alloc (%zeros : tensor<2048xi32>) : !tile.memdesc<2048xi32, #shared>
            scf.for %c = %c0 to %chunks step %c1 : i32 {
              %v = tile.load %x[%offs] mask(%in_row : tensor<4096xi1>) ...
              ... keys, candidate mask, digit ...
              tile.histogram_add %digit mask(%cand : tensor<4096xi1>) into %br
                  : tensor<4096xi32>, !tile.memdesc<2048xi32, #shared>
            }
            tile.barrier
            %hr = tile.local_load %br : !tile.memdesc<2048xi32, #shared> -> tensor<2048xi32>
            scf.yield %hr : tensor<2048xi32>
          }
          %suffix = tile.scan add %h, 0 {reverse} : tensor<2048xi32>
          %bin = tile.reduce max %first_reaching, 0 : tensor<2048xi32> -> i32
          ...
          %fits = arith.cmpi sle, %in_bin, %c4096 : i32
          %fill = ... %fits and %count < 0 and not (%exact or %last) ...
          %count1 = arith.select %fill, %in_bin, %count : i32
          %w = scf.if %buffered -> (i32) {
            ... the write pass over the buffer's pieces ...
          } else {
            %wr:2 = scf.for %c = ... iter_args(%p = %written, %seen = %c0) -> (i32, i32) {
              %rank, %eqs = tile.prefix_count %eq : tensor<4096xi1> -> tensor<4096xi32>
              scf.if %reaches {   // %fill and this chunk has bin elements
                %o1 = tile.atomic_rmw xchg, %stage_keys[%rank], %key mask(%eq : tensor<4096xi1>) ...
                %o2 = tile.atomic_rmw xchg, %stage_cols[%rank], %idx mask(%eq : tensor<4096xi1>) ...
              }
              %at, %cnt = tile.prefix_count %sel : tensor<4096xi1> -> tensor<4096xi32>
              tile.store %idx, %out[%at64] mask(%sel : tensor<4096xi1>) ...
            }
            scf.yield %wr#0 : i32
          }
          scf.yield %w, %take, %prefix1, %pmask1, %exact_or_last, %count1 ...
        }
        scf.yield %s#0, ..., %s#5 ...
      }
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "Target whose shared-memory size sizes the candidate buffer "
           "(gfx942, gfx950, sm_90a, sm_90); empty: the module's tessel.target">,
    Option<"candidates", "candidates", "int64_t", "-1",
           "Capacity of the LDS candidate buffer in (key, column) pairs: "
           "-1 derives it from the target, 0 turns the buffer off, otherwise "
           "a power of two">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePreshuffleKV : Pass<"tile-preshuffle-kv", "::mlir::ModuleOp"> {
  let summary = "Addresses K tiles loaded from a preshuffled paged KV cache";
  let description = [{
    A preshuffled cache block stores its value bytes as
    `[block_size/16][128/16][16 tokens][16 bytes]` (DESIGN.md §3.1): byte d
    of token row o of the block lies at
    `(o/16)*2048 + (d/16)*256 + (o%16)*16 + d%16` from the block start,
    instead of `o*128 + d`. A `tile.load` with
    `data_layout = #tile<data_layout preshuffled>` and a `block_base`
    operand (the block start of each element, in bytes) takes the plain
    in-block offsets `i = o*128 + d`; this pass rewrites its address to
    `block_base + P(i)` with
    `P(i) = (i & ~0x7f0) + ((i & 0x70) << 4) + ((i >> 3) & 0xf0)`,
    the bit permutation that moves d/16 (bits 4-6) above o%16 (bits 7-10)
    and keeps d%16 and o/16 in place. The load keeps its `data_layout`
    and loses `block_base`; `tile-assign-layouts` then gives it a layout
    with 16 consecutive D bytes per lane (the MFMA kWidth-16 operand layout
    when it feeds a `tile.dot`): each lane's 16 bytes are then contiguous in
    memory, 16 tokens of one 16-byte D group are 256 contiguous bytes, and
    the bytes land in operand order with no LDS and no conversion.

    P is computed in i32. The op contract bounds the in-block offsets by a
    block's value bytes (`block_size * 128`, below 2^31), so their low 32
    bits are the offsets; the pass rebuilds the offsets' add, mul, shl and
    bitwise ops in i32 (which give the same low 32 bits) down to the i32
    values they were extended from, and adds the 64-bit block base once, as
    `block_base + zext(P(i))`. Offsets `x + d` with x a multiple of 128 (the
    token row) and d in [0, 128) (the D byte) are permuted part by part,
    `P(x) = (x & ~0x7f0) + ((x >> 3) & 0xf0)` and
    `P(d) = (d & 15) + ((d & 0x70) << 4)`, each next to the value it comes
    from, so that P(d), usually loop-invariant, stays out of the loop; a
    part that is broadcast like the block base (per token) is added to it
    before the broadcast.

    Mask and `other` are kept. The rewrite is target-independent and runs
    after knob specialization and canonicalization (which fold a
    knob-guarded choice between plain and preshuffled loads) and before
    layout assignment.

    Before:
    ```mlir
    %d = tile.range 0 to 128 : tensor<128xi32>
    %d64 = arith.extsi %d : tensor<128xi32> to tensor<128xi64>
    %dk = tile.broadcast (tile.expand_dims %d64, 1) -> tensor<128x64xi64>
    scf.for ... {
      %row = arith.muli %tok64, %c128 : tensor<64xi64>   // o*128, per token
      %rk = tile.broadcast (tile.expand_dims %row, 0) -> tensor<128x64xi64>
      %inblock = arith.addi %rk, %dk : tensor<128x64xi64>
      %bk = tile.broadcast (tile.expand_dims %base, 0) -> tensor<128x64xi64>
      %k = tile.load %kv[%inblock] block_base(%bk : tensor<128x64xi64>)
             {data_layout = #tile<data_layout preshuffled>}
             : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
    }
    ```
    After (the placements written as above):
    ```mlir
    %pd = arith.addi (arith.andi %d, 15), (arith.shli (arith.andi %d, 112), 4)
    %pdk = tile.broadcast (tile.expand_dims %pd, 1) -> tensor<128x64xi32>
    scf.for ... {
      %row32 = arith.muli %tok, %c128_i32 : tensor<64xi32>
      %pr = arith.addi (arith.andi %row32, -2033),
                       (arith.andi (arith.shrui %row32, 3), 240)
      %tb = arith.addi %base, (arith.extui %pr to i64) : tensor<64xi64>
      %tbk = tile.broadcast (tile.expand_dims %tb, 0) -> tensor<128x64xi64>
      %addr = arith.addi %tbk, (arith.extui %pdk to i64) : tensor<128x64xi64>
      %k = tile.load %kv[%addr] {data_layout = #tile<data_layout preshuffled>}
             : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Gives every tensor a distributed layout for a target";
  let description = [{
    Chooses a `#tile.blocked` layout for every tensor value of each kernel,
    from the target's wave size and vector width (through `TargetInfo`) and
    the kernel's `num_waves` knob. Anchors (loads, stores, ranges) take a
    layout whose fastest dimension holds as many contiguous elements per
    lane as one vector access allows; elementwise ops inherit it; reductions
    give `#tile.slice` layouts and `tile.expand_dims` of a slice returns to
    the parent. Where two producers disagree a `tile.convert_layout` is
    inserted. The kernel gets `tessel.num_waves`, and the module
    `tessel.target`, the target the layouts were chosen for: this and every
    later target-specific stage refuses a module that names another target.

    A `tile.dot` gets the target's accumulator and operand layouts. When
    its result is reduced along M (through elementwise ops and reshapes),
    the accumulator holds consecutive M per lane (not transposed) and its
    waves go along N, so the reduction starts in registers and needs no
    exchange between waves. A `tile.reshape` of a matrix-instruction layout
    keeps every element where it is: its result gets the source's map with
    the coordinate bits relabelled onto the new shape, as a `#tile.linear`
    (e.g. [rows * heads, N] -> [rows, heads, N] costs nothing). A value an
    scf.for carries asks the value yielded for it for the same layout, so a
    prefetch for the next iteration needs no conversion; a dot result
    yielded to the next iteration (an async dot waited for there) also
    passes its layout on to what consumes the carried value, and to those
    consumers' other operands (loop-invariant weights, say).

    Once layouts are known, every tile value is checked against the target
    (`TargetInfo`), and a failure is an error at the op that makes it:
    - its footprint, elements per lane x bytes per element / 4, must fit the
      32-bit registers of one lane (512 on gfx942/gfx950, arch VGPRs plus
      AGPRs; 255 on sm_90). The message gives both numbers.
    - a blocked layout (also under a slice), chosen here or written by the
      author, must spread over exactly the lanes of one wave (the product of
      `threadsPerWave` equals the wave size: 64 on AMD, 32 on sm_90) and the
      kernel's waves (the product of `wavesPerCTA` equals `num_waves`).

    Before (target gfx942, num_waves = 1):
    ```mlir
    %r = tile.range 0 to 128 : tensor<128xi32>
    %s = tile.reduce add %r, 0 : tensor<128xi32> -> i32
    ```
    After:
    ```mlir
    %r = tile.range 0 to 128 : tensor<128xi32, #tile.blocked<{sizePerThread = [2],
           threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
    %s = tile.reduce add %r, 0 : tensor<128xi32, #tile.blocked<...>> -> i32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx942\"",
           "Target name (gfx942, gfx950, sm_90a, sm_90)">
  ];
}

#endif // TESSEL_PASSES_TD
