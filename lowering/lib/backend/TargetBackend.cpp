//===- TargetBackend.cpp - SIMT IR to LLVM IR, assembly and code objects --===//

#include "tessel/Lowering/TargetBackend.h"
#include "BackendInternal.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <mutex>

LLD_HAS_DRIVER(elf)

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;

namespace tessel {

void registerBackendDialects(DialectRegistry &registry) {
  registry.insert<amdgpu::AMDGPUDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, nvgpu::NVGPUDialect, ROCDL::ROCDLDialect,
                  scf::SCFDialect, vector::VectorDialect>();
  // The upstream GPU conversions collect their patterns through the
  // ConvertToLLVM interfaces registered here.
  registerAllExtensions(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void initializeBackendTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

namespace {
/// Builds a long 1-D vector.from_elements as a balanced tree of
/// concatenating shuffles. Lowered directly it is a chain of insertelements,
/// one per element, each producing the whole vector; LLVM's combines
/// (InstCombine, GVN, the SelectionDAG) then work in proportion to the width
/// on every link, so compile time grew with the square of the elements per
/// lane. A tree costs the width times its depth.
struct FromElementsAsShuffleTree : OpRewritePattern<vector::FromElementsOp> {
  /// Vectors up to this many elements are built element by element.
  static constexpr int64_t kLeafElements = 8;
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::FromElementsOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getType();
    if (type.getRank() != 1 || type.getNumElements() <= kLeafElements ||
        type.getNumElements() % 2 != 0)
      return failure();
    rewriter.replaceOp(op, build(rewriter, op.getLoc(), type.getElementType(),
                                 op.getElements()));
    return success();
  }

  static Value build(PatternRewriter &rewriter, Location loc, Type elem,
                     ValueRange elems) {
    int64_t n = elems.size();
    if (n <= kLeafElements || n % 2 != 0)
      return vector::FromElementsOp::create(rewriter, loc,
                                            VectorType::get({n}, elem), elems);
    Value lo = build(rewriter, loc, elem, elems.take_front(n / 2));
    Value hi = build(rewriter, loc, elem, elems.drop_front(n / 2));
    auto mask = llvm::to_vector(llvm::seq<int64_t>(0, n));
    return vector::ShuffleOp::create(rewriter, loc, lo, hi, mask);
  }
};

/// Rewrites vector ops that the upstream *-to-LLVM conversions leave alone
/// (strided slices, including those arith-to-amdgpu creates) into shuffles,
/// and long from_elements into shuffle trees.
struct PrepareVectorsPass
    : PassWrapper<PrepareVectorsPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareVectorsPass)
  StringRef getArgument() const override { return "tessel-prepare-vectors"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    patterns.add<FromElementsAsShuffleTree>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// SIMT IR's fp8 truncf saturates infinities too (SIMT_IR.md); the AMD
/// conversion's saturation clamps finite values only, so clamp first:
/// min(max(x, -max), max) keeps NaN and sends +-Inf to +-max.
struct ClampFp8TruncPattern : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    auto dst = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
    if (!dst || dst.getWidth() != 8 ||
        op.getIn().getDefiningOp<arith::MinimumFOp>())
      return failure();
    Type srcType = op.getIn().getType();
    auto srcElem = cast<FloatType>(getElementTypeOrSelf(srcType));
    bool lost;
    APFloat largest = APFloat::getLargest(dst.getFloatSemantics());
    largest.convert(srcElem.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
    auto constant = [&](const APFloat &v) -> Value {
      TypedAttr a = rewriter.getFloatAttr(srcElem, v);
      if (auto vt = dyn_cast<VectorType>(srcType))
        a = DenseElementsAttr::get(vt, a);
      return arith::ConstantOp::create(rewriter, op.getLoc(), srcType, a);
    };
    Location loc = op.getLoc();
    Value hi = constant(largest), lo = constant(-largest);
    Value x = arith::MaximumFOp::create(rewriter, loc, op.getIn(), lo);
    x = arith::MinimumFOp::create(rewriter, loc, x, hi);
    rewriter.modifyOpInPlace(op, [&] { op.getInMutable().assign(x); });
    return success();
  }
};

struct ClampFp8TruncPass
    : PassWrapper<ClampFp8TruncPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ClampFp8TruncPass)
  StringRef getArgument() const override { return "tessel-clamp-fp8-truncf"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ClampFp8TruncPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

/// SIMT IR may allocate LDS with a memref.alloca in the workgroup address
/// space; the GPU conversions only handle workgroup attributions (an alloca
/// would become an invalid stack object), so each becomes one.
static LogicalResult promoteWorkgroupAllocas(ModuleOp module) {
  SmallVector<memref::AllocaOp> allocas;
  module.walk([&](memref::AllocaOp alloca) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        alloca.getType().getMemorySpace());
    if (space && space.getValue() == gpu::AddressSpace::Workgroup)
      allocas.push_back(alloca);
  });
  for (memref::AllocaOp alloca : allocas) {
    auto func = alloca->getParentOfType<gpu::GPUFuncOp>();
    if (!func)
      return alloca.emitError() << "workgroup memref.alloca outside a gpu.func";
    if (!alloca.getType().hasStaticShape() ||
        !alloca.getType().getLayout().isIdentity())
      return alloca.emitError()
             << "workgroup memref.alloca needs a static shape and the "
                "identity layout, got "
             << alloca.getType();
    BlockArgument buffer =
        func.addWorkgroupAttribution(alloca.getType(), alloca.getLoc());
    alloca.getResult().replaceAllUsesWith(buffer);
    alloca.erase();
  }
  return success();
}

