//===- GridBarrierToSimt.h - tile.grid_barrier to SIMT IR -------*- C++ -*-===//
//
// The lowering of tile.grid_barrier inside `convert-tile-to-simt`: a
// counting barrier over every program of the grid on the two i32 words at
// `ptr[offset]` (arrival count, generation), entered and left through
// workgroup barriers, with one lane of the workgroup (lane 0 of wave 0)
// doing the device-scope atomics. Both words start at 0; the count is left
// at 0 and the generation only advances, so the workspace needs no reset
// between launches.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_GRIDBARRIERTOSIMT_H
#define TESSEL_LOWERING_GRIDBARRIERTOSIMT_H

#include "mlir/Transforms/DialectConversion.h"

namespace tessel {

struct LoweringState;

/// The gpu.func attribute (unit) that marks a kernel with a grid barrier:
/// every workgroup of its grid must be resident at once. The emulator
/// refuses launches it cannot hold; runtimes size such grids by occupancy.
inline constexpr llvm::StringLiteral kGridBarrierAttrName =
    "tessel.grid_barrier";

void populateGridBarrierToSimtPatterns(const mlir::TypeConverter &tc,
                                       mlir::RewritePatternSet &patterns,
                                       LoweringState &state);

} // namespace tessel

#endif // TESSEL_LOWERING_GRIDBARRIERTOSIMT_H
