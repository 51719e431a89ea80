//===- Emulator.h - SIMT IR emulator ------------------------------*- C++
//-*-===//
//
// Runs SIMT IR kernels (lowering/SIMT_IR.md) on the CPU, with the AMD
// hardware's lane semantics: wave64 lockstep (wave32 for sm_90 modules) with
// an exec mask, divergent scf control flow under masks, waves interleaved at
// barriers, workgroups interleaved so spin-waits on global flags progress.
//
// Contract:
// - Loading compiles every gpu.func kernel once into an internal instruction
//   list. An op the emulator does not implement, or a form of a known op it
//   does not support, fails the load with an error naming the op and its
//   location. After loading, the MLIR module is no longer needed.
// - A Module is immutable after loading; concurrent launches on one Module
//   from several threads are safe (each launch owns its state).
// - Every global access is bounds-checked against its memref descriptor's
//   sizes, every LDS access against its allocation; LDS reads of bytes never
//   written in the workgroup are errors. Raw buffer ops follow the hardware's
//   range check instead (out-of-range loads give 0, stores are dropped).
//   Errors name the op, its source location (file:line:col), the lane and
//   the workgroup.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_EMULATOR_EMULATOR_H
#define TESSEL_EMULATOR_EMULATOR_H

#include "tessel/emu_plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessel::emu {

namespace detail {
struct Kernel;
}

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

struct LaunchOptions {
  /// Workgroups resident at once. They are scheduled round robin, switching
  /// when every wave of one is blocked at a barrier, done, or has taken
  /// `yieldBudget` loop back-edges. Persistent kernels that spin on flags set
  /// by other workgroups need all of those workgroups resident: a kernel
  /// with a grid barrier (`tessel.grid_barrier`) launched on more
  /// workgroups than this fails at once.
  unsigned maxResidentWorkgroups = TESSEL_EMU_MAX_RESIDENT_WORKGROUPS;
  int64_t yieldBudget = 1024;
  /// Total loop back-edges allowed in one launch (0 = no limit); exceeding it
  /// is reported as a probable deadlock.
  uint64_t maxLoopIterations = 1ull << 34;
  /// Watchdog: wall-clock seconds one launch may run before it is stopped
  /// with an error naming the loop it was in and the workgroups still
  /// running (0 = no limit). Negative: the environment variable
  /// TESSEL_EMU_TIMEOUT_S if set, else kDefaultTimeoutSeconds. The clock is
  /// read every few thousand loop back-edges and at workgroup starts, so the
  /// stop comes within milliseconds of the limit.
  double timeoutSeconds = -1;
};

/// The watchdog's limit when neither LaunchOptions::timeoutSeconds nor
/// TESSEL_EMU_TIMEOUT_S sets one. Generous enough for the largest kernels
/// the tests run (well under a second each), short enough that a hung
/// spin-wait fails fast.
constexpr double kDefaultTimeoutSeconds = 30;

struct LaunchStats {
  /// Emulated lane-operations: for each executed instruction, its element
  /// count times the number of active lanes.
  uint64_t laneOps = 0;
};

/// A kernel argument for the convenience launch API.
struct KernelArg {
  enum Kind { Buffer, I32, I64, F32 } kind;
  void *ptr = nullptr;
  int64_t numElems = 0;
  uint64_t bits = 0;
  static KernelArg buffer(void *p, int64_t numElems) {
    KernelArg a{Buffer};
    a.ptr = p;
    a.numElems = numElems;
    return a;
  }
  static KernelArg i32(int32_t v) {
    KernelArg a{I32};
    a.bits = (uint32_t)v;
    return a;
  }
  static KernelArg i64(int64_t v) {
    KernelArg a{I64};
    a.bits = (uint64_t)v;
    return a;
  }
  static KernelArg f32(float v);
};

class Module {
public:
  ~Module();

  /// Parses, verifies and compiles SIMT IR text.
  static llvm::Expected<std::unique_ptr<Module>>
  parse(llvm::StringRef simtIR, llvm::StringRef bufferName = "<simt-ir>");

  /// Compiles the kernels of an in-memory module (not retained).
  static llvm::Expected<std::unique_ptr<Module>> fromModule(mlir::ModuleOp m);

  std::vector<std::string> kernelNames() const;

  /// The kernel's `known_block_size`, if it has one.
  llvm::Expected<std::optional<Dim3>>
  knownBlockSize(llvm::StringRef kernel) const;

  /// Number of flattened launch parameters of `kernel` (SIMT_IR.md).
  llvm::Expected<size_t> numParams(llvm::StringRef kernel) const;

  /// Launches with cuLaunchKernel-style parameters (one pointer per
  /// flattened parameter).
  llvm::Error launch(llvm::StringRef kernel, Dim3 grid, Dim3 block,
                     llvm::ArrayRef<void *> params,
                     const LaunchOptions &opts = {},
                     LaunchStats *stats = nullptr) const;

  /// Launches with typed arguments, one per gpu.func argument; a buffer
  /// becomes (ptr, ptr, 0, numElems, 1).
  llvm::Error launchArgs(llvm::StringRef kernel, Dim3 grid, Dim3 block,
                         llvm::ArrayRef<KernelArg> args,
                         const LaunchOptions &opts = {},
                         LaunchStats *stats = nullptr) const;

private:
  Module() = default;
  const detail::Kernel *find(llvm::StringRef name) const;
  std::vector<std::unique_ptr<detail::Kernel>> kernels;
};

} // namespace tessel::emu

#endif // TESSEL_EMULATOR_EMULATOR_H
