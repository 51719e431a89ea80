//===- DotToWgmma.cpp - tile.dot to shared-memory matrix instructions -----===//
//
// For instructions that read A and B from shared memory (wgmma on sm_90a)
// the operands arrive as register tiles in whatever layout produced them.
// The dot lowering stages them in the op's part of the kernel's LDS
// (planned by the one LdsAllocator), in the canonical K-major swizzled
// layout of TargetInfo.h: A as [M, K], B as [N, K], each in column blocks
// of `swizzle` bytes of K. A lane stores the run of consecutive K elements
// its registers hold (up to 16 bytes, which the swizzle moves as a whole),
// then fences its stores for the matrix unit; after a workgroup barrier
// every group of waves (a warpgroup) issues, for each of its accumulator
// tiles and K steps, one instruction whose descriptors point at its rows of
// A and B, and waits for all of them before the accumulator is read.
//
// A barrier before the stores keeps the previous use of the buffer (the
// last K step's instructions, or another op sharing the space) from seeing
// them.
//
// An operand that is already in shared memory (a single-stage
// `!tile.memdesc`) is not staged: its `#tile.shared` layout must be the
// canonical one for its K extent (sharedMatrixOperandLayout; the two
// LinearLayouts are compared), and the descriptors point into its buffer.
// Its writers finished before the dot (tile.async_wait or tile.local_store,
// whose lowerings end with a barrier), so the dot fences them for the
// matrix unit (generic-proxy writes, cp.async included) and synchronizes
// once more before the instructions read them.
//
// An `async` dot commits its instructions as one group and does not wait
// for them: tile.dot_wait (wgmma.wait_group N) does, so the instructions
// of one K step stay in flight while the next step is issued.
//
//===----------------------------------------------------------------------===//

#include "DotToWgmma.h"

#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/LinearLayoutConversions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

Value i32c(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// One operand in the staging buffer: `rows` rows (M for A, N for B) of
/// `kBytes` bytes, K-major, in column blocks of `swizzle` bytes of all rows.
/// Within a block, 16-byte chunk c of row r lies at chunk
/// c XOR ((r * swizzle / 128) mod (swizzle / 16)): the chunk bits of the
/// address XOR its bits 7 and up, as the matrix unit reads them when the
/// block is aligned to 8 * swizzle bytes.
struct StagedOperand {
  int64_t rows = 0, kBytes = 0;
  unsigned swizzle = 0;
  int64_t base = 0; // byte offset in the op's buffer
  /// False when the operand is a memdesc already in this layout.
  bool staged = true;

  int64_t bytes() const { return staged ? rows * kBytes : 0; }
  int64_t blockBytes() const { return rows * swizzle; }
  /// Bytes between 8-row groups.
  int64_t groupBytes() const { return 8 * int64_t(swizzle); }

  /// Byte offset (i32) of byte `kb` of row `r`.
  Value offset(OpBuilder &b, Location loc, Value r, Value kb) const {
    unsigned wLog = llvm::Log2_32(swizzle);
    Value block = arith::ShRUIOp::create(b, loc, kb, i32c(b, loc, wLog));
    Value off =
        arith::MulIOp::create(b, loc, block, i32c(b, loc, blockBytes()));
    off = arith::AddIOp::create(
        b, loc, off, arith::ShLIOp::create(b, loc, r, i32c(b, loc, wLog)));
    Value chunk = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, kb, i32c(b, loc, 4)),
        i32c(b, loc, swizzle / 16 - 1));
    Value phase = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, r,
                               i32c(b, loc, llvm::Log2_32(128 / swizzle))),
        i32c(b, loc, swizzle / 16 - 1));
    chunk = arith::XOrIOp::create(b, loc, chunk, phase);
    off = arith::AddIOp::create(
        b, loc, off, arith::ShLIOp::create(b, loc, chunk, i32c(b, loc, 4)));
    off = arith::AddIOp::create(
        b, loc, off, arith::AndIOp::create(b, loc, kb, i32c(b, loc, 15)));
    return arith::AddIOp::create(b, loc, off, i32c(b, loc, base));
  }

  /// Byte offset (i32) of the unswizzled start of row `r` at byte `kb`: the
  /// address a descriptor starts from (the unit applies the swizzle).
  Value descStart(OpBuilder &b, Location loc, Value r, int64_t kb) const {
    Value off =
        arith::ShLIOp::create(b, loc, r, i32c(b, loc, llvm::Log2_32(swizzle)));
    return arith::AddIOp::create(
        b, loc, off,
        i32c(b, loc, base + (kb / swizzle) * blockBytes() + kb % swizzle));
  }
};

