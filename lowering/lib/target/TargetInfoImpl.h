//===- TargetInfoImpl.h - Constructors of the concrete targets ---*- C++
//-*-===//
#ifndef TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H
#define TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H

#include "tessel/Lowering/TargetInfo.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessel {

enum class CDNAGeneration { CDNA3, CDNA4 };

/// sm_90a (architecture-specific features such as wgmma) or sm_90.
enum class HopperVariant { ArchSpecific, Portable };

std::unique_ptr<TargetInfo> createCDNATargetInfo(CDNAGeneration gen);
std::unique_ptr<TargetInfo> createHopperTargetInfo(HopperVariant variant);

/// Moves the scalars `vs` (of one type that crossesLanes) with `move`, a
/// cross-lane move of 32-bit words that gets the same word of each of `vs`
/// and returns the moved word. 32-bit values are one word, passed as they
/// are; 64-bit values move as their low and high halves, which are joined
/// back into their type.
mlir::Value
emitPerLaneWord(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange vs,
                llvm::function_ref<mlir::Value(mlir::ValueRange)> move);

} // namespace tessel

#endif
