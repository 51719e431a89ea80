//===- ExpandRadixSelect.cpp - tile.topk to histograms and scans ----------===//
//
// Expands each tile.topk into a radix select over order-preserving u32 keys
// (see the pass description in Passes.td): per digit, a histogram of the
// candidates, a suffix scan that finds the threshold bin, and one pass that
// writes out the elements above it; the threshold bin's elements are the
// candidates of the next digit. The first threshold bin that fits the LDS
// candidate buffer is copied there, in column order, and the later digits
// read the buffer instead of the row. With `sorted`, the selected (key,
// column) pairs go to LDS instead and a stable LSD radix sort of one bit per
// pass orders them before the row is written.
//
//===----------------------------------------------------------------------===//

#include "tessel/Passes/Passes.h"

#include "tessel/Lowering/ModuleTarget.h"
#include "tessel/Lowering/TargetInfo.h"
#include "tessel/topk_workspace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TILEEXPANDRADIXSELECT
#include "tessel/Passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// Bins of every digit's histogram.
constexpr int64_t kBins = 2048;

/// The digits, most significant first: bits [shift, shift + width) of the
/// key. 11 + 11 + 10 bits cover the u32 key.
struct Digit {
  int64_t shift, mask;
};
constexpr Digit kDigits[] = {{21, 0x7ff}, {10, 0x7ff}, {0, 0x3ff}};

/// The most (key, column) pairs a target-derived candidate buffer holds
/// (32 KiB). A normally distributed row of 128k values has about 2k
/// elements in the first digit's threshold bin at k = 2048 (a quarter
/// octave near the 98th percentile), so this covers the rows the indexer
/// sees while leaving LDS for occupancy.
constexpr int64_t kMaxCandidates = 4096;

/// LDS kept back from the candidate buffer for the expansion's other
/// buffers: the histogram's bins (8 KiB, a tile.local_alloc live over the
/// chunk loop, then dead before the scan) and the scratch of the scans,
/// reductions and prefix counts (under 1 KiB today), with room to spare.
constexpr int64_t kReservedLdsBytes = 16 * 1024;

/// The candidate buffer's capacity for `op` on `target`: the largest power
/// of two of pairs, at most kMaxCandidates, whose two i32 buffers fit the
/// target's LDS beside kReservedLdsBytes and, with `sorted`, the k-pair
/// buffers of the sort; 0 (no buffer) when that leaves no room.
int64_t derivedCapacity(TopKOp op, const TargetInfo &target) {
  int64_t budget = int64_t(target.ldsBytesPerWorkgroup()) - kReservedLdsBytes;
  if (op.getSorted())
    budget -= 2 * 4 * int64_t(op.getK());
  int64_t pairs = budget / 8;
  if (pairs <= 0)
    return 0;
  return std::min<int64_t>(kMaxCandidates, llvm::bit_floor(uint64_t(pairs)));
}

/// Builds the expansion of one tile.topk. Scalars are i32 unless named
/// otherwise; tensors are 1-D of `chunk` elements or of kBins bins.
/// `capacity` (a power of two, or 0 for none) is the size of the candidate
/// buffer in (key, column) pairs.
class RadixSelectBuilder {
public:
  RadixSelectBuilder(TopKOp op, int64_t capacity)
      : op(op), b(op), loc(op.getLoc()), chunk(op.getChunk()), k(op.getK()) {
    i1 = b.getI1Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    // A split row's candidates live in the workspace (see buildSplit).
    if (capacity > 0 && !op.isSplit()) {
      cands.piece = std::min(chunk, capacity);
      cands.stages = capacity / cands.piece;
    }
  }

  void build() {
    Value n = arith::MaxSIOp::create(b, loc, op.getN(), c(0));
    Value small =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, n, c(k));
    auto selectRow = [&] { select(n); };
    if (op.isSplit())
      buildSplit(n, small);
    else if (op.getSorted())
      buildSorted(n, small, selectRow);
    else
      buildUnsorted(n, small, selectRow);
    op.erase();
  }