/// Everything the lowering of one dot decides before emitting IR; the LDS
/// request and the pattern both build it, so they agree.
struct StagingPlan {
  MatrixInstr instr;
  StagedOperand a, b;
  int64_t bytes() const { return a.bytes() + b.bytes(); }
  unsigned align() const { return std::max(a.groupBytes(), b.groupBytes()); }
};

/// The swizzle width for a K extent of `kBytes`: the widest of 32, 64 and
/// 128 bytes that divides it.
FailureOr<unsigned> swizzleFor(int64_t kBytes) {
  for (unsigned w : {128u, 64u, 32u})
    if (kBytes % w == 0 && (w == 128 || kBytes == w))
      return w;
  return failure();
}

/// Checks that the memdesc operand `v` (A when opIdx is 0) is in the
/// canonical layout for its K extent of `kBytes`.
LogicalResult checkSharedOperand(DotOp op, unsigned opIdx, MemDescType mem,
                                 int64_t kBytes, const MatrixInstr &instr) {
  const char *name = opIdx ? "B" : "A";
  unsigned elemBytes = mem.getElementType().getIntOrFloatBitWidth() / 8;
  FailureOr<SharedLayoutAttr> want =
      sharedMatrixOperandLayout(op.getContext(), opIdx, kBytes, elemBytes);
  if (failed(want))
    return op.emitError() << "tile.dot operand " << name
                          << " in shared memory has K of " << kBytes
                          << " bytes; " << instr.mnemonic
                          << " reads a buffer whose K is 32, 64 or 128 bytes "
                             "(one swizzle span)";
  std::string why;
  FailureOr<LinearLayout> have =
      toLinearLayout(mem.getTileShape(), mem.getSharedLayout(), &why);
  FailureOr<LinearLayout> canon =
      toLinearLayout(mem.getTileShape(), *want, &why);
  if (failed(have) || failed(canon) || !(*have == *canon))
    return op.emitError() << "tile.dot operand " << name << " " << mem
                          << " is not in the K-major layout " << instr.mnemonic
                          << " reads; use " << *want;
  return success();
}

/// Null when the dot's instruction reads registers (DotToSimt lowers it);
/// failure, with an error on `op`, when the dot cannot be staged.
FailureOr<std::optional<StagingPlan>> planStaging(DotOp op,
                                                  const TargetInfo &target) {
  Type elem = DotOp::operandElementType(op.getA());
  RankedTensorType cType = op.getType();
  std::string why;
  FailureOr<MatrixInstr> instr =
      target.matrixInstrOf(cType.getEncoding(), elem, &why);
  if (failed(instr) ||
      instr->operandSource != MatrixOperandSource::SharedMemory)
    return std::optional<StagingPlan>();
  unsigned bits = elem.getIntOrFloatBitWidth();
  ArrayRef<int64_t> aShape = DotOp::operandShape(op.getA()),
                    bShape = DotOp::operandShape(op.getB());
  int64_t m = aShape[0], k = aShape[1], n = bShape[1];
  if (m % instr->m || n % instr->n || k % instr->k)
    return op.emitError() << "tile.dot " << m << "x" << n << "x" << k
                          << " (MxNxK) is not a multiple of " << instr->mnemonic
                          << "'s " << instr->m << "x" << instr->n << "x"
                          << instr->k;
  int64_t kBytes = k * bits / 8;
  FailureOr<unsigned> w = swizzleFor(kBytes);
  if (failed(w))
    return op.emitError() << "tile.dot K of " << kBytes
                          << " bytes has no shared-memory layout for "
                          << instr->mnemonic
                          << ": it must be 32, 64 or a multiple of 128";
  StagingPlan p{*instr, {m, kBytes, *w, 0}, {n, kBytes, *w, 0}};
  for (unsigned i = 0; i < 2; ++i)
    if (auto mem =
            dyn_cast<MemDescType>((i ? op.getB() : op.getA()).getType())) {
      if (failed(checkSharedOperand(op, i, mem, kBytes, *instr)))
        return failure();
      (i ? p.b : p.a).staged = false;
    }
  p.b.base = p.a.bytes();
  return std::optional<StagingPlan>(p);
}

