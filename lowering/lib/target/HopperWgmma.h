//===- HopperWgmma.h - wgmma on sm_90a ---------------------------*- C++
//-*-===//
//
// The warpgroup matrix instructions of sm_90a (`wgmma.mma_async`): their
// table, accumulator encoding (`#tile.nv_mma` version 3) and emission. The
// Hopper TargetInfo forwards its shared-memory matrix hooks here.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_TARGET_HOPPERWGMMA_H
#define TESSEL_LOWERING_TARGET_HOPPERWGMMA_H

#include "tessel/Lowering/TargetInfo.h"

namespace tessel::hopper {

/// wgmma.mma_async m64nNk32 f32 += e4m3 * e4m3, widest N first. N is a
/// power of two (8 to 256): the accumulator is then a linear layout.
llvm::SmallVector<MatrixInstr> wgmmaInstrs(mlir::MLIRContext *ctx);

/// `#tile.nv_mma<{version = 3, instrShape = [64, N, 32], wavesPerCTA =
/// [4 * groupsM, groupsN]}>`.
mlir::Attribute wgmmaAccEncoding(mlir::MLIRContext *ctx,
                                 const MatrixInstr &instr, unsigned groupsM,
                                 unsigned groupsN);

/// True for the accumulator encodings wgmma writes.
bool isWgmmaAcc(mlir::Attribute acc);

/// The instruction of accumulator `acc` (nv_mma version 3); fails with the
/// reason in `why`.
llvm::FailureOr<MatrixInstr>
wgmmaInstrOf(mlir::Attribute acc, mlir::Type operandType, std::string *why);

mlir::Value emitWgmmaDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value addr, unsigned swizzleBytes,
                                int64_t groupBytes);
void emitAsyncProxyFence(mlir::OpBuilder &b, mlir::Location loc);
void emitWgmmaFence(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value
emitWgmmas(mlir::OpBuilder &b, mlir::Location loc, const MatrixInstr &instr,
           llvm::ArrayRef<std::pair<mlir::Value, mlir::Value>> steps,
           mlir::Value acc);
/// `wgmma.commit_group.sync.aligned`.
void emitWgmmaCommit(mlir::OpBuilder &b, mlir::Location loc);
/// `wgmma.wait_group.sync.aligned pending`.
void emitWgmmaWait(mlir::OpBuilder &b, mlir::Location loc, unsigned pending);
/// `values` (vectors of f32) passed through an empty inline-asm statement
/// with side effects that ties each register to its result: reads of the
/// results cannot move above the wait before it (LLVM does not know that
/// the wait writes the accumulators).
llvm::SmallVector<mlir::Value> emitRegisterTie(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::ValueRange values);

} // namespace tessel::hopper

#endif // TESSEL_LOWERING_TARGET_HOPPERWGMMA_H
