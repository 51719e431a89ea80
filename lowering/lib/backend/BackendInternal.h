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

/// Rewrites every arith.truncf to and arith.extf from an fp8 type inside
/// gpu.modules into NVVM conversions, since the LLVM NVPTX target has no fp8
/// types: truncf becomes `cvt.rn.satfinite` (round to nearest even, saturate
/// to the largest finite value, NaN stays NaN), extf `cvt.rn.f16x2.e4m3x2`.
mlir::LogicalResult lowerFp8ConversionsToNVVM(mlir::ModuleOp module);

/// Gives a body to every declared vendor math function (__ocml_*, __nv_*) the
/// upstream conversions call, written with intrinsics the target selects
/// natively. Returns an error naming any other external function that is
/// called, since nothing else would resolve it.
llvm::Error provideMathLibrary(llvm::Module &module, Vendor vendor);

} // namespace tessel::backend

#endif // TESSEL_LOWERING_BACKEND_BACKENDINTERNAL_H
