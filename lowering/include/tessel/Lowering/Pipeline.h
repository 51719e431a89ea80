//===- Pipeline.h - Tile IR to SIMT IR pipeline -------------------*- C++
//-*-===//
//
// The target-dependent front half of the compiler: specialize knobs, assign
// layouts for a target and distribute tile IR over lanes and waves, giving
// SIMT IR (see lowering/SIMT_IR.md). The back half (SIMT IR to code objects)
// is in TargetBackend.h.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_PIPELINE_H
#define TESSEL_LOWERING_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>

namespace tessel {
class TargetInfo;

/// Knob bindings: knob name -> value (integers; booleans as 0/1).
using KnobBindings = std::map<std::string, int64_t>;

/// Adds the passes that take a module of `tile.kernel`s to SIMT IR for
/// `target`: a `gpu.module` per kernel holding a `gpu.func` kernel.
void buildTileToSimtPipeline(mlir::OpPassManager &pm, const TargetInfo &target,
                             const KnobBindings &knobs);

/// Runs buildTileToSimtPipeline on `module` in place. Diagnostics go to the
/// context's handler; returns failure when any pass fails.
mlir::LogicalResult lowerTileToSimt(mlir::ModuleOp module,
                                    const TargetInfo &target,
                                    const KnobBindings &knobs);

/// Prints SIMT IR as the emulator and kernel bundles take it: with every op's
/// source location (MLIR's parseable debug-info form, `loc(...)` with
/// `#loc` aliases), so that a fault on the emulator names the kernel
/// source's file:line:col rather than a line of the printed text.
void printSimt(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Registers every dialect that tile IR and SIMT IR may contain.
void registerTesselDialects(mlir::DialectRegistry &registry);

} // namespace tessel

#endif // TESSEL_LOWERING_PIPELINE_H