private:
  // ---- small helpers -------------------------------------------------
  Value c(int64_t v, Type t = {}) {
    return arith::ConstantIntOp::create(b, loc, t ? t : i32, v);
  }
  RankedTensorType vec(int64_t size, Type elem) {
    return RankedTensorType::get({size}, elem);
  }
  Value splat(Value s, int64_t size) {
    return SplatOp::create(b, loc, vec(size, s.getType()), s);
  }
  Value range(int64_t size) {
    return RangeOp::create(b, loc, vec(size, i32), 0, size);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value negate(Value flag) {
    Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    return arith::XOrIOp::create(b, loc, flag, yes);
  }
  Value sum(Value t) {
    return ReduceOp::create(b, loc, i32, tile::CombineKind::add, t, 0);
  }
  /// Exclusive positions of `mask`'s true elements among them, and their
  /// count (ballot prefix counts, not a scan).
  std::pair<Value, Value> compact(Value mask) {
    auto pc = PrefixCountOp::create(b, loc, vec(sizeOf(mask), i32), i32, mask);
    return {pc.getPositions(), pc.getTotal()};
  }
  Value suffixScan(Value t) {
    auto kind =
        tile::CombineKindAttr::get(b.getContext(), tile::CombineKind::add);
    return ScanOp::create(b, loc, t.getType(), kind, t, b.getI32IntegerAttr(0),
                          nullptr, b.getUnitAttr());
  }
  int64_t sizeOf(Value t) {
    return cast<RankedTensorType>(t.getType()).getDimSize(0);
  }
  /// `base` (i64) + the i32 offsets `t`, as i64 offsets.
  Value offsets(Value base, Value t) {
    int64_t size = sizeOf(t);
    Value wide = arith::ExtSIOp::create(b, loc, vec(size, i64), t);
    return arith::AddIOp::create(b, loc, splat(base, size), wide);
  }
  void store(Value v, Value at, Value mask) {
    StoreOp::create(b, loc, v, op.getDst(), offsets(op.getDstOffset(), at),
                    mask, nullptr);
  }
  Value ceilDiv(Value n, int64_t d) {
    Value up = arith::AddIOp::create(b, loc, n, c(d - 1));
    return arith::DivUIOp::create(b, loc, up, c(d));
  }
  MemDescType shared1d(ArrayRef<int64_t> shape) {
    return MemDescType::get(
        b.getContext(), shape, i32,
        SharedLayoutAttr::get(b.getContext(), 1, 1, 1, ArrayRef<unsigned>{0u}));
  }

  // ---- rows with n <= k: 0..n-1, then -1 ----------------------------
  void writeShortRow(Value n) {
    int64_t steps = (k + chunk - 1) / chunk;
    for (int64_t s = 0; s < steps; ++s) {
      Value idx = arith::AddIOp::create(b, loc, range(chunk),
                                        splat(c(s * chunk), chunk));
      Value inRow = cmp(arith::CmpIPredicate::slt, idx, splat(n, chunk));
      Value v =
          arith::SelectOp::create(b, loc, inRow, idx, splat(c(-1), chunk));
      store(v, idx, cmp(arith::CmpIPredicate::slt, idx, splat(c(k), chunk)));
    }
  }

  // ---- keys ------------------------------------------------------------
  struct Chunk {
    Value idx, inRow, key; // i32 positions, i1, u32 keys (as i32)
  };

  /// Loads chunk `ci` of the row's columns [begin, n).
  Chunk loadChunk(Value ci, Value begin, Value n) {
    Value first = arith::MulIOp::create(b, loc, ci, c(chunk));
    if (begin)
      first = arith::AddIOp::create(b, loc, first, begin);
    return loadElems(first, chunk, n);
  }

  /// Loads the `size` elements of the row from `first` and maps them to
  /// order-preserving keys: NaNs lose their sign (every NaN ranks above
  /// +inf), -0.0 becomes +0.0, negatives are inverted and non-negatives get
  /// the top bit. Key 0 is left to no value (-inf is 0x007fffff).
  Chunk loadElems(Value first, int64_t size, Value n) {
    Chunk ch;
    ch.idx = arith::AddIOp::create(b, loc, range(size), splat(first, size));
    ch.inRow = cmp(arith::CmpIPredicate::slt, ch.idx, splat(n, size));
    Value x = LoadOp::create(b, loc, vec(size, b.getF32Type()), op.getSrc(),
                             offsets(op.getSrcOffset(), ch.idx),
                             /*block_base=*/Value(), ch.inRow, Value(), nullptr,
                             false);
    ch.key = keyOf(x);
    return ch;
  }

  /// The order-preserving keys of the f32 tensor `x`.
  Value keyOf(Value x) {
    int64_t size = sizeOf(x);
    Value u = arith::BitcastOp::create(b, loc, vec(size, i32), x);
    Value mag = arith::AndIOp::create(b, loc, u, splat(c(0x7fffffff), size));
    Value nan = cmp(arith::CmpIPredicate::ugt, mag, splat(c(0x7f800000), size));
    u = arith::SelectOp::create(b, loc, nan, mag, u);
    Value negZero = cmp(arith::CmpIPredicate::eq, u, splat(c(INT32_MIN), size));
    u = arith::SelectOp::create(b, loc, negZero, splat(c(0), size), u);
    Value neg = cmp(arith::CmpIPredicate::slt, u, splat(c(0), size));
    Value flipped = arith::XOrIOp::create(b, loc, u, splat(c(-1), size));
    Value lifted = arith::OrIOp::create(b, loc, u, splat(c(INT32_MIN), size));
    return arith::SelectOp::create(b, loc, neg, flipped, lifted);
  }

  /// What the current digit sees of a chunk: whether an element is still a
  /// candidate (its key matches the digits fixed so far) and its digit.
  struct DigitView {
    Value candidate, digit;
  };
  DigitView viewDigit(const Chunk &ch, Value prefix, Value prefixMask,
                      Value shift, Value mask) {
    int64_t size = sizeOf(ch.key);
    Value fixed =
        arith::AndIOp::create(b, loc, ch.key, splat(prefixMask, size));
    Value match = cmp(arith::CmpIPredicate::eq, fixed, splat(prefix, size));
    DigitView v;
    v.candidate = arith::AndIOp::create(b, loc, ch.inRow, match);
    Value d = arith::ShRUIOp::create(b, loc, ch.key, splat(shift, size));
    v.digit = arith::AndIOp::create(b, loc, d, splat(mask, size));
    return v;
  }

  /// The candidates whose digit is above `bin` and those in it.
  std::pair<Value, Value> aroundBin(const DigitView &dv, Value bin,
                                    int64_t size) {
    Value binV = splat(bin, size);
    Value gt = arith::AndIOp::create(
        b, loc, dv.candidate, cmp(arith::CmpIPredicate::sgt, dv.digit, binV));
    Value eq = arith::AndIOp::create(
        b, loc, dv.candidate, cmp(arith::CmpIPredicate::eq, dv.digit, binV));
    return {gt, eq};
  }

  // ---- the LDS candidate buffer ------------------------------------------
  /// Allocates the buffer's two tiles (keys, columns) as `stages` pieces of
  /// `piece` pairs, zeroed: the scatters that fill them read the old words,
  /// and a piece is read whole even where it holds fewer pairs.
  void allocCandidates() {
    MemDescType type = shared1d({cands.stages, cands.piece});
    Value zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vec(cands.piece, i32), b.getI32IntegerAttr(0)));
    for (Value *buf : {&cands.keys, &cands.cols}) {
      *buf = LocalAllocOp::create(b, loc, type, Value());
      for (int64_t s = 0; s < cands.stages; ++s)
        LocalStoreOp::create(b, loc, zeros, stageOf(*buf, c(s)));
    }
  }
  Value stageOf(Value buf, Value s) {
    auto type = cast<MemDescType>(buf.getType()).getStageType();
    return MemDescIndexOp::create(b, loc, type, buf, s);
  }

  /// Piece `i` of the buffer, which holds `count` pairs.
  Chunk loadCandidates(Value i, Value count) {
    Type t = vec(cands.piece, i32);
    Chunk ch;
    ch.key = LocalLoadOp::create(b, loc, t, stageOf(cands.keys, i));
    ch.idx = LocalLoadOp::create(b, loc, t, stageOf(cands.cols, i));
    Value first = arith::MulIOp::create(b, loc, i, c(cands.piece));
    Value pos = arith::AddIOp::create(b, loc, range(cands.piece),
                                      splat(first, cands.piece));
    ch.inRow = cmp(arith::CmpIPredicate::slt, pos, splat(count, cands.piece));
    return ch;
  }

  /// Puts a chunk's pairs `mask` at buffer positions `pos`, which lie in
  /// [first, first + count) within the capacity: one scatter per piece that
  /// this range reaches (none when count is 0). Bounds that cannot fail
  /// (below the first piece, past the last) are not tested.
  void appendCandidates(const Chunk &ch, Value pos, Value mask, Value first,
                        Value count) {
    Value end = arith::AddIOp::create(b, loc, first, count);
    Value any = cmp(arith::CmpIPredicate::sgt, count, c(0));
    int64_t size = sizeOf(pos);
    for (int64_t s = 0; s < cands.stages; ++s) {
      int64_t lo = s * cands.piece, hi = lo + cands.piece;
      bool firstPiece = s == 0, lastPiece = s + 1 == cands.stages;
      Value reaches = any;
      if (!lastPiece)
        reaches = arith::AndIOp::create(
            b, loc, reaches, cmp(arith::CmpIPredicate::slt, first, c(hi)));
      if (!firstPiece)
        reaches = arith::AndIOp::create(
            b, loc, reaches, cmp(arith::CmpIPredicate::sgt, end, c(lo)));
      scf::IfOp::create(b, loc, reaches, [&](OpBuilder &, Location) {
        Value in = mask, at = pos;
        if (!firstPiece) {
          Value loV = splat(c(lo), size);
          in = arith::AndIOp::create(b, loc, in,
                                     cmp(arith::CmpIPredicate::sge, pos, loV));
          at = arith::SubIOp::create(b, loc, pos, loV);
        }
        if (!lastPiece)
          in = arith::AndIOp::create(
              b, loc, in,
              cmp(arith::CmpIPredicate::slt, pos, splat(c(hi), size)));
        Value stage = c(s);
        scatter(stageOf(cands.keys, stage), ch.key, at, in);
        scatter(stageOf(cands.cols, stage), ch.idx, at, in);
        scf::YieldOp::create(b, loc);
      });
    }
  }

  /// Element i of `v` to position `at[i]` of the 1-D tile `buf` where `mask`
  /// holds (tile.atomic_rmw xchg, between workgroup barriers).
  void scatter(Value buf, Value v, Value at, Value mask) {
    AtomicRMWOp::create(b, loc, v.getType(), AtomicKind::xchg, buf, at, v, mask,
                        MemScope::workgroup);
  }

  /// Where a digit reads its candidates: the row (`bound` = n elements, in
  /// chunks) or the candidate buffer (`bound` = its count of pairs, in
  /// pieces).
  /// A split row's parts read the slice [begin, bound) of the row, and its
  /// candidate buffer is the workspace's (read in chunks).
  struct Source {
    bool buffer;
    Value bound;
    Value begin = {};
  };
  Value trips(Source src) {
    Value len = src.bound;
    if (src.begin)
      len = arith::SubIOp::create(b, loc, len, src.begin);
    return ceilDiv(len, src.buffer && !split.ws ? cands.piece : chunk);
  }
  Chunk loadPiece(Source src, Value i) {
    if (!src.buffer)
      return loadChunk(i, src.begin, src.bound);
    return split.ws ? loadWorkspaceCandidates(i, src.bound)
                    : loadCandidates(i, src.bound);
  }
  bool hasBuffer() const { return cands.stages || split.ws; }

  // ---- one digit -------------------------------------------------------
  /// `count` >= 0: the candidates are the buffer's `count` pairs (those
  /// whose key matches `prefix`), not the row's; -1 until it is filled (one
  /// scalar for both keeps AMD's SGPRs from spilling).
  struct State {
    Value written, need, prefix, prefixMask; // i32
    Value done;                              // i1
    Value count;                             // i32
    SmallVector<Value> values() const {
      return {written, need, prefix, prefixMask, done, count};
    }
    static State of(ValueRange v) {
      return {v[0], v[1], v[2], v[3], v[4], v[5]};
    }
  };

  /// `f(source)` for the state's source of candidates: the buffer when
  /// filled, else the row of `n` (an scf.if when there is a buffer).
  Value fromSource(const State &s, Value n, Type result,
                   llvm::function_ref<Value(Source)> f) {
    if (!hasBuffer())
      return f({false, n});
    auto sel = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::sge, s.count, c(0)),
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, f({true, s.count}));
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, f({false, n}));
        });
    assert(sel.getResult(0).getType() == result);
    return sel.getResult(0);
  }

  /// Histogram of the candidates' digits over the source, accumulated in
  /// LDS bins: zeroed once (the store's barriers order it after earlier
  /// reads), then only atomics per chunk, so that no wave waits for another
  /// inside the loop; one barrier before the bins are read back.
  Value histogram(Source src, const State &s, Value shift, Value mask) {
    Value zero = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vec(kBins, i32), b.getI32IntegerAttr(0)));
    Value bins = LocalAllocOp::create(b, loc, shared1d({kBins}), zero);
    auto loop = scf::ForOp::create(b, loc, c(0), trips(src), c(1));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Chunk ch = loadPiece(src, loop.getInductionVar());
      DigitView dv = viewDigit(ch, s.prefix, s.prefixMask, shift, mask);
      HistogramAddOp::create(b, loc, dv.digit, dv.candidate, bins);
    }
    BarrierOp::create(b, loc);
    return LocalLoadOp::create(b, loc, vec(kBins, i32), bins);
  }

  struct Threshold {
    Value bin, above, inBin; // i32
  };

  /// The bin holding the need-th largest candidate (the largest bin whose
  /// suffix count reaches `need`), the candidates above it and in it.
  Threshold threshold(Value hist, Value need) {
    Value suffix = suffixScan(hist);
    Value bins = range(kBins);
    Value reaches = cmp(arith::CmpIPredicate::sge, suffix, splat(need, kBins));
    Value cand =
        arith::SelectOp::create(b, loc, reaches, bins, splat(c(-1), kBins));
    Threshold t;
    t.bin = ReduceOp::create(b, loc, i32, tile::CombineKind::max, cand, 0);
    Value isT = cmp(arith::CmpIPredicate::eq, bins, splat(t.bin, kBins));
    Value zero = splat(c(0), kBins);
    Value aboveT = arith::SubIOp::create(b, loc, suffix, hist);
    t.above = sum(arith::SelectOp::create(b, loc, isT, aboveT, zero));
    t.inBin = sum(arith::SelectOp::create(b, loc, isT, hist, zero));
    return t;
  }

  /// (low, high) i32 tensors as the i64 tensor high << 32 | low (low
  /// unsigned).
  Value pack64(Value low, Value high) {
    Type t = vec(sizeOf(low), i64);
    Value lo = arith::ExtUIOp::create(b, loc, t, low);
    Value hi =
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, t, high),
                              splat(c(32, i64), sizeOf(low)));
    return arith::OrIOp::create(b, loc, hi, lo);
  }
  Value sum64(Value t) {
    return ReduceOp::create(b, loc, i64, tile::CombineKind::add, t, 0);
  }
  /// The low and high halves of the i64 scalar `v`.
  std::pair<Value, Value> unpack64(Value v) {
    Value lo = arith::TruncIOp::create(b, loc, i32, v);
    Value hi = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, v, c(32, i64)));
    return {lo, hi};
  }

  /// Writes the candidates above the threshold bin and, with `ties`, the
  /// first `take` of the bin's (in index order) at consecutive positions
  /// after `written`. With `fill` (i1, reading the row), also copies every
  /// element of the bin to the candidate buffer, in index order. Returns the
  /// new count written.
  Value emit(Source src, const State &s, Value shift, Value mask,
             const Threshold &t, Value take, Value ties, Value fill) {
    auto loop = scf::ForOp::create(b, loc, c(0), trips(src), c(1),
                                   ValueRange{s.written, c(0)});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value written = loop.getRegionIterArg(0), seen = loop.getRegionIterArg(1);
    Chunk ch = loadPiece(src, loop.getInductionVar());
    int64_t size = sizeOf(ch.key);
    auto [gt, eq] = aroundBin(
        viewDigit(ch, s.prefix, s.prefixMask, shift, mask), t.bin, size);
    auto [eqPos, eqCount] = compact(eq);
    Value rank = arith::AddIOp::create(b, loc, eqPos, splat(seen, size));
    Value early = cmp(arith::CmpIPredicate::slt, rank, splat(take, size));
    // Copied before the selection is placed, so that the ranks and (without
    // `sorted`) the keys are dead by then.
    if (fill)
      appendCandidates(ch, rank, eq, seen,
                       arith::SelectOp::create(b, loc, fill, eqCount, c(0)));
    Value tie = arith::AndIOp::create(
        b, loc, arith::AndIOp::create(b, loc, eq, early), splat(ties, size));
    Value sel = arith::OrIOp::create(b, loc, gt, tie);
    auto [selPos, selCount] = compact(sel);
    Value at = arith::AddIOp::create(b, loc, selPos, splat(written, size));
    put(ch, at, sel);
    Value written1 = arith::AddIOp::create(b, loc, written, selCount);
    Value seen1 = arith::AddIOp::create(b, loc, seen, eqCount);
    scf::YieldOp::create(b, loc, ValueRange{written1, seen1});
    return loop.getResult(0);
  }

  /// One digit: histogram, threshold, emission, from the buffer once it is
  /// filled, else from the row. The threshold bin's elements are all taken
  /// when they are exactly the ones still needed (early exit) or, at the
  /// last digit, where they are equal keys, the first ones by index (the
  /// stable rule). Otherwise they are the next digit's candidates, and the
  /// emission from the row copies them to the buffer when they fit; when
  /// they do not, the next digit reads the row again.
  State digitStep(Value n, const State &s, Value d) {
    Value last = cmp(arith::CmpIPredicate::eq, d, c(2));
    Value first = cmp(arith::CmpIPredicate::eq, d, c(0));
    Value shift = arith::SelectOp::create(
        b, loc, first, c(kDigits[0].shift),
        arith::SelectOp::create(b, loc, last, c(kDigits[2].shift),
                                c(kDigits[1].shift)));
    Value mask = arith::SelectOp::create(b, loc, last, c(kDigits[2].mask),
                                         c(kDigits[0].mask));
    Value hist = fromSource(s, n, vec(kBins, i32), [&](Source src) {
      return histogram(src, s, shift, mask);
    });
    Threshold t = threshold(hist, s.need);
    Value take = arith::SubIOp::create(b, loc, s.need, t.above);
    Value exact = cmp(arith::CmpIPredicate::eq, t.inBin, take);
    Value ties = arith::OrIOp::create(b, loc, last, exact);
    State next;
    next.count = s.count;
    Value fill;
    if (cands.stages) {
      Value fits = cmp(arith::CmpIPredicate::sle, t.inBin,
                       c(cands.piece * cands.stages));
      Value notYet = cmp(arith::CmpIPredicate::slt, s.count, c(0));
      Value going = negate(ties);
      fill = arith::AndIOp::create(
          b, loc, fits, arith::AndIOp::create(b, loc, notYet, going));
      next.count = arith::SelectOp::create(b, loc, fill, t.inBin, s.count);
    }
    next.written = fromSource(s, n, i32, [&](Source src) {
      return emit(src, s, shift, mask, t, take, ties,
                  src.buffer ? Value() : fill);
    });
    next.need = take;
    next.prefix = arith::OrIOp::create(
        b, loc, s.prefix, arith::ShLIOp::create(b, loc, t.bin, shift));
    next.prefixMask = arith::OrIOp::create(
        b, loc, s.prefixMask, arith::ShLIOp::create(b, loc, mask, shift));
    next.done = ties;
    return next;
  }

  void select(Value n) {
    if (cands.stages)
      allocCandidates();
    refine(n, {c(0), c(k), c(0), c(0), c(0, i1), c(-1)}, 0);
  }

  /// The digits from `firstDigit` on, from state `init`.
  void refine(Value n, const State &init, int64_t firstDigit) {
    auto loop = scf::ForOp::create(b, loc, c(firstDigit), c(std::size(kDigits)),
                                   c(1), init.values());
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    auto args = loop.getRegionIterArgs();
    State s = State::of(args);
    auto step = scf::IfOp::create(
        b, loc, s.done,
        [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, args); },
        [&](OpBuilder &, Location) {
          State t = digitStep(n, s, loop.getInductionVar());
          scf::YieldOp::create(b, loc, t.values());
        });
    scf::YieldOp::create(b, loc, step.getResults());
  }

  // ---- the two forms ---------------------------------------------------
  /// Short rows by the short-row rule, the others by `selectRow`.
  void buildUnsorted(Value n, Value small,
                     llvm::function_ref<void()> selectRow) {
    scf::IfOp::create(
        b, loc, small,
        [&](OpBuilder &, Location) {
          writeShortRow(n);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &, Location) {
          selectRow();
          scf::YieldOp::create(b, loc);
        });
  }

  /// The row's k (key, column) pairs, from the short-row rule or from
  /// `selectRow` (through the LDS pair buffers), sorted, then written.
  void buildSorted(Value n, Value small, llvm::function_ref<void()> selectRow) {
    allocPairs();
    auto rows = scf::IfOp::create(
        b, loc, small,
        [&](OpBuilder &, Location) {
          auto [keys, idx] = shortRowPairs(n);
          scf::YieldOp::create(b, loc, ValueRange{keys, idx});
        },
        [&](OpBuilder &, Location) {
          selectRow();
          scf::YieldOp::create(b, loc, loadPairs());
        });
    Value idx = sortPairs(rows.getResult(0), rows.getResult(1));
    store(idx, range(k), Value());
  }

  /// The LDS pair buffers of the sorted form, zeroed because the exchanges
  /// that fill them read the old words.
  void allocPairs() {
    MemDescType pairType = shared1d({k});
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vec(k, i32), b.getI32IntegerAttr(0)));
    pairs.keys = LocalAllocOp::create(b, loc, pairType, zeros);
    pairs.idx = LocalAllocOp::create(b, loc, pairType, zeros);
  }

  /// Where the selection puts a chunk's chosen columns (`mask`) at their
  /// row positions `at`: straight into `dst`, or with `sorted` as (key,
  /// column) pairs into the LDS pair buffers.
  void put(const Chunk &ch, Value at, Value mask) {
    if (pairs.keys)
      scatterPairs(ch.key, ch.idx, at, mask);
    else
      store(ch.idx, at, mask);
  }

  /// LDS scatters: element i of `keys` and `idx` to position `at[i]`
  /// (tile.atomic_rmw xchg on the buffers, between workgroup barriers).
  void scatterPairs(Value keys, Value idx, Value at, Value mask) {
    scatter(pairs.keys, keys, at, mask);
    scatter(pairs.idx, idx, at, mask);
  }

  // ---- split rows: several programs per row ---------------------------
  /// Words of the split workspace, as i64 offsets from the row region.
  Value rowWord(int64_t word) {
    return arith::AddIOp::create(b, loc, split.row, c(word, i64));
  }
  Value loadWorkspace(int64_t word, Value at, Value mask) {
    return LoadOp::create(b, loc, vec(sizeOf(at), i32), split.ws,
                          offsets(rowWord(word), at), /*block_base=*/Value(),
                          mask, Value(), nullptr, false);
  }
  void storeWorkspace(int64_t word, Value v, Value at, Value mask) {
    StoreOp::create(b, loc, v, split.ws, offsets(rowWord(word), at), mask,
                    nullptr);
  }
  void gridBarrier() {
    GridBarrierOp::create(b, loc, split.ws, op.getWsOffset());
  }

  /// Piece `i` (of `chunk` pairs) of the workspace's candidates, which holds
  /// `count` pairs.
  Chunk loadWorkspaceCandidates(Value i, Value count) {
    Chunk ch;
    Value first = arith::MulIOp::create(b, loc, i, c(chunk));
    Value pos =
        arith::AddIOp::create(b, loc, range(chunk), splat(first, chunk));
    ch.inRow = cmp(arith::CmpIPredicate::slt, pos, splat(count, chunk));
    ch.key = loadWorkspace(topk::kSplitKeysWord, pos, ch.inRow);
    ch.idx = loadWorkspace(topk::kSplitColsWord, pos, ch.inRow);
    return ch;
  }

  /// This part's slice of the row: `parts` chunk-aligned pieces of n.
  Source splitSlice(Value n) {
    Value parts = op.getParts();
    Value per = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, n,
                              arith::SubIOp::create(b, loc, parts, c(1))),
        parts);
    per = arith::MulIOp::create(b, loc, ceilDiv(per, chunk), c(chunk));
    Value lo = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, op.getPart(), per), n);
    Value hi = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, per), n);
    return {false, hi, lo};
  }

  /// Phase 1: the slice's histogram of the first digit in LDS, added to the
  /// row's global histogram (one device atomic per non-empty bin). Returns
  /// the slice's own counts.
  Value splitHistogram(Source slice, const State &s0) {
    Value hist = histogram(slice, s0, c(kDigits[0].shift), c(kDigits[0].mask));
    Value used = cmp(arith::CmpIPredicate::ne, hist, splat(c(0), kBins));
    Value at = offsets(rowWord(topk::kSplitHistWord), range(kBins));
    AtomicRMWOp::create(b, loc, hist.getType(), AtomicKind::add, split.ws, at,
                        hist, used, MemScope::device);
    return hist;
  }

  /// Phase 2: the threshold from the row's histogram (bin, above, inBin),
  /// and this part's counts above and in that bin, published at its pair
  /// of count words.
  SmallVector<Value> splitThreshold(Value local) {
    Value global = loadWorkspace(topk::kSplitHistWord, range(kBins), Value());
    Threshold t = threshold(global, c(k));
    Value bins = range(kBins), zero = splat(c(0), kBins);
    Value binV = splat(t.bin, kBins);
    // One sum of (above, in) pairs: each half stays below 2^31.
    Value aboveV = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::sgt, bins, binV), local, zero);
    Value inV = arith::SelectOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, bins, binV), local, zero);
    auto [above, in] = unpack64(sum64(pack64(aboveV, inV)));
    Value word = arith::ExtSIOp::create(
        b, loc, i64, arith::MulIOp::create(b, loc, op.getPart(), c(2)));
    Value base =
        arith::AddIOp::create(b, loc, rowWord(topk::kSplitCountsWord), word);
    StoreOp::create(b, loc, above, split.ws, base, Value(), nullptr);
    StoreOp::create(b, loc, in, split.ws,
                    arith::AddIOp::create(b, loc, base, c(1, i64)), Value(),
                    nullptr);
    return {t.bin, t.above, t.inBin};
  }

  /// The counts of the parts before this one: (above, in bin).
  std::pair<Value, Value> splitBases() {
    int64_t size = std::max<int64_t>(2 * topk::kSplitMaxParts, chunk);
    Value words = range(size);
    Value before =
        cmp(arith::CmpIPredicate::slt, words,
            splat(arith::MulIOp::create(b, loc, op.getPart(), c(2)), size));
    Value counts = loadWorkspace(topk::kSplitCountsWord, words, before);
    Value odd = cmp(arith::CmpIPredicate::ne,
                    arith::AndIOp::create(b, loc, words, splat(c(1), size)),
                    splat(c(0), size));
    Value zero = splat(c(0), size);
    counts = arith::SelectOp::create(b, loc, before, counts, zero);
    Value aboveV = arith::SelectOp::create(b, loc, odd, zero, counts);
    Value inV = arith::SelectOp::create(b, loc, odd, counts, zero);
    return unpack64(sum64(pack64(aboveV, inV)));
  }

  /// Phase 3: the slice's elements above the threshold bin go to `dst` at
  /// their row-wide positions (the parts before this one first), the bin's
  /// too when `exact`; with `fill` the bin's (key, column) pairs go to the
  /// workspace's candidates at their row-wide bin ranks (column order).
  void splitEmit(Source slice, const State &s0, const Threshold &t, Value exact,
                 Value fill) {
    auto [aboveBase, inBase] = splitBases();
    auto loop = scf::ForOp::create(b, loc, c(0), trips(slice), c(1),
                                   ValueRange{aboveBase, inBase});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value gtSeen = loop.getRegionIterArg(0), eqSeen = loop.getRegionIterArg(1);
    Chunk ch = loadPiece(slice, loop.getInductionVar());
    int64_t size = sizeOf(ch.key);
    auto [gt, eq] =
        aroundBin(viewDigit(ch, s0.prefix, s0.prefixMask, c(kDigits[0].shift),
                            c(kDigits[0].mask)),
                  t.bin, size);
    auto [gtPos, gtCount] = compact(gt);
    auto [eqPos, eqCount] = compact(eq);
    Value rank = arith::AddIOp::create(b, loc, eqPos, splat(eqSeen, size));
    Value gtAt = arith::AddIOp::create(b, loc, gtPos, splat(gtSeen, size));
    Value eqAt = arith::AddIOp::create(b, loc, rank, splat(t.above, size));
    Value takeEq = arith::AndIOp::create(b, loc, eq, splat(exact, size));
    store(ch.idx, arith::SelectOp::create(b, loc, gt, gtAt, eqAt),
          arith::OrIOp::create(b, loc, gt, takeEq));
    Value copy = arith::AndIOp::create(b, loc, eq, splat(fill, size));
    storeWorkspace(topk::kSplitKeysWord, ch.key, rank, copy);
    storeWorkspace(topk::kSplitColsWord, ch.idx, rank, copy);
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::AddIOp::create(b, loc, gtSeen, gtCount),
                   arith::AddIOp::create(b, loc, eqSeen, eqCount)});
  }

  /// With `sorted`: loads the `count` columns that phase 3 wrote to `dst`
  /// and their keys into the LDS pair buffers (the refinement puts the rest
  /// after them).
  void splitLoadPairs(Value count) {
    Value pos = range(k);
    Value written = cmp(arith::CmpIPredicate::slt, pos, splat(count, k));
    Value cols = LoadOp::create(b, loc, vec(k, i32), op.getDst(),
                                offsets(op.getDstOffset(), pos), Value(),
                                written, Value(), nullptr, false);
    Value x = LoadOp::create(b, loc, vec(k, b.getF32Type()), op.getSrc(),
                             offsets(op.getSrcOffset(), cols), Value(), written,
                             Value(), nullptr, false);
    Value keys =
        arith::SelectOp::create(b, loc, written, keyOf(x), splat(c(0), k));
    LocalStoreOp::create(b, loc, keys, pairs.keys);
    LocalStoreOp::create(b, loc, cols, pairs.idx);
  }

  /// Part 0 alone, after the other parts' writes: the later digits from the
  /// workspace's candidates (or, when the bin did not fit there, the row),
  /// then the histogram zeroed for the next launch.
  void splitFinish(Value n, const Threshold &t, Value exact, Value fill) {
    Value take = arith::SubIOp::create(b, loc, c(k), t.above);
    if (pairs.keys)
      splitLoadPairs(arith::SelectOp::create(b, loc, exact, c(k), t.above));
    State s1;
    s1.written = t.above;
    s1.need = take;
    s1.prefix = arith::ShLIOp::create(b, loc, t.bin, c(kDigits[0].shift));
    s1.prefixMask = c(kDigits[0].mask << kDigits[0].shift);
    s1.done = exact;
    s1.count = arith::SelectOp::create(b, loc, fill, t.inBin, c(-1));
    scf::IfOp::create(b, loc, negate(exact), [&](OpBuilder &, Location) {
      refine(n, s1, 1);
      scf::YieldOp::create(b, loc);
    });
    storeWorkspace(topk::kSplitHistWord, splat(c(0), kBins), range(kBins),
                   Value());
  }

  /// The split form: every part histograms its slice into the row's global
  /// histogram; after a grid barrier each finds the threshold bin and
  /// publishes its counts; after another each writes its slice's selection
  /// at row-wide positions and the bin's candidates to the workspace; after
  /// a third, part 0 refines them (and sorts) alone. Every program reaches
  /// the three barriers, whatever its row's length.
  void buildSplit(Value n, Value small) {
    split.ws = op.getWs();
    Value row = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, op.getRow()),
        c(topk::kSplitRowWords, i64));
    split.row = arith::AddIOp::create(
        b, loc, op.getWsOffset(),
        arith::AddIOp::create(b, loc, row, c(topk::kSplitHeaderWords, i64)));
    Value big = negate(small);
    Source slice = splitSlice(n);
    State s0 = {c(0), c(k), c(0), c(0), c(0, i1), c(-1)};
    Value zeros = splat(c(0), kBins);

    auto local = scf::IfOp::create(
        b, loc, big,
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, splitHistogram(slice, s0));
        },
        [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, zeros); });
    gridBarrier();
    auto found = scf::IfOp::create(
        b, loc, big,
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, splitThreshold(local.getResult(0)));
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{c(0), c(0), c(0)});
        });
    gridBarrier();
    Threshold t{found.getResult(0), found.getResult(1), found.getResult(2)};
    Value take = arith::SubIOp::create(b, loc, c(k), t.above);
    Value exact = cmp(arith::CmpIPredicate::eq, t.inBin, take);
    Value fill = arith::AndIOp::create(
        b, loc, negate(exact),
        cmp(arith::CmpIPredicate::sle, t.inBin, c(topk::kSplitCandidates)));
    scf::IfOp::create(b, loc, big, [&](OpBuilder &, Location) {
      splitEmit(slice, s0, t, exact, fill);
      scf::YieldOp::create(b, loc);
    });
    gridBarrier();

    Value first = cmp(arith::CmpIPredicate::eq, op.getPart(), c(0));
    scf::IfOp::create(b, loc, first, [&](OpBuilder &, Location) {
      auto finish = [&] { splitFinish(n, t, exact, fill); };
      if (op.getSorted())
        buildSorted(n, small, finish);
      else
        buildUnsorted(n, small, finish);
      scf::YieldOp::create(b, loc);
    });
  }

  // ---- sorted output ---------------------------------------------------
  /// The pair buffers' keys and columns, as tensors of k.
  SmallVector<Value> loadPairs() {
    Type t = vec(k, i32);
    return {LocalLoadOp::create(b, loc, t, pairs.keys),
            LocalLoadOp::create(b, loc, t, pairs.idx)};
  }

  /// A short row's pairs: columns 0..n-1 with their keys, then column -1
  /// with key 0, below every value's key, so the sort leaves them last.
  std::pair<Value, Value> shortRowPairs(Value n) {
    Chunk ch = loadElems(c(0), k, n);
    Value keys =
        arith::SelectOp::create(b, loc, ch.inRow, ch.key, splat(c(0), k));
    Value idx =
        arith::SelectOp::create(b, loc, ch.inRow, ch.idx, splat(c(-1), k));
    return {keys, idx};
  }

  /// A stable LSD radix sort of the pairs by key, descending, one bit per
  /// pass from bit 0: the pairs whose bit is set move to the front in their
  /// order (positions from tile.prefix_count), the others after them. A
  /// pass in which every key has the same bit moves nothing and is skipped.
  /// Equal keys keep their order, which is by column in both producers, so
  /// ties go to the smaller column. Returns the sorted columns.
  Value sortPairs(Value keys, Value idx) {
    auto loop =
        scf::ForOp::create(b, loc, c(0), c(32), c(1), ValueRange{keys, idx});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value bit = loop.getInductionVar();
    keys = loop.getRegionIterArg(0);
    idx = loop.getRegionIterArg(1);
    Value shifted = arith::ShRUIOp::create(b, loc, keys, splat(bit, k));
    Value low = arith::AndIOp::create(b, loc, shifted, splat(c(1), k));
    Value set = cmp(arith::CmpIPredicate::ne, low, splat(c(0), k));
    auto [setPos, setCount] = compact(set);
    // A clear bit goes after every set one: its position is the set count
    // plus the clear elements before it.
    Value clearPos = arith::AddIOp::create(
        b, loc, arith::SubIOp::create(b, loc, range(k), setPos),
        splat(setCount, k));
    Value at = arith::SelectOp::create(b, loc, set, setPos, clearPos);
    Value moves = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::ne, setCount, c(0)),
        cmp(arith::CmpIPredicate::ne, setCount, c(k)));
    auto pass = scf::IfOp::create(
        b, loc, moves,
        [&](OpBuilder &, Location) {
          scatterPairs(keys, idx, at, Value());
          scf::YieldOp::create(b, loc, loadPairs());
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{keys, idx});
        });
    scf::YieldOp::create(b, loc, pass.getResults());
    return loop.getResult(1);
  }

  TopKOp op;
  /// With `sorted`: the LDS buffers of the row's k keys and columns.
  struct {
    Value keys, idx;
  } pairs;
  /// The split form's workspace and its row region (i64 word offset).
  struct {
    Value ws, row;
  } split;
  /// The LDS candidate buffer (stages == 0: none): keys and columns, each
  /// !tile.memdesc<stages x piece x i32>, filled in column order.
  struct {
    Value keys, cols;
    int64_t piece = 0, stages = 0;
  } cands;
  OpBuilder b;
  Location loc;
  int64_t chunk, k;
  Type i1, i32, i64;
};

