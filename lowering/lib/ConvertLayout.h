//===- ConvertLayout.h - Moving a tile between two layouts ------*- C++ -*-===//
//
// A layout change (tile.convert_layout, and reshapes and transposes, which
// are layout changes once their output dims are renamed) is planned on the
// two LinearLayouts (register, lane, wave) -> tensor coordinates and done
// with the cheapest mechanism the maps allow:
//
//  1. Registers: lanes and waves hold the same elements in both layouts;
//     a destination register is a source register of the same lane.
//  2. Shuffles: waves hold the same elements; every destination register
//     reads one source register (the same in every lane) from a lane given
//     by a linear function of the lane id, one ds_bpermute / shfl each.
//     Chosen over LDS when it needs fewer instructions.
//  3. LDS: every lane stores its elements and loads the ones it needs,
//     through a shared layout (a linear bijection tensor -> element offset)
//     built here so that both sides use the widest vectors their registers
//     allow (up to 16 bytes: ds_write_b128 / ds_read_b128, st/ld.shared.v4)
//     and, where the layouts allow, no two lanes of one bank row hit the
//     same bank: the side that fixes the vector order gets its lanes on the
//     bank bits directly, the other side's lanes are XOR-swizzled onto them
//     with the offset bits above the bank row.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_CONVERTLAYOUT_H
#define TESSEL_LOWERING_CONVERTLAYOUT_H

#include "tessel/Dialect/Tile/LinearLayout.h"

#include "mlir/IR/Builders.h"

namespace tessel {

class TargetInfo;

struct ConversionPlan {
  enum class Kind { None, Registers, Shuffle, Lds };
  Kind kind = Kind::None;
  int64_t srcRegs = 0, dstRegs = 0;

  /// Registers / Shuffle: destination register r takes source register
  /// srcReg[r]; for Shuffle from lane laneXor(lane) ^ laneConst[r], where
  /// laneXor XORs laneBases[i] for every set bit i of the lane id.
  llvm::SmallVector<int64_t> srcReg, laneConst;
  llvm::SmallVector<int64_t> laneBases;

  /// LDS: element offsets of each input basis of one side.
  struct Side {
    llvm::SmallVector<int64_t> reg, lane, wave;
    unsigned vecBits = 0; // log2 of elements per access
    /// Register bits whose basis is zero (copies: stored once).
    int64_t dupRegMask = 0;
    /// Accesses per lane, and the worst number of lanes of one bank row
    /// that hit the same bank (1 = conflict free).
    int64_t accesses = 0;
    unsigned conflictWays = 1;
  };
  Side store, load;
  int64_t numElems = 0; // elements in the LDS buffer

  /// Instructions per lane, the measure the mechanisms are compared by.
  int64_t cost() const;
};

/// Plans the move of a tile of `elemBytes`-byte elements from `src` to
/// `dst` (same output dims). Fails with a message when the layouts do not
/// describe the same tensor on the same lanes and waves.
mlir::FailureOr<ConversionPlan> planConversion(const tile::LinearLayout &src,
                                               const tile::LinearLayout &dst,
                                               unsigned elemBytes,
                                               const TargetInfo &target,
                                               std::string *error);

/// One side of an access to a tile in LDS through `toOffset`, a map
/// (register, lane, wave) -> `offset` (an element offset in the buffer):
/// the offsets of every input basis, the widest vector (up to the target's
/// maxVectorBytes) over which consecutive registers have consecutive,
/// aligned offsets, the copies, and the bank conflicts.
mlir::FailureOr<ConversionPlan::Side>
planLdsAccess(const tile::LinearLayout &toOffset, unsigned elemBytes,
              const TargetInfo &target, std::string *error);

/// The element offset (i32) of register 0 of the lane `lane` in wave `wave`
/// on side `s`, and of register `slot` given that base.
mlir::Value emitLdsSideBase(mlir::OpBuilder &b, mlir::Location loc,
                            const ConversionPlan::Side &s, mlir::Value lane,
                            mlir::Value wave);
mlir::Value emitLdsSlotOffset(mlir::OpBuilder &b, mlir::Location loc,
                              const ConversionPlan::Side &s, mlir::Value base,
                              int64_t slot);

/// Stores the registers `in` (vector<R x T>) at side `s`'s offsets of the
/// 1-D workgroup memref `buffer` (of T, or of the same-width integer; i1 is
/// widened to i8), one vector of 2^s.vecBits registers at a time, skipping
/// copies. No barrier.
void emitLdsStore(mlir::OpBuilder &b, mlir::Location loc,
                  const ConversionPlan::Side &s, mlir::Value in,
                  mlir::Value lane, mlir::Value wave, mlir::Value buffer);
/// Loads `regs` registers of `elem` from side `s`'s offsets of `buffer`.
/// No barrier.
mlir::Value emitLdsLoad(mlir::OpBuilder &b, mlir::Location loc,
                        const ConversionPlan::Side &s, int64_t regs,
                        mlir::Type elem, mlir::Value lane, mlir::Value wave,
                        mlir::Value buffer);

/// The layouts to convert between for a convert_layout, reshape or
/// transpose op (the source layout's outputs renamed/reshaped onto the
/// result's dims). Fails with a message for other ops or unsupported
/// encodings.
mlir::FailureOr<std::pair<tile::LinearLayout, tile::LinearLayout>>
conversionLayouts(mlir::Operation *op, std::string *error);

/// Emits `plan` on `in` (the source registers, vector<srcRegs x T>),
/// returning vector<dstRegs x T>. `lane`/`wave` are i32 ids; for LDS
/// plans `buffer` is a 1-D workgroup memref of the LDS element type
/// `ldsElem` with plan.numElems elements, and `toLds` / `fromLds` convert
/// between the register and LDS element types.
mlir::Value emitConversion(mlir::OpBuilder &b, mlir::Location loc,
                           const ConversionPlan &plan, mlir::Value in,
                           mlir::Value lane, mlir::Value wave,
                           mlir::Value buffer, const TargetInfo &target);

} // namespace tessel

#endif // TESSEL_LOWERING_CONVERTLAYOUT_H
