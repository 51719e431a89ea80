//===- AsyncCopy.h - Global-to-LDS copies per target ------------*- C++ -*-===//
//
// The target halves of tile.async_copy_global_to_local, commit and wait
// (TargetInfo::emitAsyncCopy and friends), kept apart from the per-target
// files: the register path every target has, and NVIDIA's cp.async.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_TARGET_ASYNCCOPY_H
#define TESSEL_LOWERING_TARGET_ASYNCCOPY_H

#include "mlir/IR/Builders.h"

namespace tessel {

/// Loads `elems` elements of `src` at `srcIdx` into registers (zeros where
/// `pred` is false) and stores them to `dst` at `dstIdx`.
void emitCopyThroughRegisters(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value src, mlir::Value srcIdx,
                              mlir::Value dst, mlir::Value dstIdx,
                              int64_t elems, mlir::Value pred);

/// `cp.async` (through nvgpu.device_async_copy) of 4, 8 or 16 bytes, `.cg`
/// (L2 only) for 16; `pred` false copies 0 source bytes, which zero-fills
/// the destination. Other sizes go through registers.
void emitCpAsync(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                 mlir::Value srcIdx, mlir::Value dst, mlir::Value dstIdx,
                 int64_t elems, mlir::Value pred);
/// `cp.async.commit_group`.
void emitCpAsyncCommitGroup(mlir::OpBuilder &b, mlir::Location loc);
/// `cp.async.wait_group pending`.
void emitCpAsyncWaitGroup(mlir::OpBuilder &b, mlir::Location loc,
                          unsigned pending);

/// `mbarrier.init.shared.b64 [addr], arrivals` (addr: i32 shared address).
void emitMbarrierInit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value addr,
                      unsigned arrivals);
/// `cp.async.mbarrier.arrive.noinc.shared.b64 [addr]`: the lane's arrival,
/// once its earlier cp.async copies have landed.
void emitCpAsyncMbarrierArrive(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value addr);
/// A `mbarrier.try_wait.parity.shared.b64` loop until the phase of parity
/// `parity` (i32) has completed.
void emitMbarrierWaitParity(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value addr, mlir::Value parity);

} // namespace tessel

#endif // TESSEL_LOWERING_TARGET_ASYNCCOPY_H
