//===- tessel-translate.cpp - Tile or SIMT IR to LLVM IR, ISA, hsaco, PTX -===//
//
//   tessel-translate INPUT.mlir --target=gfx942|gfx950|sm_90a|sm_90
//       --emit=simt|llvm|asm|hsaco|ptx [--knob NAME=VALUE ...]
//       [--resource-json=FILE] [--print-resources] -o OUT
//
// Tile IR (an input holding `tile` dialect ops) is first lowered to SIMT IR
// with the knobs bound; SIMT IR input goes straight to the back end.
//
//===----------------------------------------------------------------------===//

#include "tessel/Lowering/CodeObjectMetadata.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetBackend.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("tessel-translate options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("file"),
                                           cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    targetName("target", cl::desc("Target: gfx942, gfx950, sm_90a or sm_90"),
               cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to write: simt, llvm, asm, hsaco (AMD), ptx "
                      "(NVIDIA)"),
             cl::value_desc("kind"), cl::init("asm"), cl::cat(category));
static cl::list<std::string>
    knobs("knob", cl::desc("Bind a knob of a tile kernel (repeatable)"),
          cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string>
    resourceJson("resource-json",
                 cl::desc("Write the code object's resource usage as JSON"),
                 cl::value_desc("file"), cl::cat(category));
static cl::opt<bool>
    printResources("print-resources",
                   cl::desc("Print the resource usage JSON to stdout"),
                   cl::cat(category));
static cl::opt<unsigned> optLevel("opt-level",
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::init(3), cl::cat(category));
static cl::opt<std::string>
    ptxasOption("ptxas",
                cl::desc("For PTX resources: 'auto' (use ptxas if found), "
                         "'none', or the path of ptxas"),
                cl::init("auto"), cl::cat(category));

static int fail(const Twine &message) {
  WithColor::error(errs(), "tessel-translate") << message << "\n";
  return 1;
}

/// Parses `NAME=VALUE` knob bindings (VALUE: integer, true or false).
static bool parseKnobs(tessel::KnobBindings &bindings) {
  for (const std::string &knob : knobs) {
    StringRef text(knob);
    auto [name, value] = text.split('=');
    bool validName =
        !name.empty() && (isAlpha(name[0]) || name[0] == '_') &&
        llvm::all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
    if (!text.contains('=') || !validName || value.empty()) {
      fail("malformed --knob '" + knob + "': expected NAME=VALUE");
      return false;
    }
    int64_t v;
    if (value == "true")
      v = 1;
    else if (value == "false")
      v = 0;
    else if (value.getAsInteger(0, v)) {
      fail("malformed --knob '" + knob + "': value '" + value +
           "' is not an integer");
      return false;
    }
    if (!bindings.emplace(name.str(), v).second) {
      fail("--knob '" + name + "' is given more than once");
      return false;
    }
  }
  return true;
}

static bool hasTileOps(mlir::ModuleOp module) {
  return module
      .walk([](mlir::Operation *op) {
        return op->getName().getDialectNamespace() == "tile"
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

/// amdgpu.dpp on a vector operand crashes the op's verifier in MLIR 22.1.8;
/// report it instead.
static mlir::LogicalResult screenKnownVerifierCrashes(mlir::ModuleOp module) {
  mlir::WalkResult result = module.walk([](mlir::Operation *op) {
    if (op->getName().getStringRef() == "amdgpu.dpp" &&
        llvm::any_of(op->getOperandTypes(),
                     [](mlir::Type t) { return isa<mlir::VectorType>(t); })) {
      op->emitError("amdgpu.dpp on a vector operand is not supported; apply "
                    "it to each 32-bit element");
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return mlir::failure(result.wasInterrupted());
}

static bool writeFile(StringRef path, StringRef contents) {
  std::string error;
  std::unique_ptr<ToolOutputFile> out = mlir::openOutputFile(path, &error);
  if (!out) {
    fail("cannot write '" + path + "': " + error);
    return false;
  }
  out->os() << contents;
  out->keep();
  return true;
}

static int translate(int argc, char **argv) {
  // Should an LLVM back end still hit a fatal error the back end does not
  // screen for, report it as an error (exit 1, partial output removed)
  // instead of a crash dump.
  install_fatal_error_handler([](void *, const char *reason, bool) {
    WithColor::error(errs(), "tessel-translate")
        << "LLVM failed: " << reason << "\n";
  });
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Tessel: tile or SIMT IR to LLVM IR, assembly or code object\n");
  // LLD's driver resets every cl::opt when it links an hsaco, so the options
  // are copied before any compilation.
  const std::string inputPath = inputFilename, outputPath = outputFilename;
  const std::string resourcePath = resourceJson, ptxasChoice = ptxasOption;
  const bool printResourceJson = printResources;
  const unsigned level = optLevel;

  if (targetName.empty())
    return fail("--target is required; supported targets: " +
                tessel::TargetInfo::supportedTargets());
  std::unique_ptr<tessel::TargetInfo> target =
      tessel::TargetInfo::create(targetName);
  if (!target)
    return fail("unknown target '" + targetName + "'; supported targets: " +
                tessel::TargetInfo::supportedTargets());
  bool isAMD = target->vendor() == tessel::Vendor::AMD;
  StringRef emit = emitKind;
  if (emit != "simt" && emit != "llvm" && emit != "asm" && emit != "hsaco" &&
      emit != "ptx")
    return fail("unknown --emit kind '" + emit +
                "'; expected simt, llvm, asm, hsaco or ptx");
  if (emit == "hsaco" && !isAMD)
    return fail("--emit=hsaco needs an AMD target, not '" + targetName +
                "' (use --emit=ptx)");
  if (emit == "ptx" && isAMD)
    return fail("--emit=ptx needs an NVIDIA target, not '" + targetName +
                "' (use --emit=hsaco)");
  if (optLevel > 3)
    return fail("--opt-level must be 0-3");
  tessel::KnobBindings bindings;
  if (!parseKnobs(bindings))
    return 1;

  std::string error;
  std::unique_ptr<ToolOutputFile> output =
      mlir::openOutputFile(outputPath, &error);
  if (!output)
    return fail("cannot open output '" + outputPath + "': " + error);
  std::unique_ptr<MemoryBuffer> input = mlir::openInputFile(inputPath, &error);
  if (!input)
    return fail("cannot open input '" + inputPath + "': " + error);

  mlir::DialectRegistry registry;
  tessel::registerTesselDialects(registry);
  tessel::registerBackendDialects(registry);
  mlir::MLIRContext context(registry);
  // A failing conversion would otherwise print whole gpu.modules.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  // Knob templates first (Pipeline.h): the source parsed is the expansion,
  // whose lines are the file's lines.
  auto fileMgr = std::make_shared<SourceMgr>();
  fileMgr->AddNewSourceBuffer(std::move(input), SMLoc());
  mlir::SourceMgrDiagnosticHandler fileDiagnostics(*fileMgr, &context);
  std::unique_ptr<MemoryBuffer> expanded = tessel::expandKnobTemplates(
      *fileMgr->getMemoryBuffer(fileMgr->getMainFileID()), bindings, &context);
  if (!expanded)
    return 1;
  auto sourceMgr = std::make_shared<SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(expanded), SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  if (failed(tessel::checkSourceBeforeParsing(
          *sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID()), &context)))
    return 1;

  // Verification runs after a screen for inputs that crash MLIR 22's own
  // verifiers.
  mlir::ParserConfig parserConfig(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, parserConfig);
  if (!module || failed(screenKnownVerifierCrashes(*module)) ||
      failed(mlir::verify(*module)))
    return 1;

  if (hasTileOps(*module)) {
    if (failed(tessel::lowerTileToSimt(*module, *target, bindings)))
      return 1;
  } else if (!bindings.empty()) {
    mlir::emitWarning(module->getLoc())
        << "--knob is ignored: the input is already SIMT IR";
  }

  bool wantResources = printResourceJson || !resourcePath.empty();
  std::string resources;
  if (emit == "simt") {
    // Resource usage needs a code object: compile a copy.
    if (wantResources) {
      mlir::OwningOpRef<mlir::ModuleOp> copy(module->clone());
      tessel::BackendOptions opts;
      opts.optLevel = level;
      FailureOr<tessel::BackendArtifacts> artifacts =
          tessel::compileSimtModule(*copy, *target, opts, {false, true});
      if (failed(artifacts))
        return 1;
      resources = std::move(artifacts->binary);
    }
    tessel::printSimt(*module, output->os());
  } else {
    tessel::BackendOptions opts;
    opts.optLevel = level;
    tessel::BackendRequest request;
    request.assembly = emit == "asm";
    request.binary = emit == "hsaco" || emit == "ptx" || wantResources;
    FailureOr<tessel::BackendArtifacts> artifacts =
        tessel::compileSimtModule(*module, *target, opts, request);
    if (failed(artifacts))
      return 1;
    if (emit == "llvm")
      output->os() << artifacts->llvmIR;
    else if (emit == "asm")
      output->os() << artifacts->assembly;
    else
      output->os() << artifacts->binary;
    resources = std::move(artifacts->binary);
  }

  if (wantResources) {
    std::string ptxas;
    if (!isAMD) {
      if (ptxasChoice == "auto")
        ptxas = tessel::findPtxas();
      else if (ptxasChoice != "none")
        ptxas = ptxasChoice;
    }
    Expected<tessel::CodeObjectMetadata> metadata =
        isAMD ? tessel::readHsacoMetadata(resources)
              : tessel::readPtxMetadata(resources, ptxas);
    if (!metadata)
      return fail("cannot read the code object's metadata: " +
                  toString(metadata.takeError()));
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}", tessel::toJSON(*metadata)) << "\n";
    if (!resourcePath.empty() && !writeFile(resourcePath, text))
      return 1;
    if (printResourceJson)
      outs() << text;
  }
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Deeply nested input recurses deeply in the parser and the passes.
  int rc = 1;
  tessel::runOnCompilerStack([&] { rc = translate(argc, argv); });
  return rc;
}