struct ExpandRadixSelectPass
    : public tessel::impl::TileExpandRadixSelectBase<ExpandRadixSelectPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<TopKOp> ops;
    module.walk([&](TopKOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    int64_t capacity = candidates;
    if (capacity < -1 ||
        (capacity > 0 && !llvm::isPowerOf2_64(uint64_t(capacity)))) {
      module.emitError() << getArgument()
                         << ": candidates must be -1 (from the target), 0 "
                            "(no buffer) or a power of two, got "
                         << capacity;
      return signalPassFailure();
    }
    std::unique_ptr<TargetInfo> info;
    if (capacity < 0) {
      info = targetInfo(module);
      if (!info)
        return signalPassFailure();
    }
    for (TopKOp op : ops)
      RadixSelectBuilder(op, info ? derivedCapacity(op, *info) : capacity)
          .build();
  }

  /// The target that sizes the buffer: the option, else the module's.
  std::unique_ptr<TargetInfo> targetInfo(ModuleOp module) {
    std::string name = target;
    if (name.empty()) {
      auto recorded = module->getAttrOfType<StringAttr>(kModuleTargetAttrName);
      if (!recorded) {
        module.emitError()
            << getArgument()
            << ": sizing the candidate buffer needs a target (the `target` "
               "option or the module's '"
            << kModuleTargetAttrName << "') or an explicit `candidates`";
        return nullptr;
      }
      name = recorded.getValue().str();
    }
    return claimModuleTarget(module, name, getArgument());
  }
};

} // namespace
