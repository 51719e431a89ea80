//===- HopperMmaSync.h - tile.dot through mma.sync on Hopper ----*- C++ -*-===//
//
// The warp-level matrix instructions both Hopper targets lower tile.dot to:
// `sm_90` has nothing else, and `sm_90a` falls back to them where wgmma does
// not apply. The accumulator is `#tile.nv_mma` version 2; operands are
// `#tile.dot_operand` of it, fed from registers.
//
// Every instruction is a 16-bit `mma.sync.aligned.m16n8k16.row.col.f32`:
//  - bf16 x bf16 -> f32 runs as `...f32.bf16.bf16.f32` (nvvm.mma.sync);
//  - e4m3fn x e4m3fn -> f32: Hopper's dense e4m3 mma.sync is emulated (each
//    call converts both operands to f16 and issues two f16 HMMA), so the
//    operands are converted to f16 once per dot and run as
//    `...f32.f16.f16.f32`.
//
// Tiles of K = 32 keep the operands in the 8-bit m16n8k32 fragment layout:
// four consecutive K elements per lane and row (4-byte fp8 loads, 8-byte
// bf16 loads, where the native 16-bit fragment has two). Such a tile runs as
// two m16n8k16 that read the halves of those registers; A and B then go
// through one K permutation, which leaves the sum as it is
// (k32TileAsK16). Dots whose K is not a multiple of 32 use the native
// 16x8x16 tile (fp8 in the 16-bit fragment layout, two bytes per run).
//
// The fp8 conversion happens in the dot lowering (emitMatrixOperandConversion)
// rather than as an arith.extf inserted by layout assignment: the f16 values
// stay in the 8-bit fragment layout, which no f16 instruction reads
// natively, and the K permutation that makes them readable is a fact of
// these instructions, which belongs to the target, not to the layout
// planner. Converting a whole operand vector once per dot converts each
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

/// The mma.sync tiles of tile.dot, in order of preference: fp8 (as f16
/// after conversion) 16x8x32 and 16x8x16, then bf16 16x8x32 and 16x8x16.
llvm::SmallVector<MatrixInstr> mmaSyncInstrs(mlir::MLIRContext *ctx);

/// `#tile.nv_mma<{version = 2, instrShape = [16, 8, K], wavesPerCTA =
/// [wavesM, wavesN]}>`. mma.sync has no transposed accumulator: a lane
/// already holds two consecutive columns.
mlir::Attribute mmaSyncAccEncoding(mlir::MLIRContext *ctx,
                                   const MatrixInstr &instr, unsigned wavesM,
                                   unsigned wavesN);

/// `#tile.dot_operand` of `acc` with kWidth = K / 8: the elements of one
/// 32-bit register of the m16n8k<K> fragment of 8-bit (K = 32) or 16-bit
/// (K = 16) elements.
mlir::Attribute mmaSyncOperandEncoding(mlir::Attribute acc, unsigned opIdx,
                                       const MatrixInstr &instr);

/// The tile of a version-2 `#tile.nv_mma` accumulator with `operandType`
/// operands; fails with the reason (naming `target`) in `why`.
llvm::FailureOr<MatrixInstr> mmaSyncInstrOf(llvm::StringRef target,
                                            mlir::Attribute acc,
                                            mlir::Type operandType,
                                            std::string *why);

/// fp8 operand vectors to f16 (cvt.rn.f16x2.e4m3x2 in the back end); other
/// operands unchanged.
mlir::Value convertMmaSyncOperand(mlir::OpBuilder &b, mlir::Location loc,
                                  const MatrixInstr &instr,
                                  mlir::Value operand);

/// The registers m16n8k16 `j` (0 or 1) of a 16x8x32 tile of 16-bit values
/// in the 8-bit fragment layout reads. Register pair p of an operand is its
/// fragment elements 2p and 2p+1 (the low or high half of 8-bit register
/// p / 2): `a` lists the pairs of the instruction's A registers a0..a3, `b`
/// those of b0..b1.
struct K16Registers {
  std::array<unsigned, 4> a;
  std::array<unsigned, 2> b;
};
K16Registers k32TileAsK16(unsigned j);

/// `acc + a * b` for one tile: `a` and `b` in fragment register order (after
/// convertMmaSyncOperand), `acc` a vector<4xf32>.
mlir::Value emitMmaSync(mlir::OpBuilder &b, mlir::Location loc,
                        const MatrixInstr &instr, mlir::Value a, mlir::Value bv,
                        mlir::Value acc);

} // namespace tessel::hopper

#endif
