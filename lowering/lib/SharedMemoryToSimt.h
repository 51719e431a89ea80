//===- SharedMemoryToSimt.h - Shared-memory tiles to SIMT IR ----*- C++ -*-===//
//
// The lowering of tile.local_alloc, tile.memdesc_index, tile.local_store,
// tile.local_load, tile.async_copy_global_to_local, tile.async_commit_group
// and tile.async_wait inside `convert-tile-to-simt`.
//
// A `!tile.memdesc` becomes an `index`: the byte offset of its tile in the
// kernel's one LDS buffer (a local_alloc's offset is the LdsAllocation's; a
// stage adds stage * stride). Accesses view the buffer there as a 1-D
// workgroup memref and address it through the composition of the tensor's
// distributed layout with the inverse of the shared layout (register, lane,
// wave) -> element offset, vectorized to the longest run of registers with
// consecutive offsets (up to 16 bytes). Tokens become i32 zeros.
//
// Barriers are inserted here, not written by kernel authors:
//  - local_store (and local_alloc with an initial value): a workgroup
//    barrier before the stores (earlier reads finish) and one after them
//    (the data is visible to every wave);
//  - async_copy_global_to_local: a barrier before the copy (earlier reads
//    of the destination finish before it is overwritten);
//  - async_wait: the target's wait, then a barrier (every lane's copies are
//    visible);
//  - local_load: none.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_SHAREDMEMORYTOSIMT_H
#define TESSEL_LOWERING_SHAREDMEMORYTOSIMT_H

#include "LdsAllocator.h"

#include "mlir/Transforms/DialectConversion.h"

namespace tessel {

struct LoweringState;
class TargetInfo;

/// The LDS that a shared-memory op needs: a local_alloc's buffer (all its
/// stages, each 16-byte aligned), live until the last use of the memdesc or
/// of any view of it; nothing for other ops.
mlir::FailureOr<LdsNeed> sharedMemoryLdsNeed(mlir::Operation *op,
                                             const TargetInfo &target);
/// True for values that keep an LDS buffer alive, for the allocator:
/// memdescs (views of it) and async tokens (copies into it in flight).
bool isSharedMemoryView(mlir::Value v);

/// Chooses the swizzle of every `tile.local_alloc` in `root` whose shared
/// layout leaves it open (perPhase = maxPhase = 0): of the phases
/// perPhase, maxPhase in {1, 2, 4, ...} (maxPhase up to the vectors in a
/// row), the one with the fewest LDS instructions weighted by their bank
/// conflicts over every local_store, local_load and async copy of the
/// buffer (through its stages and loops), the smaller maxPhase then
/// perPhase on ties. Rewrites the memdesc types in place. Fails with an
/// error on the alloc when an access cannot be addressed.
mlir::LogicalResult chooseSharedSwizzles(mlir::Operation *root,
                                         const TargetInfo &target);

/// memdesc -> index, async token -> i32.
void populateSharedMemoryTypeConversions(mlir::TypeConverter &tc);
void populateSharedMemoryToSimtPatterns(const mlir::TypeConverter &tc,
                                        mlir::RewritePatternSet &patterns,
                                        LoweringState &state);

} // namespace tessel

#endif // TESSEL_LOWERING_SHAREDMEMORYTOSIMT_H
