//===- ModuleTarget.h - The target a module was specialized for --*- C++ -*-===//
//
// Passes that bake target facts into the IR (knob binding, layouts, SIMT
// lowering, code generation) record the target on the module, so that a
// pipeline mixing targets fails instead of producing code for neither.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_MODULETARGET_H
#define TESSEL_LOWERING_MODULETARGET_H

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace tessel {

/// Module attribute (a string) naming the target the module's IR depends on.
inline constexpr llvm::StringLiteral kModuleTargetAttrName = "tessel.target";

/// The TargetInfo of `target` for `stage` (a pass name, for messages) about
/// to run on `module`. Records `target` on the module when it names none.
/// Emits an error on `module` and returns null when `target` is not
/// supported, or when the module already names another target (the message
/// names both).
std::unique_ptr<TargetInfo> claimModuleTarget(mlir::ModuleOp module,
                                              llvm::StringRef target,
                                              llvm::StringRef stage);

} // namespace tessel

#endif // TESSEL_LOWERING_MODULETARGET_H
