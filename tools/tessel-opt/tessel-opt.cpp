//===- tessel-opt.cpp - mlir-opt with Tessel's dialects and passes --------===//

#include "tessel/Lowering/Passes.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Passes/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tessel::registerTesselPasses();
  tessel::registerTesselLoweringPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  tessel::registerTesselDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessel optimizer driver\n", registry));
}
