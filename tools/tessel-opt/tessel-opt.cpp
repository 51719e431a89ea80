//===- tessel-opt.cpp - mlir-opt with Tessel's dialects and passes --------===//

#include "tessel/Lowering/Passes.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Passes/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

/// Rejects an input file that tessel::findSourceProblem rejects (nested too
/// deep, or crashing MLIR's parser) with a located error. Standard input is
/// read once, by MlirOptMain, so it is only protected by the large stack.
static bool passesSourceScreen(llvm::StringRef inputFilename) {
  if (inputFilename == "-")
    return true;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(inputFilename, /*IsText=*/true);
  if (!file) // MlirOptMain reports the unreadable file.
    return true;
  std::optional<tessel::SourceProblem> problem =
      tessel::findSourceProblem((*file)->getBuffer());
  if (!problem)
    return true;
  llvm::SourceMgr sourceMgr;
  const char *at = (*file)->getBufferStart() + problem->offset;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(at),
                         llvm::SourceMgr::DK_Error, problem->message);
  return false;
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tessel::registerTesselPasses();
  tessel::registerTesselLoweringPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  tessel::registerTesselDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Tessel optimizer driver\n", registry);
  if (!passesSourceScreen(inputFilename))
    return 1;
  // Deeply nested input recurses deeply in the parser and the passes.
  int rc = 1;
  tessel::runOnCompilerStack([&] {
    rc = mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  });
  return rc;
}
