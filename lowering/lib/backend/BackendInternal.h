//===- BackendInternal.h - Pieces shared inside the back end ------*- C++
//-*-===//
#ifndef TESSEL_LOWERING_BACKEND_BACKENDINTERNAL_H
#define TESSEL_LOWERING_BACKEND_BACKENDINTERNAL_H

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace tessel::backend {

/// Rewrites every arith.truncf to an fp8 type inside gpu.modules into NVVM
/// `cvt.rn.satfinite` conversions (round to nearest even, saturate to the
/// largest finite value, NaN stays NaN), since the LLVM NVPTX target has no
/// fp8 types.
mlir::LogicalResult lowerFp8TruncfToNVVM(mlir::ModuleOp module);

/// Gives a body to every declared vendor math function (__ocml_*, __nv_*) the
/// upstream conversions call, written with intrinsics the target selects
/// natively. Returns an error naming any other external function that is
/// called, since nothing else would resolve it.
llvm::Error provideMathLibrary(llvm::Module &module, Vendor vendor);

} // namespace tessel::backend

#endif // TESSEL_LOWERING_BACKEND_BACKENDINTERNAL_H
