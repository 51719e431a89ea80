//===- SimtLoweringState.h - What tile-to-SIMT patterns share ---*- C++ -*-===//
//
// The per-kernel state of `convert-tile-to-simt` (lane and wave ids, the
// axis analysis, the kernel's one LDS buffer and its layout), shared by the
// pattern files (TileToSimt.cpp, SharedMemoryToSimt.cpp), and the element
// type rules of memory.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_SIMTLOWERINGSTATE_H
#define TESSEL_LOWERING_SIMTLOWERINGSTATE_H

#include "AxisInfo.h"
#include "LdsAllocator.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <memory>
#include <optional>

namespace tessel {

class TargetInfo;

/// Per-kernel state shared by the patterns.
struct KernelState {
  mlir::Value lane, wave; // i32
  unsigned numWaves = 1;
  std::unique_ptr<AxisInfoAnalysis> axis;
  /// The kernel's LDS (an i8 workgroup attribution) and where each op's
  /// part of it lies.
  mlir::Value ldsBuffer;
  std::optional<LdsAllocation> ldsLayout;
};

struct LoweringState {
  const TargetInfo *target;
  llvm::DenseMap<mlir::Operation *, KernelState> kernels; // keyed by gpu.func
  KernelState &of(mlir::Operation *op) {
    return kernels[op->getParentOfType<mlir::gpu::GPUFuncOp>()];
  }
  /// `op`'s part of the kernel's LDS as a memref<numElems x elem>; fails
  /// with an error when the allocator gave `op` no space.
  mlir::FailureOr<mlir::Value> lds(mlir::OpBuilder &b, mlir::Operation *op,
                                   mlir::Type elem, int64_t numElems);
  /// memref<numElems x elem> at the (index) byte offset `at` of the
  /// kernel's LDS, which must exist.
  mlir::Value ldsView(mlir::OpBuilder &b, mlir::Operation *op, mlir::Value at,
                      mlir::Type elem, int64_t numElems);
};

/// The element type used in global memory: fp8 is stored as i8.
mlir::Type storageType(mlir::Type t);
/// The element type LDS buffers use (i1 and fp8 as i8).
mlir::Type ldsType(mlir::Type t);
/// Alignment in bytes known for the base of the global memref `ptr` (from
/// `tile.divisibility` on the kernel argument), else 1.
unsigned pointerAlignment(mlir::Value ptr);

} // namespace tessel

#endif // TESSEL_LOWERING_SIMTLOWERINGSTATE_H
