//===- TileLowering.cpp - Tile IR to SIMT IR inside a test ----------------===//

#include "TileLowering.h"

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;

std::unique_ptr<MLIRContext> tessel::test::makeTesselContext() {
  DialectRegistry reg;
  registerTesselDialects(reg);
  auto ctx = std::make_unique<MLIRContext>(reg);
  ctx->loadAllAvailableDialects();
  return ctx;
}

OwningOpRef<ModuleOp> tessel::test::lowerTileForTest(
    MLIRContext &ctx, const std::string &src, const std::string &name,
    const std::string &target, const KnobBindings &knobs,
    const TileToSimtOptions &options) {
  std::string diag;
  llvm::raw_string_ostream os(diag);
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    os << d << "\n";
    return success();
  });
  std::string expanded;
  if (std::optional<SourceProblem> problem =
          expandKnobTemplates(src, knobs, expanded)) {
    ADD_FAILURE() << name << ":" << problem->line << ":" << problem->column
                  << ": " << problem->message;
    return nullptr;
  }
  auto module = parseSourceString<ModuleOp>(expanded, &ctx, name);
  if (!module) {
    ADD_FAILURE() << "parse of " << name << " failed: " << diag;
    return nullptr;
  }
  auto info = TargetInfo::create(target);
  if (!info) {
    ADD_FAILURE() << "no target " << target;
    return nullptr;
  }
  if (failed(lowerTileToSimt(*module, *info, knobs, options))) {
    ADD_FAILURE() << "lowering of " << name << " for " << target
                  << " failed: " << diag;
    return nullptr;
  }
  return module;
}
