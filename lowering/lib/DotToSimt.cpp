//===- DotToSimt.cpp - tile.dot to the target's matrix instruction --------===//
//
// The accumulator holds, in each lane's registers, a grid of instruction
// tiles (the register repeats of its layout); A and B hold the matching
// grids of operand tiles along M and K, and K and N. For every accumulator
// tile the instructions run over the K tiles in order, each reading its
// operands straight from registers: no data moves between lanes. Which slot
// holds which instruction register is asked of DistributedLayout, never
// read off an encoding's parameters. That covers gfx950's f8f6f4 forms too,
// whose lanes hold two runs of 16 K per operand, K/2 apart: with their
// operand encoding (kWidth 16) the instruction's registers are the
// hardware's, and each instruction gathers the slots its (row, k) live in.
//
//===----------------------------------------------------------------------===//

#include "DotToSimt.h"

#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// One operand (or the accumulator) seen as a grid of instruction tiles.
struct TileGrid {
  DistributedLayout layout;
  /// Instruction tile [rows, cols] and the tiles per lane along each dim.
  int64_t tile[2];
  int64_t reps[2];
  /// Register coordinates (row, col) of the instruction's registers 0, 1,
  /// ... inside one tile.
  SmallVector<std::array<int64_t, 2>> instrCoords;

  /// The slots of tile (r0, r1), in the instruction's register order.
  FailureOr<SmallVector<int64_t>> slots(int64_t r0, int64_t r1) const {
    SmallVector<int64_t> out;
    for (const auto &c : instrCoords) {
      SmallVector<int64_t> coords = {r0 * tile[0] + c[0], r1 * tile[1] + c[1]};
      int64_t s = layout.ownerOf(coords).slot;
      SmallVector<int64_t> idx = layout.slotIndices(s);
      if (layout.regCoord(0, idx[0]) != coords[0] ||
          layout.regCoord(1, idx[1]) != coords[1])
        return failure();
      out.push_back(s);
    }
    return out;
  }
};

/// Builds the grid of `type` for instruction tiles of [rows, cols]: the
/// instruction's own registers are those of the same encoding on one tile.
FailureOr<TileGrid> gridOf(RankedTensorType type, int64_t rows, int64_t cols,
                           std::string &why) {
  auto full = DistributedLayout::get(type, &why);
  if (failed(full))
    return failure();
  if (type.getRank() != 2 || type.getDimSize(0) % rows ||
      type.getDimSize(1) % cols) {
    why = "tile is not a multiple of the instruction's " +
          std::to_string(rows) + "x" + std::to_string(cols);
    return failure();
  }
  auto one = DistributedLayout::get(RankedTensorType::get({rows, cols},
                                                          type.getElementType(),
                                                          type.getEncoding()),
                                    &why);
  if (failed(one))
    return failure();
  TileGrid g{*full, {rows, cols}, {1, 1}, {}};
  for (unsigned d = 0; d < 2; ++d)
    g.reps[d] = full->getElemsAlong(d) / one->getElemsAlong(d);
  for (int64_t j = 0; j < one->getNumElems(); ++j) {
    SmallVector<int64_t> idx = one->slotIndices(j);
    g.instrCoords.push_back(
        {one->regCoord(0, idx[0]), one->regCoord(1, idx[1])});
  }
  return g;
}

/// How many instructions one lane's run of consecutive K feeds: the run
/// along K of the operands' registers over the run of the instruction's own
/// operand layout (matrixOperandEncoding without the dot's K). A and B must
/// agree.
FailureOr<int64_t> runsPerLane(RankedTensorType aType, RankedTensorType bType,
                               Attribute acc, const MatrixInstr &instr,
                               const TargetInfo &target, std::string &why) {
  auto runOf = [&](RankedTensorType t, Attribute enc,
                   unsigned kDim) -> FailureOr<int64_t> {
    auto l = DistributedLayout::get(
        RankedTensorType::get(t.getShape(), t.getElementType(), enc), &why);
    if (failed(l))
      return failure();
    return l->getLinearLayout().getNumConsecutiveInOut(kRegisterDim,
                                                       tensorDimName(kDim));
  };
  int64_t runs[2];
  RankedTensorType types[2] = {aType, bType};
  for (unsigned i = 0; i < 2; ++i) {
    FailureOr<int64_t> held = runOf(types[i], types[i].getEncoding(), 1 - i);
    FailureOr<int64_t> own =
        runOf(types[i], target.matrixOperandEncoding(acc, i, instr), 1 - i);
    if (failed(held) || failed(own))
      return failure();
    runs[i] = std::max<int64_t>(1, *held / *own);
  }
  if (runs[0] != runs[1]) {
    why = "A and B hold runs of consecutive K that feed " +
          std::to_string(runs[0]) + " and " + std::to_string(runs[1]) +
          " instructions; they must feed the same";
    return failure();
  }
  return runs[0];
}

