//===- VerifySimtLevel.cpp - Check that a module is valid SIMT IR ---------===//

#include "tessel/Lowering/Passes.h"

#include "tessel/Lowering/TargetInfo.h"

#include "llvm/ADT/StringSet.h"

namespace tessel {
#define GEN_PASS_DEF_VERIFYSIMTLEVEL
#include "tessel/Lowering/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// Dialects whose every op may appear, and per-dialect op allow-lists for
/// the rest (lowering/SIMT_IR.md is the reference).
const llvm::StringSet<> &allowedDialects() {
  static const llvm::StringSet<> s = {"arith", "scf"};
  return s;
}

const llvm::StringSet<> &allowedOps() {
  static const llvm::StringSet<> s = {
      // gpu
      "gpu.thread_id", "gpu.block_id", "gpu.grid_dim", "gpu.block_dim",
      "gpu.lane_id", "gpu.barrier", "gpu.return",
      // math
      "math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt",
      "math.rsqrt", "math.absf", "math.absi", "math.fma", "math.tanh",
      "math.copysign", "math.ceil", "math.floor", "math.ctpop",
      // vector
      "vector.load", "vector.store", "vector.broadcast", "vector.extract",
      "vector.insert", "vector.bitcast", "vector.shuffle",
      "vector.from_elements", "vector.extract_strided_slice",
      "vector.insert_strided_slice", "vector.reduction", "vector.fma",
      // memref
      "memref.load", "memref.store", "memref.view", "memref.atomic_rmw",
      "memref.generic_atomic_rmw", "memref.atomic_yield", "memref.dim",
      "memref.assume_alignment", "memref.alloca", "memref.reinterpret_cast",
      "memref.extract_aligned_pointer_as_index",
      // tile.grid_barrier: scoped atomics on a global pointer, and fences
      "llvm.inttoptr", "llvm.load", "llvm.store", "llvm.atomicrmw",
      "llvm.fence"};
  return s;
}

const llvm::StringSet<> &amdOps() {
  static const llvm::StringSet<> s = {"amdgpu.dpp",
                                      "amdgpu.swizzle_bitmode",
                                      "amdgpu.permlane_swap",
                                      "amdgpu.mfma",
                                      "amdgpu.fat_raw_buffer_cast",
                                      "amdgpu.raw_buffer_load",
                                      "amdgpu.raw_buffer_store",
                                      "amdgpu.raw_buffer_atomic_fadd",
                                      "amdgpu.raw_buffer_atomic_fmax",
                                      "amdgpu.raw_buffer_atomic_smax",
                                      "amdgpu.raw_buffer_atomic_umin",
                                      "amdgpu.raw_buffer_atomic_cmpswap",
                                      "amdgpu.lds_barrier",
                                      "amdgpu.packed_trunc_2xfp8",
                                      "amdgpu.ext_packed_fp8",
                                      "amdgpu.sched_barrier",
                                      "rocdl.readlane",
                                      "rocdl.readfirstlane",
                                      "rocdl.ds_bpermute",
                                      "rocdl.ds_swizzle",
                                      "rocdl.ballot",
                                      "rocdl.mbcnt.lo",
                                      "rocdl.mbcnt.hi",
                                      "rocdl.s.waitcnt",
                                      "rocdl.s.barrier",
                                      "rocdl.s.sleep"};
  return s;
}

const llvm::StringSet<> &nvidiaOps() {
  static const llvm::StringSet<> s = {
      "gpu.shuffle", "nvvm.shfl.sync", "nvvm.vote.sync", "nvvm.match.sync",
      "nvvm.barrier0", "nvvm.inline_ptx", "llvm.inline_asm",
      // tile.dot: mma.sync and the struct it returns
      "nvvm.mma.sync", "llvm.extractvalue",
      // cp.async: global -> shared without registers
      "nvgpu.device_async_copy", "nvvm.cp.async.commit.group",
      "nvvm.cp.async.wait.group",
      // wgmma (sm_90a): the async-proxy fence after shared-memory stores,
      // the instruction and its fences, and its accumulator struct.
      "nvvm.fence.proxy", "nvvm.wgmma.fence.aligned", "nvvm.wgmma.mma_async",
      "nvvm.wgmma.commit.group.sync.aligned",
      "nvvm.wgmma.wait.group.sync.aligned", "llvm.mlir.undef",
      "llvm.insertvalue",
      // mbarriers completing cp.async copies, addressed by shared pointers
      "nvvm.mbarrier.init", "nvvm.cp.async.mbarrier.arrive",
      "nvvm.mbarrier.try_wait.parity",
      // spin-wait backoff (tile.grid_barrier)
      "nvvm.nanosleep"};
  return s;
}

/// Ops that move values between lanes: each carries one word of
/// kLaneMoveBits per lane, and wider values move word by word.
const llvm::StringSet<> &laneMoveOps() {
  static const llvm::StringSet<> s = {
      "amdgpu.dpp",        "amdgpu.swizzle_bitmode", "amdgpu.permlane_swap",
      "rocdl.ds_bpermute", "rocdl.ds_swizzle",       "gpu.shuffle",
  };
  return s;
}

/// A lane move carries one 32-bit scalar per lane; its i1 results (such as
/// gpu.shuffle's validity) aside.
LogicalResult verifyLaneMove(Operation *op) {
  for (Type t : op->getResultTypes())
    if (!t.isInteger(1) &&
        (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() != kLaneMoveBits))
      return op->emitError()
             << "'" << op->getName() << "' moves " << t
             << " across lanes; lane moves carry " << kLaneMoveBits
             << "-bit scalars (move wider values word by word)";
  return success();
}

bool hasTensor(Operation *op) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

struct VerifySimtLevelPass
    : public tessel::impl::VerifySimtLevelBase<VerifySimtLevelPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      Vendor vendor = Vendor::AMD;
      if (auto t = func->getAttrOfType<StringAttr>("tessel.target")) {
        auto info = TargetInfo::create(t.getValue());
        if (!info) {
          func.emitError() << "unknown tessel.target '" << t.getValue() << "'";
          ok = false;
          return;
        }
        vendor = info->vendor();
      }
      func.walk([&](Operation *op) {
        if (op == func)
          return;
        StringRef name = op->getName().getStringRef();
        bool allowed =
            allowedDialects().contains(op->getName().getDialectNamespace()) ||
            allowedOps().contains(name) ||
            (vendor == Vendor::AMD && amdOps().contains(name)) ||
            (vendor == Vendor::NVIDIA && nvidiaOps().contains(name));
        if (!allowed) {
          op->emitError() << "'" << name << "' is not allowed in SIMT IR for "
                          << (vendor == Vendor::AMD ? "AMD" : "NVIDIA")
                          << " targets";
          ok = false;
        } else if (hasTensor(op)) {
          op->emitError() << "'" << name
                          << "' uses a tensor; SIMT IR holds per-lane "
                             "scalars and vectors only";
          ok = false;
        } else if (laneMoveOps().contains(name) && failed(verifyLaneMove(op))) {
          ok = false;
        }
      });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
