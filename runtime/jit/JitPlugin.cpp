//===- JitPlugin.cpp - libtessel_jit.so: the compiler behind the runtime --===//
//
// Implements runtime/include/tessel/jit_plugin.h with Tessel's compiler: tile
// IR source -> SIMT IR -> hsaco / PTX (or the SIMT IR itself for the
// emulator). The runtime dlopen()s this library when a variant is missing
// from every loaded bundle and caches what it returns on disk.
//
//===----------------------------------------------------------------------===//

#include "tessel/jit_plugin.h"

#include "tessel/Lowering/CodeObjectMetadata.h"
#include "tessel/Lowering/Pipeline.h"
#include "tessel/Lowering/TargetBackend.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

using namespace mlir;

namespace {

void writeError(char *err, size_t errLen, const std::string &msg) {
  if (!err || errLen == 0)
    return;
  size_t n = std::min(errLen - 1, msg.size());
  memcpy(err, msg.data(), n);
  err[n] = '\0';
}

char *copyString(const std::string &s) {
  char *p = static_cast<char *>(malloc(s.size() + 1));
  if (p)
    memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

/// The flattened launch parameters of a SIMT-level kernel (SIMT_IR.md).
llvm::json::Array launchArgs(gpu::GPUFuncOp func) {
  llvm::json::Array args;
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    std::string name = "arg" + std::to_string(i);
    auto add = [&](const std::string &n, const char *kind) {
      args.push_back(llvm::json::Object{{"name", n}, {"kind", kind}});
    };
    if (isa<MemRefType>(t)) {
      add(name + ".allocated", "ptr");
      add(name + ".aligned", "ptr");
      add(name + ".offset", "i64");
      add(name + ".size", "i64");
      add(name + ".stride", "i64");
    } else if (t.isInteger(32)) {
      add(name, "i32");
    } else if (t.isInteger(64)) {
      add(name, "i64");
    } else {
      add(name, "f32");
    }
  }
  return args;
}

// LLD keeps process-wide state while it links; one compile at a time.
std::mutex compileMutex;

} // namespace

extern "C" {

int tessel_jit_abi_version(void) { return TESSEL_JIT_PLUGIN_ABI_VERSION; }

const char *tessel_jit_compiler_version(void) {
  return "tessel " TESSEL_VERSION " (MLIR/LLVM " LLVM_VERSION_STRING ")";
}

} // extern "C"

