//===- TargetInfo.cpp - Target lookup -------------------------------------===//

#include "tessel/Lowering/TargetInfo.h"

#include "TargetInfoImpl.h"

using namespace tessel;

std::unique_ptr<TargetInfo> TargetInfo::create(llvm::StringRef name) {
  if (name == "gfx942")
    return createCDNATargetInfo(CDNAGeneration::CDNA3);
  if (name == "gfx950")
    return createCDNATargetInfo(CDNAGeneration::CDNA4);
  if (name == "sm_90")
    return createHopperTargetInfo();
  return nullptr;
}

llvm::StringRef TargetInfo::supportedTargets() {
  return "gfx942, gfx950, sm_90";
}
