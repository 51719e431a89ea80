//===- LdsAllocator.h - One liveness-based LDS layout per kernel -*- C++
//-*-===//
//
// Every op of a kernel that needs LDS / shared memory (scratch of a
// cross-wave reduction or scan, a layout conversion through memory, a
// `tile.local_alloc` buffer) asks for bytes here. Ops are numbered in
// program order; a scratch request is live during its op only, a buffer
// that an op returns is live until its last use (a use inside a loop that
// does not contain the buffer's op extends it to the end of that loop).
// Buffers whose live ranges do not overlap share space. The kernel then has
// one LDS buffer of `totalBytes()`, which the code object reports as its
// group segment / shared size; a total above the target's limit is an error
// that lists every buffer with its op's location and size.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_LDSALLOCATOR_H
#define TESSEL_LOWERING_LDSALLOCATOR_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace tessel {

class TargetInfo;

/// What one op needs from LDS.
struct LdsNeed {
  int64_t bytes = 0;       // 0: nothing
  unsigned align = 16;     // a power of two
  bool outlivesOp = false; // live until the last use of the op's results
  /// Live until the end of the kernel: memory that must not be reused
  /// (an mbarrier would have to be invalidated first).
  bool untilKernelEnd = false;
  /// Live over this op (a loop around the asking op) instead of over the
  /// asking op alone: memory written once before the loop and read in it.
  mlir::Operation *liveOver = nullptr;
};

/// One placed buffer.
struct LdsBuffer {
  mlir::Operation *op;
  int64_t bytes;
  unsigned align;
  unsigned start, end; // live range in program order, inclusive
  int64_t offset = -1;
};

class LdsAllocation {
public:
  /// Asks `need` for every op nested in `kernel` and lays the buffers out.
  /// Fails with an error on `kernel` (one note per buffer) when the total
  /// exceeds `target.ldsBytesPerWorkgroup()`, or when `need` fails.
  /// `isView` (optional) tells which values alias a buffer they are
  /// computed from (a stage of a multi-buffered tile, a loop-carried
  /// buffer): the buffer stays live until the last use of those too.
  static mlir::FailureOr<LdsAllocation>
  compute(mlir::Operation *kernel, const TargetInfo &target,
          llvm::function_ref<mlir::FailureOr<LdsNeed>(mlir::Operation *)> need,
          llvm::function_ref<bool(mlir::Value)> isView = nullptr);

  /// Bytes of the kernel's LDS buffer: the end of the highest placed buffer.
  int64_t totalBytes() const { return total; }
  /// Byte offset of `op`'s buffer; -1 when `op` asked for none.
  int64_t offsetOf(mlir::Operation *op) const;
  llvm::ArrayRef<LdsBuffer> buffers() const { return bufs; }

private:
  llvm::SmallVector<LdsBuffer> bufs;
  llvm::DenseMap<mlir::Operation *, unsigned> index;
  int64_t total = 0;
};

} // namespace tessel

#endif // TESSEL_LOWERING_LDSALLOCATOR_H