/// Marks in `used` the elements of `v` (a 1-D vector) that are read: the
/// static positions of vector.extract users, and for elementwise users the
/// elements of their results that are read. Any other user reads them all.
static void markUsedElements(Value v, llvm::BitVector &used, unsigned depth) {
  auto type = cast<VectorType>(v.getType());
  for (Operation *user : v.getUsers()) {
    if (used.all())
      return;
    if (auto extract = dyn_cast<vector::ExtractOp>(user);
        extract && type.getRank() == 1 && extract.getNumIndices() == 1 &&
        extract.getStaticPosition()[0] != ShapedType::kDynamic) {
      used.set(extract.getStaticPosition()[0]);
      continue;
    }
    if (depth < 4 && user->getNumResults() == 1 &&
        OpTrait::hasElementwiseMappableTraits(user) &&
        isa<VectorType>(user->getResult(0).getType()) &&
        cast<VectorType>(user->getResult(0).getType()).getShape() ==
            type.getShape()) {
      markUsedElements(user->getResult(0), used, depth + 1);
      continue;
    }
    used.set();
  }
}

/// Fails at the first value in `func` whose vector type needs more 32-bit
/// registers than one lane of `target` has, counting only the elements
/// that are read (a vector of addresses of which one per vector access is
/// extracted costs those alone). Such values come only from hand-written or
/// mutated SIMT IR (tile-assign-layouts bounds what the lowering makes),
/// and would send LLVM's register allocator into minutes of work before it
/// spills everything.
static LogicalResult checkVectorFootprints(gpu::GPUFuncOp func,
                                           const TargetInfo &target) {
  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    // A splat constant becomes immediates, not registers.
    if (auto c = dyn_cast<arith::ConstantOp>(op);
        c && isa<SplatElementsAttr>(c.getValue()))
      return WalkResult::advance();
    for (Value v : op->getResults()) {
      auto type = dyn_cast<VectorType>(v.getType());
      if (!type || !type.getElementType().isIntOrFloat())
        continue;
      int64_t elems = type.getNumElements();
      if (type.getRank() == 1 &&
          uint64_t(elems) * std::max(8u, type.getElementTypeBitWidth()) >
              32 * uint64_t(target.registersPerLane())) {
        llvm::BitVector used(elems);
        markUsedElements(v, used, 0);
        elems = used.count();
      }
      uint64_t bits =
          elems * std::max(8u, type.getElementType().getIntOrFloatBitWidth());
      uint64_t registers = llvm::divideCeil(bits, 32);
      if (registers > target.registersPerLane())
        return op->emitError()
               << "a " << type << " needs " << registers
               << " 32-bit registers per lane; target '" << target.name()
               << "' has " << target.registersPerLane();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Checks the kernels against the target and turns Tessel's kernel
/// attributes into the ROCDL/NVVM ones the conversions understand.
static LogicalResult prepareKernels(ModuleOp module, const TargetInfo &target) {
  bool sawGpuModule = false;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    (void)gpuModule;
    sawGpuModule = true;
  }
  if (!sawGpuModule)
    return emitError(module.getLoc())
           << "expected SIMT IR: the module holds no gpu.module";

  WalkResult result = module.walk([&](gpu::GPUFuncOp func) -> WalkResult {
    if (!func.isKernel())
      return WalkResult::advance();
    if (auto built = func->getAttrOfType<StringAttr>("tessel.target")) {
      if (built.getValue() != target.name())
        return func.emitError()
               << "kernel was distributed for target '" << built.getValue()
               << "' but is being compiled for '" << target.name() << "'";
    }
    if (failed(checkVectorFootprints(func, target)))
      return WalkResult::interrupt();
    if (DenseI32ArrayAttr known = func.getKnownBlockSizeAttr()) {
      int64_t threads = 1;
      for (int32_t d : known.asArrayRef()) {
        if (d <= 0)
          return func.emitError() << "known_block_size must be positive";
        threads *= d;
      }
      if (threads > static_cast<int64_t>(target.maxWorkgroupSize()))
        return func.emitError()
               << "known_block_size has " << threads << " threads; target '"
               << target.name() << "' allows at most "
               << target.maxWorkgroupSize();
    }
    if (Attribute raw = func->getAttr("tessel.waves_per_eu")) {
      auto waves = dyn_cast<IntegerAttr>(raw);
      if (!waves || waves.getInt() < 0)
        return func.emitError()
               << "tessel.waves_per_eu must be a non-negative integer";
      if (target.vendor() == Vendor::AMD && waves.getInt() > 0) {
        Builder b(func.getContext());
        func->setAttr("rocdl.waves_per_eu",
                      b.getI32IntegerAttr(waves.getInt()));
      }
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return promoteWorkgroupAllocas(module);
}

LogicalResult lowerSimtToLLVMDialect(ModuleOp module, const TargetInfo &target,
                                     const BackendOptions &opts) {
  if (failed(prepareKernels(module, target)))
    return failure();
  if (target.vendor() == Vendor::NVIDIA &&
      failed(backend::lowerFp8ConversionsToNVVM(module)))
    return failure();

  PassManager pm(module.getContext());
  std::string chip = target.chip().str();
  if (target.vendor() == Vendor::AMD) {
    GpuROCDLAttachTargetOptions attach;
    attach.chip = chip;
    attach.triple = target.triple().str();
    attach.features = target.features().str();
    attach.optLevel = opts.optLevel;
    attach.abiVersion = std::to_string(opts.amdCodeObjectVersion);
    attach.wave64Flag = target.waveSize() == 64;
    pm.addPass(createGpuROCDLAttachTarget(attach));
    OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
    gpm.addPass(std::make_unique<ClampFp8TruncPass>());
    ArithToAMDGPUConversionPassOptions arithOpts;
    arithOpts.chipset = chip;
    // ClampFp8TruncPass already brought every input into range.
    arithOpts.saturateFP8Truncf = false;
    gpm.addPass(createArithToAMDGPUConversionPass(arithOpts));
    gpm.addPass(std::make_unique<PrepareVectorsPass>());
    gpm.addPass(createSCFToControlFlowPass());
    ConvertGpuOpsToROCDLOpsOptions rocdlOpts;
    rocdlOpts.chipset = chip;
    gpm.addPass(createConvertGpuOpsToROCDLOps(rocdlOpts));
  } else {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = chip;
    attach.triple = target.triple().str();
    attach.features = target.features().str();
    attach.optLevel = opts.optLevel;
    pm.addPass(createGpuNVVMAttachTarget(attach));
    OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
    gpm.addPass(std::make_unique<PrepareVectorsPass>());
    // cp.async (tile.async_copy_global_to_local) is nvgpu.device_async_copy.
    gpm.addPass(createConvertNVGPUToNVVMPass());
    gpm.addPass(createSCFToControlFlowPass());
    gpm.addPass(createConvertGpuOpsToNVVMOps());
    // Math ops that the GPU conversion leaves alone because they need no
    // device library (math.ctpop of the top-k positions) become LLVM
    // intrinsics; the ones it handles are already calls by now.
    gpm.addPass(createConvertMathToLLVMPass());
    // NVVM ops with no LLVM intrinsic (wgmma.mma_async) become inline PTX.
    gpm.addPass(createConvertNVVMToLLVMPass());
  }
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Upstream conversions report an op they cannot lower for this chip (an
  // MFMA shape it lacks, say) as an error without failing their pass. Any
  // error ends the lowering here, before translation adds unrelated ones,
  // and names the chip.
  bool sawError = false;
  ScopedDiagnosticHandler chipNote(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error) {
      sawError = true;
      d.attachNote() << "while lowering SIMT IR for " << chip;
    }
    return failure(); // the caller's handler reports it
  });
  if (failed(pm.run(module)) || sawError)
    return failure();

  // Tessel always launches a kernel with exactly its known block size, so
  // on NVIDIA the bound becomes `.reqntid` (upstream writes `.maxntid`; PTX
  // forbids both on one entry).
  if (target.vendor() == Vendor::NVIDIA) {
    module.walk([](LLVM::LLVMFuncOp func) {
      auto known = func->getAttrOfType<DenseI32ArrayAttr>(
          gpu::GPUDialect::KnownBlockSizeAttrHelper::getNameStr());
      if (!known || !func->hasAttr("nvvm.maxntid"))
        return;
      func->removeAttr("nvvm.maxntid");
      func->setAttr("nvvm.reqntid", known);
    });
  }
  return success();
}

namespace {
/// Collects LLVM diagnostics (linker, verifier) into a string.
struct LLVMDiagnosticCollector {
  std::string text;
  bool sawError = false;
  static void handle(const llvm::DiagnosticInfo *info, void *self) {
    auto *collector = static_cast<LLVMDiagnosticCollector *>(self);
    if (info->getSeverity() == llvm::DS_Error)
      collector->sawError = true;
    else if (info->getSeverity() != llvm::DS_Warning)
      return;
    llvm::raw_string_ostream os(collector->text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
    os << "\n";
  }
};
} // namespace

/// Runs code generation on a copy of `module`. The AMDGPU target reports
/// some failures (e.g. an unsupported call) as diagnostics and carries on,
/// so errors collected during the run fail it.
static FailureOr<std::string> runCodegen(llvm::TargetMachine &tm,
                                         const llvm::Module &module,
                                         llvm::CodeGenFileType kind,
                                         LLVMDiagnosticCollector &diagnostics,
                                         Location loc) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, kind))
    return emitError(loc) << "the LLVM target cannot emit this file type";
  diagnostics.sawError = false;
  diagnostics.text.clear();
  pm.run(*clone);
  if (diagnostics.sawError)
    return emitError(loc) << "LLVM code generation failed: "
                          << StringRef(diagnostics.text).rtrim();
  return std::string(buffer.str());
}

/// Links a relocatable AMDGPU object into an hsaco (a shared ELF) with LLD's
/// library. LLD keeps global state, so links are serialized.
static FailureOr<std::string> linkHsaco(llvm::StringRef object, Location loc) {
  static std::mutex lldMutex;
  std::lock_guard<std::mutex> lock(lldMutex);

  llvm::SmallString<128> inPath, outPath;
  int inFd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tessel", "o", inFd, inPath))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  llvm::FileRemover inRemover(inPath);
  {
    llvm::raw_fd_ostream os(inFd, /*shouldClose=*/true);
    os << object;
    if (os.has_error())
      return emitError(loc) << "cannot write " << inPath;
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tessel", "hsaco", outPath))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  llvm::FileRemover outRemover(outPath);

  const char *args[] = {"ld.lld", "-shared",       inPath.c_str(),
                        "-o",     outPath.c_str(), "--no-undefined"};
  std::string messages;
  llvm::raw_string_ostream errs(messages);
  lld::Result result =
      lld::lldMain(args, llvm::nulls(), errs, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return emitError(loc) << "linking the hsaco with LLD failed: " << messages;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(outPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the linked hsaco: "
                          << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

FailureOr<BackendArtifacts> compileSimtModule(ModuleOp module,
                                              const TargetInfo &target,
                                              const BackendOptions &opts,
                                              const BackendRequest &request) {
  initializeBackendTargets();
  Location loc = module.getLoc();
  if (opts.optLevel > 3)
    return emitError(loc) << "optimization level must be 0-3";
  if (failed(lowerSimtToLLVMDialect(module, target, opts)))
    return failure();

  // One LLVM module holding every gpu.module's kernels.
  llvm::LLVMContext llvmContext;
  LLVMDiagnosticCollector diagnostics;
  llvmContext.setDiagnosticHandlerCallBack(LLVMDiagnosticCollector::handle,
                                           &diagnostics);
  std::unique_ptr<llvm::Module> linked;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    std::unique_ptr<llvm::Module> part =
        translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getName());
    if (!part)
      return gpuModule.emitError() << "translation to LLVM IR failed";
    if (!linked) {
      linked = std::move(part);
      continue;
    }
    if (llvm::Linker::linkModules(*linked, std::move(part)))
      return gpuModule.emitError()
             << "cannot link gpu.module '" << gpuModule.getName()
             << "' with the others: " << StringRef(diagnostics.text).rtrim();
  }

  std::string error;
  llvm::Triple triple(target.triple());
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return emitError(loc) << "LLVM target '" << target.triple()
                          << "' is not available: " << error;
  llvm::TargetOptions targetOptions;
  // Verbose assembly carries the per-kernel resource comments (NumVgprs,
  // ScratchSize, Occupancy) that ISA tests check.
  targetOptions.MCOptions.AsmVerbose = true;
  llvm::CodeGenOptLevel cgLevel =
      llvm::CodeGenOpt::getLevel(static_cast<int>(opts.optLevel))
          .value_or(llvm::CodeGenOptLevel::Aggressive);
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, target.chip(), target.features(), targetOptions,
      llvm::Reloc::PIC_, std::nullopt, cgLevel));
  if (!tm)
    return emitError(loc) << "cannot create an LLVM target machine for '"
                          << target.chip() << "'";

  linked->setTargetTriple(triple);
  linked->setDataLayout(tm->createDataLayout());
  if (target.vendor() == Vendor::AMD)
    linked->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                          opts.amdCodeObjectVersion);

  if (llvm::Error err = backend::provideMathLibrary(*linked, target.vendor()))
    return emitError(loc) << llvm::toString(std::move(err));

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level =
        opts.optLevel == 0   ? llvm::OptimizationLevel::O0
        : opts.optLevel == 1 ? llvm::OptimizationLevel::O1
        : opts.optLevel == 2 ? llvm::OptimizationLevel::O2
                             : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = opts.optLevel == 0
                                      ? pb.buildO0DefaultPipeline(level)
                                      : pb.buildPerModuleDefaultPipeline(level);
    mpm.run(*linked, mam);
  }
  // Optimization may not introduce calls LLVM cannot select; check again so
  // that code generation never aborts.
  if (llvm::Error err = backend::provideMathLibrary(*linked, target.vendor()))
    return emitError(loc) << llvm::toString(std::move(err));
  {
    std::string verifierText;
    llvm::raw_string_ostream os(verifierText);
    if (llvm::verifyModule(*linked, &os))
      return emitError(loc)
             << "invalid LLVM IR after lowering: " << verifierText;
  }

  BackendArtifacts artifacts;
  {
    llvm::raw_string_ostream os(artifacts.llvmIR);
    linked->print(os, nullptr);
  }
  bool isAMD = target.vendor() == Vendor::AMD;
  if (request.assembly || (request.binary && !isAMD)) {
    FailureOr<std::string> text = runCodegen(
        *tm, *linked, llvm::CodeGenFileType::AssemblyFile, diagnostics, loc);
    if (failed(text))
      return failure();
    if (request.assembly)
      artifacts.assembly = *text;
    if (request.binary && !isAMD)
      artifacts.binary = std::move(*text);
  }
  if (request.binary && isAMD) {
    FailureOr<std::string> object = runCodegen(
        *tm, *linked, llvm::CodeGenFileType::ObjectFile, diagnostics, loc);
    if (failed(object))
      return failure();
    FailureOr<std::string> hsaco = linkHsaco(*object, loc);
    if (failed(hsaco))
      return failure();
    artifacts.binary = std::move(*hsaco);
  }
  return artifacts;
}

} // namespace tessel
