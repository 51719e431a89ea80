//===- HopperMmaSync.h - tile.dot through mma.sync on Hopper ----*- C++ -*-===//
//
// The warp-level matrix instructions both Hopper targets lower tile.dot to:
// `sm_90` has nothing else, and `sm_90a` falls back to them where wgmma does
// not apply. The accumulator is `#tile.nv_mma` version 2; operands are
// `#tile.dot_operand` of it, fed from registers.
//
//  - bf16 x bf16 -> f32: `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`
//    (nvvm.mma.sync), one per 16x8x16 tile.
//  - e4m3fn x e4m3fn -> f32: Hopper's dense e4m3 mma.sync is emulated (each
//    call converts both operands to f16 and issues two f16 HMMA), so the
//    operands are converted to f16 once per dot and each 16x8x32 tile runs
//    as two `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`. The fp8
//    operands keep the 8-bit m16n8k32 fragment layout (four consecutive K
//    bytes per 32-bit register, so 4-byte loads); the two f16 instructions
//    of a tile read the converted halves of those registers, which
//    multiplies A and B under one K permutation and leaves the sum as it is.
//
// The conversion happens in the dot lowering (emitMatrixOperandConversion)
// rather than as an arith.extf inserted by layout assignment: an f16 tensor
// in the 8-bit fragment layout is a dot_operand no f16 instruction reads
// natively, and the K permutation that makes it one is a fact of these
// instructions, which belongs to the target, not to the layout planner.
// Converting a whole operand vector once per dot still converts each
// loaded element exactly once when, as in the GEMM kernels, every loaded
// operand feeds one dot.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_TARGET_HOPPERMMASYNC_H
#define TESSEL_LOWERING_TARGET_HOPPERMMASYNC_H

#include "tessel/Lowering/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"

#include <array>

namespace tessel::hopper {

/// The mma.sync instructions of tile.dot, in order of preference: fp8 (as
/// f16 after conversion, K = 32 per tile) and bf16 (K = 16).
llvm::SmallVector<MatrixInstr> mmaSyncInstrs(mlir::MLIRContext *ctx);

/// `#tile.nv_mma<{version = 2, instrShape = [16, 8, K], wavesPerCTA =
/// [wavesM, wavesN]}>`. mma.sync has no transposed accumulator: a lane
/// already holds two consecutive columns.
mlir::Attribute mmaSyncAccEncoding(mlir::MLIRContext *ctx,
                                   const MatrixInstr &instr, unsigned wavesM,
                                   unsigned wavesN);

/// `#tile.dot_operand` of `acc` with kWidth = the elements of one 32-bit
/// fragment register (K / 8).
mlir::Attribute mmaSyncOperandEncoding(mlir::Attribute acc, unsigned opIdx,
                                       const MatrixInstr &instr);

/// The instruction of a version-2 `#tile.nv_mma` accumulator with
/// `operandType` operands; fails with the reason (naming `target`) in
/// `why`.
llvm::FailureOr<MatrixInstr> mmaSyncInstrOf(llvm::StringRef target,
                                            mlir::Attribute acc,
                                            mlir::Type operandType,
                                            std::string *why);

/// fp8 operand vectors to f16 (cvt.rn.f16x2.e4m3x2 in the back end); other
/// operands unchanged.
mlir::Value convertMmaSyncOperand(mlir::OpBuilder &b, mlir::Location loc,
                                  const MatrixInstr &instr,
                                  mlir::Value operand);

/// The registers f16 instruction `j` (0 or 1) of a converted 16x8x32 fp8
/// tile reads. Register pair p of an operand is its fragment elements 2p and
/// 2p+1 (the low or high half of 8-bit register p / 2, converted): `a` lists
/// the pairs of the instruction's A registers a0..a3, `b` those of b0..b1.
struct F16Registers {
  std::array<unsigned, 4> a;
  std::array<unsigned, 2> b;
};
F16Registers fp8TileAsF16(unsigned j);

/// `acc + a * b` for one tile: `a` and `b` in fragment register order (after
/// convertMmaSyncOperand), `acc` a vector<4xf32>.
mlir::Value emitMmaSync(mlir::OpBuilder &b, mlir::Location loc,
                        const MatrixInstr &instr, mlir::Value a, mlir::Value bv,
                        mlir::Value acc);

} // namespace tessel::hopper

#endif
