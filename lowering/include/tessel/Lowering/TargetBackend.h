//===- TargetBackend.h - SIMT IR to LLVM IR, assembly and code objects -*- C++
//-*-===//
//
// The back half of the compiler. It takes a module of SIMT IR (see
// lowering/SIMT_IR.md) and a TargetInfo and produces LLVM IR, assembly (AMDGPU
// ISA or PTX) and a code object (an hsaco ELF for AMD, PTX text for NVIDIA).
//
// AMD: rocdl-attach-target, arith-to-amdgpu (fp8 truncf saturates),
// gpu-to-rocdl, then LLVM's AMDGPU target and an in-process LLD link.
// NVIDIA: nvvm-attach-target, Tessel's fp8 truncf lowering (cvt satfinite),
// gpu-to-nvvm, then LLVM's NVPTX target.
//
// Kernel attributes that reach the code object:
//   known_block_size     -> reqd/max flat work-group size (AMD), .reqntid (PTX)
//   tessel.waves_per_eu  -> "amdgpu-waves-per-eu" (AMD; ignored on NVIDIA)
// Every memref argument is passed as (ptr, ptr, i64 offset, i64 size,
// i64 stride): this is the runtime's launch ABI.
//
// Calls into vendor math libraries (__ocml_*, __nv_*) that the upstream
// conversions produce are resolved by Tessel's built-in definitions in terms
// of LLVM/target intrinsics; no ROCm device libraries or libdevice are used.
// A call that cannot be resolved is an error, never an abort in LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_TARGETBACKEND_H
#define TESSEL_LOWERING_TARGETBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tessel {
class TargetInfo;

struct BackendOptions {
  /// LLVM optimization level (0-3) for the IR pipeline and code generation.
  unsigned optLevel = 3;
  /// AMD code object version, as LLVM's `amdhsa_code_object_version` module
  /// flag (500 = v5, accepted by ROCm 5.x and later loaders).
  unsigned amdCodeObjectVersion = 500;
};

/// Which artifacts compileSimtModule should produce. LLVM IR is always made.
struct BackendRequest {
  bool assembly = true;
  bool binary = true;
};

struct BackendArtifacts {
  /// Optimized LLVM IR, as handed to code generation.
  std::string llvmIR;
  /// AMDGPU assembly or PTX (empty if not requested).
  std::string assembly;
  /// hsaco ELF bytes (AMD) or PTX text (NVIDIA) (empty if not requested).
  std::string binary;
};

/// Registers the dialects and LLVM IR translation interfaces the back end
/// needs (GPU, ROCDL, NVVM, LLVM, AMDGPU, ...). Call before parsing input.
void registerBackendDialects(mlir::DialectRegistry &registry);

/// Initializes the AMDGPU and NVPTX LLVM targets (once per process).
void initializeBackendTargets();

/// Lowers the SIMT IR in `module` in place to the LLVM dialect (with ROCDL or
/// NVVM ops) and attaches the target to every gpu.module. Checks each kernel's
/// `tessel.target` (if present) against `target` and its known_block_size
/// against the target's limits. Diagnostics go to the context's handler.
mlir::LogicalResult lowerSimtToLLVMDialect(mlir::ModuleOp module,
                                           const TargetInfo &target,
                                           const BackendOptions &opts = {});

/// Runs the whole back end on SIMT IR: lowerSimtToLLVMDialect, translation of
/// every gpu.module into one LLVM module, the LLVM optimization pipeline and
/// code generation. `module` is modified in place. Thread-safe with respect to
/// other calls (the LLD link is serialized internally).
mlir::FailureOr<BackendArtifacts>
compileSimtModule(mlir::ModuleOp module, const TargetInfo &target,
                  const BackendOptions &opts = {},
                  const BackendRequest &request = {});

} // namespace tessel

#endif // TESSEL_LOWERING_TARGETBACKEND_H
