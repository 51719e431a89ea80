//===- Pipeline.cpp - Tile IR to SIMT IR pipeline -------------------------===//

#include "tessel/Lowering/Pipeline.h"

#include "SourceScan.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Passes.h"
#include "tessel/Lowering/TargetInfo.h"
#include "tessel/Passes/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <pthread.h>

using namespace mlir;

void tessel::registerTesselDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, gpu::GPUDialect,
                  vector::VectorDialect, memref::MemRefDialect,
                  amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect, func::FuncDialect, ub::UBDialect,
                  nvgpu::NVGPUDialect>();
}

void tessel::printSimt(ModuleOp module, llvm::raw_ostream &os) {
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
}

void tessel::buildTileToSimtPipeline(OpPassManager &pm,
                                     const TargetInfo &target,
                                     const KnobBindings &knobs,
                                     const TileToSimtOptions &options) {
  TileSpecializeKnobsOptions knobOptions;
  for (const auto &[name, value] : knobs)
    knobOptions.knobs.push_back(name + "=" + std::to_string(value));
  knobOptions.target = target.name().str();
  pm.addPass(createTileSpecializeKnobs(knobOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  TileExpandRadixSelectOptions radixOptions;
  radixOptions.target = target.name().str();
  radixOptions.candidates = options.topkCandidates;
  pm.addPass(createTileExpandRadixSelect(radixOptions));
  pm.addPass(createCanonicalizerPass());
  // After the knob-guarded choice of the K load has folded away.
  pm.addPass(createTilePreshuffleKV());
  pm.addPass(createTileAssignLayouts({target.name().str()}));
  pm.addPass(createConvertTileToSimt({target.name().str()}));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createVerifySimtLevel());
}

LogicalResult tessel::lowerTileToSimt(ModuleOp module, const TargetInfo &target,
                                      const KnobBindings &knobs,
                                      const TileToSimtOptions &options) {
  PassManager pm(module->getContext());
  buildTileToSimtPipeline(pm, target, knobs, options);
  return pm.run(module);
}

namespace {

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
}

/// Whether `array<index` (spaces allowed) starts at offset i.
bool isIndexDenseArray(StringRef source, size_t i) {
  if (!source.substr(i).starts_with("array") ||
      (i > 0 && isIdentifierChar(source[i - 1])))
    return false;
  StringRef rest = source.substr(i + 5).ltrim(" \t");
  if (!rest.consume_front("<"))
    return false;
  rest = rest.ltrim(" \t");
  return rest.starts_with("index") &&
         (rest.size() == 5 || !isIdentifierChar(rest[5]));
}

} // namespace

std::optional<tessel::SourceProblem>
tessel::findSourceProblem(StringRef source, unsigned nestingLimit) {
  std::optional<SourceProblem> problem;
  unsigned depth = 0, maxDepth = 0, line = 1;
  size_t lineStart = 0;
  auto at = [&](size_t i) {
    return SourceProblem{line, unsigned(i - lineStart + 1), i, ""};
  };
  bool tooDeep = false;
  forEachCodeOffset(
      source,
      [&](size_t i) -> size_t {
        switch (source[i]) {
        case '-':
          return i + 1 < source.size() && source[i + 1] == '>' ? i + 1 : i;
        case '(':
        case '[':
        case '{':
        case '<':
          maxDepth = std::max(maxDepth, ++depth);
          if (depth > nestingLimit && !problem) {
            problem = at(i);
            tooDeep = true;
          }
          return i;
        case ')':
        case ']':
        case '}':
        case '>':
          depth -= depth > 0;
          return i;
        case 'a':
          if (!problem && isIndexDenseArray(source, i)) {
            problem = at(i);
            problem->message = "dense arrays of 'index' are not supported "
                               "(MLIR's parser fails on them); use i32 or "
                               "i64 elements";
          }
          return i;
        default:
          return i;
        }
      },
      [&](size_t next) {
        ++line;
        lineStart = next;
      });
  if (tooDeep)
    problem->message = "nesting depth " + std::to_string(maxDepth) +
                       " exceeds the limit " + std::to_string(nestingLimit);
  return problem;
}

LogicalResult tessel::checkSourceBeforeParsing(const llvm::MemoryBuffer &buffer,
                                               MLIRContext *context,
                                               unsigned nestingLimit) {
  std::optional<SourceProblem> problem =
      findSourceProblem(buffer.getBuffer(), nestingLimit);
  if (!problem)
    return success();
  Location loc = FileLineColLoc::get(context, buffer.getBufferIdentifier(),
                                     problem->line, problem->column);
  return emitError(loc) << problem->message;
}

void tessel::runOnCompilerStack(llvm::function_ref<void()> fn) {
  // pthreads rather than llvm::thread: llvm::thread aborts the process when
  // no thread can be created, and the JIT runs inside its host's process.
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) == 0) {
    pthread_t thread;
    auto body = [](void *arg) -> void * {
      (*static_cast<llvm::function_ref<void()> *>(arg))();
      return nullptr;
    };
    bool started = pthread_attr_setstacksize(&attr, kCompilerStackBytes) == 0 &&
                   pthread_create(&thread, &attr, body, &fn) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      pthread_join(thread, nullptr);
      return;
    }
  }
  fn();
}
