//===- TargetInfoImpl.h - Constructors of the concrete targets ---*- C++
//-*-===//
#ifndef TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H
#define TESSEL_LOWERING_TARGET_TARGETINFOIMPL_H

#include "tessel/Lowering/TargetInfo.h"

namespace tessel {

enum class CDNAGeneration { CDNA3, CDNA4 };

std::unique_ptr<TargetInfo> createCDNATargetInfo(CDNAGeneration gen);
std::unique_ptr<TargetInfo> createHopperTargetInfo();

} // namespace tessel

#endif
