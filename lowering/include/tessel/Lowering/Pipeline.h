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
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tessel {
class TargetInfo;

/// Knob bindings: knob name -> value (integers; booleans as 0/1).
using KnobBindings = std::map<std::string, int64_t>;

/// Pipeline settings that are neither knobs nor target facts; the defaults
/// are what the kernel library is built with.
struct TileToSimtOptions {
  /// tile-expand-radix-select's `candidates`: the LDS candidate buffer's
  /// capacity in pairs (-1: derived from the target, 0: none). Tests set it
  /// small to reach the overflow path on small rows.
  int64_t topkCandidates = -1;
};

/// Adds the passes that take a module of `tile.kernel`s to SIMT IR for
/// `target`: a `gpu.module` per kernel holding a `gpu.func` kernel.
void buildTileToSimtPipeline(mlir::OpPassManager &pm, const TargetInfo &target,
                             const KnobBindings &knobs,
                             const TileToSimtOptions &options = {});

/// Runs buildTileToSimtPipeline on `module` in place. Diagnostics go to the
/// context's handler; returns failure when any pass fails.
mlir::LogicalResult lowerTileToSimt(mlir::ModuleOp module,
                                    const TargetInfo &target,
                                    const KnobBindings &knobs,
                                    const TileToSimtOptions &options = {});

/// Prints SIMT IR as the emulator and kernel bundles take it: with every op's
/// source location (MLIR's parseable debug-info form, `loc(...)` with
/// `#loc` aliases), so that a fault on the emulator names the kernel
/// source's file:line:col rather than a line of the printed text.
void printSimt(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Registers every dialect that tile IR and SIMT IR may contain.
void registerTesselDialects(mlir::DialectRegistry &registry);

//===----------------------------------------------------------------------===//
// Screening source before it is parsed
//
// MLIR's parser, verifier, printer and many passes recurse once per level of
// nesting (about 2.5 KiB of stack per region level in the parser alone), so
// a few thousand nested regions overflow a default 8 MiB stack. Tessel's
// entry points (tessel-translate, tessel-opt, libtessel_jit.so) therefore
// screen the source text before parsing -- nesting deeper than
// kMaxNestingDepth, and constructs that crash MLIR 22's parser -- and run
// parse + compile on a thread with a kCompilerStackBytes stack.
//===----------------------------------------------------------------------===//

/// The deepest bracket nesting -- (), [], {} and <> together -- accepted in
/// IR source. Kernels nest well under 50 (module, function, loops, types);
/// at this depth every stage fits in a default 8 MiB stack as well.
inline constexpr unsigned kMaxNestingDepth = 256;

/// The stack of the thread that runOnCompilerStack starts.
inline constexpr size_t kCompilerStackBytes = size_t(256) << 20;

/// A problem found in source text before parsing.
struct SourceProblem {
  unsigned line, column; ///< 1-based
  size_t offset;         ///< byte offset of line:column
  std::string message;
};

/// Scans `source` once, outside string literals and `//` comments, for:
///  - bracket nesting deeper than `nestingLimit` (the `>` of `->` is no
///    bracket): "nesting depth N exceeds the limit L", at the bracket that
///    crosses the limit, N being the deepest nesting anywhere;
///  - `array<index ...>`, a dense array of index, on which MLIR 22's parser
///    crashes.
/// Returns the first problem, or nothing.
std::optional<SourceProblem>
findSourceProblem(llvm::StringRef source,
                  unsigned nestingLimit = kMaxNestingDepth);

/// Screens `buffer` before it is parsed: on a findSourceProblem, emits it as
/// an error at the buffer's file:line:col through `context`'s diagnostic
/// handlers and returns failure.
mlir::LogicalResult
checkSourceBeforeParsing(const llvm::MemoryBuffer &buffer,
                         mlir::MLIRContext *context,
                         unsigned nestingLimit = kMaxNestingDepth);

//===----------------------------------------------------------------------===//
// Kernel source templates
//
// Tile shapes are static, so a kernel whose tile sizes follow its knobs
// (heads, rows per program, tokens per step) writes them as templates that
// are expanded from the knob values before the source is parsed, as
// Triton's front end does with constexprs:
//  - `{{EXPR}}` becomes the decimal value of EXPR;
//  - `{{let NAME = EXPR}}` defines NAME for the templates after it and
//    becomes nothing;
//  - `{{require EXPR : MESSAGE}}` becomes nothing where EXPR is not 0 and
//    is otherwise the error MESSAGE, at the template: a knob combination
//    the kernel does not support fails to compile, saying why.
// EXPR is built from integers, names, `+ - * /` (64-bit, integer division,
// checked for overflow and division by zero) and parentheses. A name is a
// `{{let}}` defined earlier, else a knob: its bound value, else the default
// of its declaration in the source (`#tile.knob<"NAME" : iN = V ...>`).
// Templates end on their own line; string literals and `//` comments (lit's
// FileCheck patterns) are left alone. Source without templates is returned
// unchanged. tessel-translate, libtessel_jit.so and the kernel tests expand
// before screening and parsing.
//===----------------------------------------------------------------------===//

/// Expands the templates of `source` into `expanded`; returns the first
/// problem (unknown name, malformed or unterminated template, overflow, a
/// failed require).
std::optional<SourceProblem> expandKnobTemplates(llvm::StringRef source,
                                                 const KnobBindings &knobs,
                                                 std::string &expanded);

/// The same for a buffer: the expansion under the buffer's name, or null
/// after emitting the problem at its file:line:col through `context`.
std::unique_ptr<llvm::MemoryBuffer>
expandKnobTemplates(const llvm::MemoryBuffer &buffer, const KnobBindings &knobs,
                    mlir::MLIRContext *context);

/// Runs `fn` to completion on a new thread with a kCompilerStackBytes stack
/// and returns when it has finished. Should no thread start (resource
/// limits), runs `fn` on the calling thread instead: the nesting limit still
/// holds there.
void runOnCompilerStack(llvm::function_ref<void()> fn);

} // namespace tessel

#endif // TESSEL_LOWERING_PIPELINE_H