/// Coordinates (i32, one per dim) of the part of the position of slot 0
/// that comes from the lane and the wave ids.
SmallVector<Value> idBase(OpBuilder &b, Location loc,
                          const DistributedLayout &l, Value lane, Value wave) {
  SmallVector<Value> out;
  for (unsigned d = 0; d < l.getRank(); ++d) {
    Value sum = i32c(b, loc, 0);
    auto add = [&](Value id, ArrayRef<DistributedLayout::BitField> fields) {
      for (const DistributedLayout::BitField &f : fields) {
        Value v = arith::ShRUIOp::create(b, loc, id, i32c(b, loc, f.inBit));
        v = arith::AndIOp::create(b, loc, v,
                                  i32c(b, loc, (int64_t(1) << f.width) - 1));
        v = arith::ShLIOp::create(b, loc, v, i32c(b, loc, f.outBit));
        sum = arith::OrIOp::create(b, loc, sum, v);
      }
    };
    if (lane)
      add(lane, l.laneFields(d));
    add(wave, l.waveFields(d));
    out.push_back(sum);
  }
  return out;
}

struct WgmmaDotPattern : public OpConversionPattern<DotOp> {
  WgmmaDotPattern(const TypeConverter &tc, MLIRContext *ctx,
                  const TargetInfo &target, DotStagingContext staging)
      : OpConversionPattern<DotOp>(tc, ctx, /*benefit=*/2), target(target),
        staging(std::move(staging)) {}