/// tessel_jit_compile on the calling thread.
static int compileVariant(const char *sourcePath, const char *targetName,
                          const char *const *knobNames,
                          const int64_t *knobValues, size_t numKnobs,
                          void **code, size_t *codeLen, char **manifest,
                          char *err, size_t errLen) {
  if (!sourcePath || !targetName || !code || !codeLen || !manifest ||
      (numKnobs && (!knobNames || !knobValues))) {
    writeError(err, errLen, "tessel_jit_compile: null argument");
    return 1;
  }
  *code = nullptr;
  *manifest = nullptr;
  std::string target = targetName;
  bool simt = target.rfind("emu-", 0) == 0;
  std::string chip = simt ? target.substr(4) : target;
  std::unique_ptr<tessel::TargetInfo> info = tessel::TargetInfo::create(chip);
  if (!info) {
    writeError(err, errLen,
               "unsupported target '" + target + "'; supported: " +
                   tessel::TargetInfo::supportedTargets().str() +
                   " and emu-<gfx target>");
    return 1;
  }
  auto file = llvm::MemoryBuffer::getFile(sourcePath);
  if (!file) {
    writeError(err, errLen,
               std::string("cannot read ") + sourcePath + ": " +
                   file.getError().message());
    return 1;
  }
  std::string source = (*file)->getBuffer().str();

  std::lock_guard<std::mutex> lock(compileMutex);
  DialectRegistry registry;
  tessel::registerTesselDialects(registry);
  tessel::registerBackendDialects(registry);
  tessel::initializeBackendTargets();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diagOS << d.getLocation() << ": " << d << "\n";
    return success();
  });
  auto failWith = [&](const std::string &what) {
    writeError(err, errLen,
               what + (diagnostics.empty() ? "" : ":\n") + diagnostics);
    return 1;
  };
  tessel::KnobBindings knobs;
  llvm::json::Object knobJson;
  for (size_t i = 0; i < numKnobs; ++i) {
    if (!knobNames[i])
      return failWith("knob name " + std::to_string(i) + " is null");
    knobs[knobNames[i]] = knobValues[i];
    knobJson[knobNames[i]] = knobValues[i];
  }
  // Knob templates (tile shapes that follow knobs) are expanded first.
  std::unique_ptr<llvm::MemoryBuffer> expanded = tessel::expandKnobTemplates(
      *llvm::MemoryBuffer::getMemBuffer(source, sourcePath), knobs, &ctx);
  OwningOpRef<ModuleOp> module;
  llvm::SourceMgr sm;
  if (expanded) {
    sm.AddNewSourceBuffer(std::move(expanded), llvm::SMLoc());
    if (succeeded(tessel::checkSourceBeforeParsing(
            *sm.getMemoryBuffer(sm.getMainFileID()), &ctx)))
      module = parseSourceFile<ModuleOp>(sm, &ctx);
  }
  if (!module)
    return failWith(std::string("cannot parse ") + sourcePath);
  // Named like the library builder's entries: kernel.target.<knobs>.jit.
  std::string variantTag;
  for (const auto &[name, value] : knobs)
    variantTag +=
        (variantTag.empty() ? "" : "_") + name + std::to_string(value);
  if (failed(tessel::lowerTileToSimt(*module, *info, knobs)))
    return failWith("lowering " + std::string(sourcePath) + " for " + target +
                    " failed");
  gpu::GPUFuncOp func;
  unsigned kernels = 0;
  module->walk([&](gpu::GPUFuncOp f) {
    if (f.isKernel()) {
      func = f;
      ++kernels;
    }
  });
  if (kernels != 1)
    return failWith(std::string(sourcePath) +
                    " must hold exactly one kernel "
                    "for the JIT, found " +
                    std::to_string(kernels));
  std::string kernelName = func.getName().str();
  llvm::json::Array block;
  if (auto bs = func.getKnownBlockSizeAttr())
    for (int32_t v : bs.asArrayRef())
      block.push_back(v);
  llvm::json::Array args = launchArgs(func);

  std::string bytes, format;
  llvm::json::Value resources = llvm::json::Object{{"format", "simt"}};
  if (simt) {
    llvm::raw_string_ostream os(bytes);
    tessel::printSimt(*module, os);
    format = "simt";
  } else {
    tessel::BackendRequest request;
    request.assembly = false;
    FailureOr<tessel::BackendArtifacts> art =
        tessel::compileSimtModule(*module, *info, {}, request);
    if (failed(art))
      return failWith("code generation for " + target + " failed");
    bytes = std::move(art->binary);
    if (info->vendor() == tessel::Vendor::AMD) {
      format = "hsaco";
      auto md = tessel::readHsacoMetadata(bytes);
      if (!md)
        return failWith("cannot read the code object's metadata: " +
                        llvm::toString(md.takeError()));
      resources = tessel::toJSON(*md);
    } else {
      format = "ptx";
      auto md = tessel::readPtxMetadata(bytes);
      if (!md)
        return failWith("cannot read the PTX metadata: " +
                        llvm::toString(md.takeError()));
      resources = tessel::toJSON(*md);
    }
  }

  std::array<uint8_t, 32> hash = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(source.data()), source.size()));
  std::string sourceHash = llvm::toHex(hash, /*LowerCase=*/true);
  std::string resourcesText;
  llvm::raw_string_ostream(resourcesText) << resources;
  llvm::json::Object entry{
      {"name", kernelName + "." + target + "." + variantTag + ".jit"},
      {"kernel", kernelName},
      {"target", simt ? chip : target},
      {"format", format},
      {"knobs", std::move(knobJson)},
      {"args", std::move(args)},
      {"block", std::move(block)},
      {"resources", resourcesText},
      {"source_hash", sourceHash}};
  std::string manifestText;
  llvm::raw_string_ostream(manifestText) << llvm::json::Value(std::move(entry));

  void *out = malloc(bytes.size() ? bytes.size() : 1);
  char *man = copyString(manifestText);
  if (!out || !man) {
    free(out);
    free(man);
    writeError(err, errLen, "out of memory");
    return 1;
  }
  memcpy(out, bytes.data(), bytes.size());
  *code = out;
  *codeLen = bytes.size();
  *manifest = man;
  return 0;
}

extern "C" {

int tessel_jit_compile(const char *sourcePath, const char *targetName,
                       const char *const *knobNames, const int64_t *knobValues,
                       size_t numKnobs, void **code, size_t *codeLen,
                       char **manifest, char *err, size_t errLen) {
  // Deeply nested input recurses deeply in the parser and the passes; the
  // host's thread may have a small stack.
  int rc = 1;
  tessel::runOnCompilerStack([&] {
    rc = compileVariant(sourcePath, targetName, knobNames, knobValues, numKnobs,
                        code, codeLen, manifest, err, errLen);
  });
  return rc;
}

void tessel_jit_free(void *p) { free(p); }

} // extern "C"