Value gather(OpBuilder &b, Location loc, Value vec, ArrayRef<int64_t> slots) {
  bool contiguous = true;
  for (unsigned i = 1; i < slots.size(); ++i)
    contiguous &= slots[i] == slots[0] + int64_t(i);
  if (contiguous)
    return vector::ExtractStridedSliceOp::create(
        b, loc, vec, ArrayRef<int64_t>{slots[0]},
        ArrayRef<int64_t>{int64_t(slots.size())}, ArrayRef<int64_t>{1});
  SmallVector<Value> elems;
  for (int64_t s : slots)
    elems.push_back(vector::ExtractOp::create(b, loc, vec, s));
  auto vt = VectorType::get({int64_t(slots.size())},
                            cast<VectorType>(vec.getType()).getElementType());
  return vector::FromElementsOp::create(b, loc, vt, elems);
}

struct DotPattern : public OpConversionPattern<DotOp> {
  DotPattern(const TypeConverter &tc, MLIRContext *ctx,
             const TargetInfo &target)
      : OpConversionPattern<DotOp>(tc, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType cType = op.getType();
    Attribute acc = cType.getEncoding();
    std::string why;
    FailureOr<MatrixInstr> instr =
        target.matrixInstrOf(acc, DotOp::operandElementType(op.getA()), &why);
    if (failed(instr))
      return op.emitError("cannot lower tile.dot: ") << why;
    if (instr->operandSource != MatrixOperandSource::Registers)
      return rewriter.notifyMatchFailure(op, "operands come from shared "
                                             "memory (DotToWgmma)");
    int64_t dotK = DotOp::operandShape(op.getA())[1];
    for (unsigned i = 0; i < 2; ++i) {
      Value v = i ? op.getB() : op.getA();
      Attribute want = target.matrixOperandEncoding(acc, i, *instr, dotK);
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return op.emitError()
               << "tile.dot operand " << (i ? "B" : "A")
               << " is in shared memory, but " << instr->mnemonic << " on "
               << target.name()
               << " reads its operands from registers; load it with "
                  "tile.local_load into layout "
               << want;
      if (t.getEncoding() != want)
        return op.emitError()
               << "tile.dot operand " << (i ? "B" : "A") << " must have layout "
               << want << " to feed " << instr->mnemonic
               << " from registers, got " << t.getEncoding();
    }
    int64_t m = instr->m, n = instr->n, k = instr->k;
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    // A lane's run of consecutive K may feed `runs` instructions in turn
    // (matrixOperandEncoding): the operands then tile in groups of `runs`
    // instruction tiles along K, and instruction j of a group reads the
    // j-th part of every lane's run, in A and B alike.
    FailureOr<int64_t> runs =
        runsPerLane(aType, bType, acc, *instr, target, why);
    if (failed(runs))
      return op.emitError("cannot lower tile.dot: ") << why;
    int64_t kGroup = k * *runs;
    FailureOr<TileGrid> c = gridOf(cType, m, n, why);
    FailureOr<TileGrid> a =
        succeeded(c) ? gridOf(aType, m, kGroup, why) : FailureOr<TileGrid>();
    FailureOr<TileGrid> b =
        succeeded(a) ? gridOf(bType, kGroup, n, why) : FailureOr<TileGrid>();
    if (failed(c) || failed(a) || failed(b))
      return op.emitError("cannot lower tile.dot: ") << why;
    if (a->reps[0] != c->reps[0] || b->reps[1] != c->reps[1] ||
        a->reps[1] != b->reps[0])
      return op.emitError("tile.dot operands and result hold different "
                          "numbers of instruction tiles per lane");
    int64_t kSteps = a->reps[1] * *runs;

    Location loc = op.getLoc();
    // Converted once here, not per instruction: every operand register
    // feeds all the instructions along the other dimension.
    Value aRegs = target.emitMatrixOperandConversion(rewriter, loc, *instr,
                                                     adaptor.getA());
    Value bRegs = target.emitMatrixOperandConversion(rewriter, loc, *instr,
                                                     adaptor.getB());
    SmallVector<Value> out(c->layout.getNumElems());
    for (int64_t mi = 0; mi < c->reps[0]; ++mi)
      for (int64_t ni = 0; ni < c->reps[1]; ++ni) {
        auto cs = c->slots(mi, ni);
        if (failed(cs))
          return op.emitError("accumulator tile not held in registers");
        Value d = gather(rewriter, loc, adaptor.getC(), *cs);
        for (int64_t ki = 0; ki < kSteps; ++ki) {
          auto as = a->slots(mi, ki / *runs), bs = b->slots(ki / *runs, ni);
          if (failed(as) || failed(bs))
            return op.emitError("operand tile not held in registers");
          // Part ki % runs of each lane's run, in A and in B.
          auto part = [&](ArrayRef<int64_t> slots) {
            int64_t n = int64_t(slots.size()) / *runs;
            return slots.slice(ki % *runs * n, n);
          };
          Value av = gather(rewriter, loc, aRegs, part(*as));
          Value bv = gather(rewriter, loc, bRegs, part(*bs));
          d = target.emitMatrixInstr(rewriter, loc, *instr, acc, av, bv, d);
        }
        for (auto [j, s] : llvm::enumerate(*cs))
          out[s] = vector::ExtractOp::create(rewriter, loc, d, int64_t(j));
      }
    Type vt = getTypeConverter()->convertType(cType);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vt, out);
    return success();
  }

  const TargetInfo &target;
};

} // namespace

void tessel::populateDotToSimtPatterns(const TypeConverter &tc,
                                       RewritePatternSet &patterns,
                                       const TargetInfo &target) {
  patterns.add<DotPattern>(tc, patterns.getContext(), target);
}