  /// Stores the register tile `v` (layout of `type`) as operand `dst`:
  /// `rowDim` is the dimension of its rows, the other one is K.
  LogicalResult stage(OpBuilder &b, Location loc, Operation *op,
                      RankedTensorType type, Value v, unsigned rowDim,
                      const StagedOperand &dst, Value buffer, Value lane,
                      Value wave) const {
    std::string why;
    auto l = DistributedLayout::get(type, &why);
    if (failed(l))
      return op->emitError("cannot distribute a tile.dot operand: ") << why;
    unsigned kDim = 1 - rowDim;
    unsigned elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t vec = 1;
    if (l->getFastestDim() == int(kDim))
      vec = std::min<int64_t>(l->getContiguousElems(), 16 / elemBytes);
    SmallVector<Value> base = idBase(b, loc, *l, lane, wave);
    Type i8 = b.getI8Type();
    for (int64_t s = 0; s < l->getNumElems(); s += vec) {
      SmallVector<int64_t> idx = l->slotIndices(s);
      Value r = arith::AddIOp::create(
          b, loc, base[rowDim], i32c(b, loc, l->regCoord(rowDim, idx[rowDim])));
      Value kc = arith::AddIOp::create(
          b, loc, base[kDim], i32c(b, loc, l->regCoord(kDim, idx[kDim])));
      Value kb = arith::MulIOp::create(b, loc, kc, i32c(b, loc, elemBytes));
      Value at = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                            dst.offset(b, loc, r, kb));
      Value run = vector::ExtractStridedSliceOp::create(
          b, loc, v, ArrayRef<int64_t>{s}, ArrayRef<int64_t>{vec},
          ArrayRef<int64_t>{1});
      run = vector::BitCastOp::create(
          b, loc, VectorType::get({vec * elemBytes}, i8), run);
      // The run is aligned to its size: its K bits are all register bits.
      vector::StoreOp::create(b, loc, run, buffer, ValueRange{at},
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(vec * elemBytes));
    }
    return success();
  }

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<std::optional<StagingPlan>> plan = planStaging(op, target);
    if (failed(plan))
      return failure();
    if (!*plan)
      return rewriter.notifyMatchFailure(op, "operands come from registers");
    const StagingPlan &p = **plan;
    const MatrixInstr &instr = p.instr;
    Location loc = op.getLoc();
    RankedTensorType cType = op.getType();
    std::string why;
    auto cl = DistributedLayout::get(cType, &why);
    auto one = DistributedLayout::get(
        RankedTensorType::get({instr.m, instr.n}, cType.getElementType(),
                              cType.getEncoding()),
        &why);
    if (failed(cl) || failed(one))
      return op.emitError("cannot distribute the tile.dot accumulator: ")
             << why;
    int64_t reps[2];
    for (unsigned d = 0; d < 2; ++d)
      reps[d] = cl->getElemsAlong(d) / one->getElemsAlong(d);

    // The instruction's accumulator registers, for the tile at (0, 0) of
    // the first group of waves: register j holds row 8 * bit 1 of j and
    // column 8 * (j / 4) + bit 0 of j (PTX ISA, wgmma D fragment); the
    // layout must hold them in lane 0 of wave 0.
    auto slotsOf = [&](int64_t mi,
                       int64_t ni) -> FailureOr<SmallVector<int64_t>> {
      SmallVector<int64_t> out;
      for (int64_t j = 0; j < instr.accPerLane; ++j) {
        SmallVector<int64_t> coords = {mi * instr.m + ((j >> 1) & 1) * 8,
                                       ni * instr.n + (j >> 2) * 8 + (j & 1)};
        DistributedLayout::Owner o = cl->ownerOf(coords);
        if (o.lane != 0 || o.wave != 0)
          return failure();
        out.push_back(o.slot);
      }
      return out;
    };

    auto [lane, wave] = staging.ids(op);
    // The shared-memory address (i32) of a buffer, for the descriptors.
    auto addressOf = [&](Value buffer) -> Value {
      return arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI32Type(),
          memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc,
                                                         buffer));
    };
    // Per operand: the address its descriptors count from.
    Value addrA, addrB;
    if (p.bytes()) {
      FailureOr<Value> buffer = staging.lds(rewriter, op, p.bytes());
      if (failed(buffer))
        return failure();
      addrA = addrB = addressOf(*buffer);
      gpu::BarrierOp::create(rewriter, loc);
      for (unsigned i = 0; i < 2; ++i) {
        Value v = i ? op.getB() : op.getA();
        if (isa<MemDescType>(v.getType()))
          continue;
        if (failed(stage(rewriter, loc, op, cast<RankedTensorType>(v.getType()),
                         i ? adaptor.getB() : adaptor.getA(), i, i ? p.b : p.a,
                         *buffer, lane, wave)))
          return failure();
      }
    }
    // A memdesc operand's value is its byte offset in the kernel's LDS.
    if (!p.a.staged)
      addrA = addressOf(staging.view(rewriter, op, adaptor.getA()));
    if (!p.b.staged)
      addrB = addressOf(staging.view(rewriter, op, adaptor.getB()));
    // Staged stores, and the earlier writes of memdesc operands (cp.async
    // or st.shared, complete and synchronized), are generic-proxy writes.
    target.emitSharedMatrixOperandsWritten(rewriter, loc);
    gpu::BarrierOp::create(rewriter, loc);

    // Rows of A and B where this group of waves' block of C starts.
    Value groupWave = arith::AndIOp::create(
        rewriter, loc, wave,
        i32c(rewriter, loc, ~int64_t(instr.wavesPerInstr - 1)));
    SmallVector<Value> origin = idBase(rewriter, loc, *cl, Value(), groupWave);

    int64_t kSteps = DotOp::operandShape(op.getA())[1] / instr.k;
    int64_t stepBytes = p.a.kBytes / kSteps;
    target.emitSharedMatrixBegin(rewriter, loc);
    SmallVector<Value> out(cl->getNumElems());
    SmallVector<std::pair<SmallVector<int64_t>, Value>> tiles;
    for (int64_t mi = 0; mi < reps[0]; ++mi)
      for (int64_t ni = 0; ni < reps[1]; ++ni) {
        auto slots = slotsOf(mi, ni);
        if (failed(slots))
          return op.emitError("the accumulator layout ")
                 << cType.getEncoding() << " does not hold " << instr.mnemonic
                 << "'s registers";
        SmallVector<Value> elems;
        for (int64_t s : *slots)
          elems.push_back(
              vector::ExtractOp::create(rewriter, loc, adaptor.getC(), s));
        Value d = vector::FromElementsOp::create(
            rewriter, loc,
            VectorType::get({int64_t(slots->size())}, cType.getElementType()),
            elems);
        Value rowA = arith::AddIOp::create(rewriter, loc, origin[0],
                                           i32c(rewriter, loc, mi * instr.m));
        Value rowB = arith::AddIOp::create(rewriter, loc, origin[1],
                                           i32c(rewriter, loc, ni * instr.n));
        SmallVector<std::pair<Value, Value>> steps;
        for (int64_t ks = 0; ks < kSteps; ++ks) {
          auto desc = [&](const StagedOperand &o, Value addr, Value row) {
            Value at = arith::AddIOp::create(
                rewriter, loc, addr,
                o.descStart(rewriter, loc, row, ks * stepBytes));
            return target.emitSharedMatrixDescriptor(rewriter, loc, at,
                                                     o.swizzle, o.groupBytes());
          };
          steps.push_back({desc(p.a, addrA, rowA), desc(p.b, addrB, rowB)});
        }
        d = target.emitSharedMatrixInstrs(rewriter, loc, instr, steps, d);
        tiles.push_back({*slots, d});
      }
    target.emitSharedMatrixEnd(rewriter, loc, op.getAsync());
    for (auto &[slots, d] : tiles)
      for (auto [j, s] : llvm::enumerate(slots))
        out[s] = vector::ExtractOp::create(rewriter, loc, d, int64_t(j));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, getTypeConverter()->convertType(cType), out);
    return success();
  }

  const TargetInfo &target;
  DotStagingContext staging;
};

