//===- Passes.h - Tile IR to SIMT IR passes ----------------------*- C++
//-*-===//
#ifndef TESSEL_LOWERING_PASSES_H
#define TESSEL_LOWERING_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "tessel/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Lowering/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_LOWERING_PASSES_H
