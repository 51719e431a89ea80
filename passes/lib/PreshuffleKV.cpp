//===- PreshuffleKV.cpp - Address K tiles of a preshuffled KV cache -------===//
//
// A tile.load of a preshuffled block with a `block_base` takes plain
// in-block offsets o*128 + d; this pass replaces them by the byte offsets of
// the preshuffled layout (Passes.td, TilePreshuffleKV).
//
//===----------------------------------------------------------------------===//

#include "tessel/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TILEPRESHUFFLEKV
#include "tessel/Passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::tile;

namespace {

/// The bit fields of a plain in-block offset o*128 + d that the
/// preshuffled layout [o/16][d/16][o%16][d%16] moves.
constexpr int64_t kMovedBits = 0x7f0;   // d/16 (bits 4-6), o%16 (bits 7-10)
constexpr int64_t kDGroupBits = 0x70;   // d/16
constexpr int64_t kDGroupShift = 4;     // d/16 from bit 4 to bit 8
constexpr int64_t kRowShift = 7;        // o starts at bit 7
constexpr int64_t kRowInGroupMask = 15; // o%16
constexpr int64_t kRowInGroupShift = 4; // o%16 to bit 4

/// P(i) = (i & ~0x7f0) + ((i & 0x70) << 4) + (((i >> 7) & 15) << 4), in the
/// type of `inBlock`.
Value preshuffledOffsets(PatternRewriter &rewriter, Location loc,
                         Value inBlock) {
  auto type = cast<RankedTensorType>(inBlock.getType());
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        rewriter, loc, type,
        DenseElementsAttr::get(type,
                               APInt(type.getElementTypeBitWidth(), v, true)));
  };
  Value kept =
      arith::AndIOp::create(rewriter, loc, inBlock, splat(~kMovedBits));
  Value dGroup = arith::ShLIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, inBlock, splat(kDGroupBits)),
      splat(kDGroupShift));
  Value row = arith::ShRUIOp::create(rewriter, loc, inBlock, splat(kRowShift));
  Value rowInGroup = arith::ShLIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, row, splat(kRowInGroupMask)),
      splat(kRowInGroupShift));
  Value p = arith::AddIOp::create(rewriter, loc, kept, dGroup);
  return arith::AddIOp::create(rewriter, loc, p, rowInGroup);
}

struct AddressPreshuffledLoad : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    Value base = op.getBlockBase();
    if (!base || op.getDataLayout() != tile::DataLayout::preshuffled)
      return rewriter.notifyMatchFailure(op, "not a preshuffled block load");
    Location loc = op.getLoc();
    Value offsets = preshuffledOffsets(rewriter, loc, op.getOffsets());
    Value addr = arith::AddIOp::create(rewriter, loc, base, offsets);
    rewriter.modifyOpInPlace(op, [&] {
      op.getOffsetsMutable().set(addr);
      op.getBlockBaseMutable().clear();
    });
    return success();
  }
};

struct PreshuffleKVPass
    : public tessel::impl::TilePreshuffleKVBase<PreshuffleKVPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddressPreshuffledLoad>(&getContext());
    // Only the matched loads change: no folding of the rest of the module.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
