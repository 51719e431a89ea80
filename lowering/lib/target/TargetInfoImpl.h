//===- TargetInfoImpl.h - Constructors of the concrete targets ---*- C++
//-*-===//
#ifndef TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H
#define TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H

#include "tessel/Lowering/TargetInfo.h"

namespace tessel {

enum class CDNAGeneration { CDNA3, CDNA4 };

/// sm_90a (architecture-specific features such as wgmma) or sm_90.
enum class HopperVariant { ArchSpecific, Portable };

std::unique_ptr<TargetInfo> createCDNATargetInfo(CDNAGeneration gen);
std::unique_ptr<TargetInfo> createHopperTargetInfo(HopperVariant variant);

} // namespace tessel

#endif
