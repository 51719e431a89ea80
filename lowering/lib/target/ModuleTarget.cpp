//===- ModuleTarget.cpp - The target a module was specialized for ---------===//

#include "tessel/Lowering/ModuleTarget.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

std::unique_ptr<tessel::TargetInfo>
tessel::claimModuleTarget(ModuleOp module, StringRef target, StringRef stage) {
  std::unique_ptr<TargetInfo> info = TargetInfo::create(target);
  if (!info) {
    module.emitError() << stage << ": unsupported target '" << target
                       << "'; supported: " << TargetInfo::supportedTargets();
    return nullptr;
  }
  Attribute recorded = module->getAttr(kModuleTargetAttrName);
  if (!recorded) {
    module->setAttr(kModuleTargetAttrName,
                    StringAttr::get(module.getContext(), info->name()));
    return info;
  }
  auto name = dyn_cast<StringAttr>(recorded);
  if (!name) {
    module.emitError() << "'" << kModuleTargetAttrName
                       << "' must be a string naming a target, got "
                       << recorded;
    return nullptr;
  }
  if (name.getValue() != info->name()) {
    module.emitError() << stage << " for target '" << info->name()
                       << "' cannot run on a module already specialized for '"
                       << name.getValue() << "' ('" << kModuleTargetAttrName
                       << "'); run the whole pipeline for one target";
    return nullptr;
  }
  return info;
}
