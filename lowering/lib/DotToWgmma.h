//===- DotToWgmma.h - tile.dot to shared-memory matrix instructions -*- C++
//-*-===//
#ifndef TESSEL_LOWERING_DOTTOWGMMA_H
#define TESSEL_LOWERING_DOTTOWGMMA_H

#include "LdsAllocator.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace tessel {

/// What the dot lowering needs from the kernel being lowered.
struct DotStagingContext {
  /// The op's LDS (as planned by the LdsAllocator from dotStagingNeed) as
  /// memref<bytes x i8, workgroup>; fails with an error when none was given.
  std::function<mlir::FailureOr<mlir::Value>(mlir::OpBuilder &,
                                             mlir::Operation *, int64_t)>
      lds;
  /// A memref<? x i8, workgroup> at the (index) byte offset `at` of the
  /// kernel's LDS: where a memdesc operand lies.
  std::function<mlir::Value(mlir::OpBuilder &, mlir::Operation *, mlir::Value)>
      view;
  /// The lane and wave ids (i32) of the kernel that holds the op.
  std::function<std::pair<mlir::Value, mlir::Value>(mlir::Operation *)> ids;
};

/// The shared memory a dot whose instruction reads its operands from there
/// (MatrixOperandSource::SharedMemory) stages A and B in: nothing for other
/// dots.
mlir::FailureOr<LdsNeed> dotStagingNeed(tile::DotOp op,
                                        const TargetInfo &target);

/// The `#tile.shared` layout of operand `opIdx` (0: A as [M, K], 1: B as
/// [K, N]) that the target's shared-memory matrix instructions read without
/// staging, for a K extent of `kBytes` (32, 64 or 128) and elements of
/// `elemBytes`: K fastest, element (row, k) at byte
///   row * kBytes + ((k * elemBytes / 16) XOR ((row * kBytes / 128) mod
///   (kBytes / 16))) * 16 + (k * elemBytes) mod 16,
/// the canonical layout of TargetInfo.h with swizzleBytes = kBytes. Fails
/// for other K extents.
mlir::FailureOr<tile::SharedLayoutAttr>
sharedMatrixOperandLayout(mlir::MLIRContext *ctx, unsigned opIdx,
                          int64_t kBytes, unsigned elemBytes);

/// Lowers such dots: every lane stores its elements of A and B into the
/// op's shared memory in the target's canonical K-major swizzled layout,
/// fences them for the matrix unit, and each group of waves issues one
/// instruction per accumulator tile and K step through descriptors, then
/// waits for them.
void populateDotToWgmmaPatterns(const mlir::TypeConverter &tc,
                                mlir::RewritePatternSet &patterns,
                                const TargetInfo &target,
                                DotStagingContext staging);

} // namespace tessel

#endif // TESSEL_LOWERING_DOTTOWGMMA_H