/// tile.dot_wait on every target: the target's wait, or its operands
/// where matrix instructions complete in order.
struct DotWaitPattern : public OpConversionPattern<DotWaitOp> {
  DotWaitPattern(const TypeConverter &tc, MLIRContext *ctx,
                 const TargetInfo &target)
      : OpConversionPattern<DotWaitOp>(tc, ctx), target(target) {}
  LogicalResult
  matchAndRewrite(DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value v : adaptor.getValues())
      if (!isa<VectorType>(v.getType()) ||
          !cast<VectorType>(v.getType()).getElementType().isF32())
        return op.emitOpError("waits for f32 accumulators, got ")
               << v.getType();
    rewriter.replaceOp(op, target.emitMatrixWait(rewriter, op.getLoc(),
                                                 op.getPending(),
                                                 adaptor.getValues()));
    return success();
  }
  const TargetInfo &target;
};

} // namespace

FailureOr<LdsNeed> tessel::dotStagingNeed(DotOp op, const TargetInfo &target) {
  FailureOr<std::optional<StagingPlan>> plan = planStaging(op, target);
  if (failed(plan))
    return failure();
  LdsNeed n;
  if (*plan) {
    n.bytes = (*plan)->bytes();
    n.align = (*plan)->align();
  }
  return n;
}

FailureOr<SharedLayoutAttr>
tessel::sharedMatrixOperandLayout(MLIRContext *ctx, unsigned opIdx,
                                  int64_t kBytes, unsigned elemBytes) {
  if ((kBytes != 32 && kBytes != 64 && kBytes != 128) || elemBytes == 0 ||
      16 % elemBytes)
    return failure();
  // A row of kBytes is one swizzle span: 16-byte chunks, the phase
  // advancing every 128 bytes of rows and wrapping at the chunks per row.
  SmallVector<unsigned> order =
      opIdx == 0 ? SmallVector<unsigned>{1, 0} : SmallVector<unsigned>{0, 1};
  return SharedLayoutAttr::get(ctx, 16 / elemBytes, unsigned(128 / kBytes),
                               unsigned(kBytes / 16), order);
}

void tessel::populateDotToWgmmaPatterns(const TypeConverter &tc,
                                        RewritePatternSet &patterns,
                                        const TargetInfo &target,
                                        DotStagingContext staging) {
  patterns.add<WgmmaDotPattern>(tc, patterns.getContext(), target,
                                std::move(staging));
  patterns.add<DotWaitPattern>(tc, patterns.getContext(), target);
}
