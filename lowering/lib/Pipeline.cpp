//===- Pipeline.cpp - Tile IR to SIMT IR pipeline -------------------------===//

#include "tessel/Lowering/Pipeline.h"

#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/Passes.h"
#include "tessel/Lowering/TargetInfo.h"
#include "tessel/Passes/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/Passes.h"

#include <pthread.h>

using namespace mlir;

void tessel::registerTesselDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, gpu::GPUDialect,
                  vector::VectorDialect, memref::MemRefDialect,
                  amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect, func::FuncDialect, ub::UBDialect>();
}

void tessel::buildTileToSimtPipeline(OpPassManager &pm,
                                     const TargetInfo &target,
                                     const KnobBindings &knobs) {
  TileSpecializeKnobsOptions knobOptions;
  for (const auto &[name, value] : knobs)
    knobOptions.knobs.push_back(name + "=" + std::to_string(value));
  knobOptions.target = target.name().str();
  pm.addPass(createTileSpecializeKnobs(knobOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileAssignLayouts({target.name().str()}));
  pm.addPass(createConvertTileToSimt({target.name().str()}));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createVerifySimtLevel());
}

LogicalResult tessel::lowerTileToSimt(ModuleOp module, const TargetInfo &target,
                                      const KnobBindings &knobs) {
  PassManager pm(module->getContext());
  buildTileToSimtPipeline(pm, target, knobs);
  return pm.run(module);
}

std::optional<tessel::NestingExcess> tessel::findExcessNesting(StringRef source,
                                                               unsigned limit) {
  std::optional<NestingExcess> excess;
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0, e = source.size(); i < e; ++i) {
    char c = source[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"': // A string literal ends at its closing quote or the line's end.
      for (++i; i < e && source[i] != '"' && source[i] != '\n'; ++i)
        if (source[i] == '\\' && i + 1 < e && source[i + 1] != '\n')
          ++i;
      if (i < e && source[i] == '\n')
        --i;
      break;
    case '/':
      if (i + 1 < e && source[i + 1] == '/')
        while (i + 1 < e && source[i + 1] != '\n')
          ++i;
      break;
    case '-':
      if (i + 1 < e && source[i + 1] == '>')
        ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > limit && !excess)
        excess = NestingExcess{line, unsigned(i - lineStart + 1), i, depth};
      if (excess && depth > excess->depth)
        excess->depth = depth;
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return excess;
}

std::string tessel::describeNestingExcess(const NestingExcess &excess,
                                          unsigned limit) {
  return "nesting depth " + std::to_string(excess.depth) +
         " exceeds the limit " + std::to_string(limit);
}

LogicalResult tessel::checkSourceNesting(const llvm::MemoryBuffer &buffer,
                                         MLIRContext *context, unsigned limit) {
  std::optional<NestingExcess> excess =
      findExcessNesting(buffer.getBuffer(), limit);
  if (!excess)
    return success();
  Location loc = FileLineColLoc::get(context, buffer.getBufferIdentifier(),
                                     excess->line, excess->column);
  return emitError(loc) << describeNestingExcess(*excess, limit);
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
