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

using namespace mlir;

void tessel::registerTesselDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, gpu::GPUDialect,
                  vector::VectorDialect, memref::MemRefDialect,
                  amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect, func::FuncDialect, ub::UBDialect>();
}

void tessel::printSimt(ModuleOp module, llvm::raw_ostream &os) {
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
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
