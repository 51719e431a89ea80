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

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <map>
#include <optional>
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

/// Registers every dialect that tile IR and SIMT IR may contain.
void registerTesselDialects(mlir::DialectRegistry &registry);

//===----------------------------------------------------------------------===//
// Deeply nested input
//
// MLIR's parser, verifier, printer and many passes recurse once per level of
// nesting (about 2.5 KiB of stack per region level in the parser alone), so
// a few thousand nested regions overflow a default 8 MiB stack. Tessel's
// entry points (tessel-translate, tessel-opt, libtessel_jit.so) therefore
// reject source nested deeper than kMaxNestingDepth before parsing, and run
// parse + compile on a thread with a kCompilerStackBytes stack.
//===----------------------------------------------------------------------===//

/// The deepest bracket nesting -- (), [], {} and <> together -- accepted in
/// IR source. Kernels nest well under 50 (module, function, loops, types);
/// at this depth every stage fits in a default 8 MiB stack as well.
inline constexpr unsigned kMaxNestingDepth = 256;

/// The stack of the thread that runOnCompilerStack starts.
inline constexpr size_t kCompilerStackBytes = size_t(256) << 20;

/// Where source text nests deeper than a limit.
struct NestingExcess {
  unsigned line, column; ///< 1-based, of the bracket that crosses the limit
  size_t offset;         ///< byte offset of that bracket
  unsigned depth;        ///< the deepest nesting anywhere in the text
};

/// Scans `source` for brackets outside string literals and `//` comments
/// (the `>` of `->` is no bracket) and returns where the nesting first goes
/// deeper than `limit`, or nothing if it never does. Linear, no allocation.
std::optional<NestingExcess>
findExcessNesting(llvm::StringRef source, unsigned limit = kMaxNestingDepth);

/// "nesting depth N exceeds the limit L".
std::string describeNestingExcess(const NestingExcess &excess,
                                  unsigned limit = kMaxNestingDepth);

/// Checks `buffer` before it is parsed: if it nests deeper than `limit`,
/// emits describeNestingExcess as an error at the buffer's file:line:col
/// through `context`'s diagnostic handlers and returns failure.
mlir::LogicalResult checkSourceNesting(const llvm::MemoryBuffer &buffer,
                                       mlir::MLIRContext *context,
                                       unsigned limit = kMaxNestingDepth);

/// Runs `fn` to completion on a new thread with a kCompilerStackBytes stack
/// and returns when it has finished. Should no thread start (resource
/// limits), runs `fn` on the calling thread instead: the nesting limit still
/// holds there.
void runOnCompilerStack(llvm::function_ref<void()> fn);

} // namespace tessel

#endif // TESSEL_LOWERING_PIPELINE_H
