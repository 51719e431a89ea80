//===- TileLowering.h - Tile IR to SIMT IR inside a test --------*- C++ -*-===//
//
// The steps every kernel test repeats: a context with Tessel's dialects,
// parsing tile IR and lowering it for a target, with the diagnostics
// collected into the test failure when a step fails.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TEST_UNIT_COMMON_TILELOWERING_H
#define TESSEL_TEST_UNIT_COMMON_TILELOWERING_H

#include "tessel/Lowering/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace tessel::test {

/// A context with every Tessel dialect loaded.
std::unique_ptr<mlir::MLIRContext> makeTesselContext();

/// Parses tile IR `src` (named `name` in locations) in `ctx` and lowers it
/// to SIMT IR for `target` with `knobs` (and pipeline `options`). On any
/// failure adds a test failure naming the step and the diagnostics, and
/// returns null.
mlir::OwningOpRef<mlir::ModuleOp>
lowerTileForTest(mlir::MLIRContext &ctx, const std::string &src,
                 const std::string &name, const std::string &target,
                 const KnobBindings &knobs,
                 const TileToSimtOptions &options = {});

} // namespace tessel::test

#endif
