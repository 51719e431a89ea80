//===- HopperWgmma.cpp - wgmma on sm_90a ----------------------------------===//
//
// Facts from the PTX ISA (9.7.15, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"):
//  - wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 reads A [64, 32]
//    and B [32, N] from shared memory, both K-major (the only layout fp8
//    operands have), through 64-bit matrix descriptors, and accumulates
//    into N/2 f32 registers per thread of the warpgroup (4 warps).
//  - Descriptor: bits 0-13 start address >> 4, 16-29 leading-dimension
//    byte offset >> 4 (unused for swizzled K-major layouts; 1 by
//    convention), 32-45 stride-dimension byte offset >> 4 (the distance of
//    8-row groups), 49-51 base offset (0: the swizzle pattern is aligned),
//    62-63 swizzle mode (1 = 128B, 2 = 64B, 3 = 32B).
//  - Generic-proxy stores to shared memory are made visible to wgmma's
//    async-proxy reads by fence.proxy.async.shared::cta; wgmma.fence orders
//    the accumulator's register writes before the first wgmma;
//    wgmma.commit_group closes a batch, and wgmma.wait_group N returns once
//    at most N batches are in flight (the accumulators of the others are
//    written and their shared-memory operands read).
//
//===----------------------------------------------------------------------===//

#include "HopperWgmma.h"

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessel;

namespace {
constexpr unsigned kWgmmaM = 64, kWgmmaK = 32, kWarpgroup = 4;
} // namespace

SmallVector<MatrixInstr> hopper::wgmmaInstrs(MLIRContext *ctx) {
  SmallVector<MatrixInstr> out;
  for (unsigned n = 256; n >= 8; n /= 2) {
    MatrixInstr i{
        kWgmmaM,
        n,
        kWgmmaK,
        Float8E4M3FNType::get(ctx),
        /*kPerLane=*/0,
        /*accPerLane=*/n / 2,
        ("wgmma.mma_async.sync.aligned.m64n" + Twine(n) + "k32.f32.e4m3.e4m3")
            .str()};
    i.operandSource = MatrixOperandSource::SharedMemory;
    i.wavesPerInstr = kWarpgroup;
    out.push_back(i);
  }
  return out;
}

Attribute hopper::wgmmaAccEncoding(MLIRContext *ctx, const MatrixInstr &instr,
                                   unsigned groupsM, unsigned groupsN) {
  return tile::NvMmaLayoutAttr::get(ctx, 3, {instr.m, instr.n, instr.k},
                                    {kWarpgroup * groupsM, groupsN});
}

bool hopper::isWgmmaAcc(Attribute acc) {
  auto nv = dyn_cast_or_null<tile::NvMmaLayoutAttr>(acc);
  return nv && nv.getVersion() == 3;
}

FailureOr<MatrixInstr> hopper::wgmmaInstrOf(Attribute acc, Type operandType,
                                            std::string *why) {
  auto fail = [&](const Twine &msg) -> FailureOr<MatrixInstr> {
    if (why)
      *why = msg.str();
    return failure();
  };
  if (!isWgmmaAcc(acc))
    return fail("not a wgmma accumulator (#tile.nv_mma version 3)");
  FailureOr<MatrixInstr> instr =
      findMatrixInstr(wgmmaInstrs(operandType.getContext()),
                      cast<tile::NvMmaLayoutAttr>(acc).getInstrShape(),
                      operandType, "wgmma", "sm_90a", why);
  if (failed(instr) && why)
    *why += " (supported: m64nNk32 e4m3, N a power of two from 8 to 256)";
  return instr;
}

Value hopper::emitWgmmaDescriptor(OpBuilder &b, Location loc, Value addr,
                                  unsigned swizzleBytes, int64_t groupBytes) {
  uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3;
  // Everything but the start address is a constant.
  uint64_t fixed = (uint64_t(1) << 16) |                          // LBO: unused
                   (uint64_t((groupBytes >> 4) & 0x3fff) << 32) | // SBO
                   (mode << 62);
  Type i64 = b.getI64Type();
  Value a = arith::ExtUIOp::create(b, loc, i64, addr);
  a = arith::ShRUIOp::create(b, loc, a,
                             arith::ConstantIntOp::create(b, loc, i64, 4));
  a = arith::AndIOp::create(b, loc, a,
                            arith::ConstantIntOp::create(b, loc, i64, 0x3fff));
  return arith::OrIOp::create(
      b, loc, a, arith::ConstantIntOp::create(b, loc, i64, int64_t(fixed)));
}

void hopper::emitAsyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void hopper::emitWgmmaFence(OpBuilder &b, Location loc) {
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
}

Value hopper::emitWgmmas(OpBuilder &b, Location loc, const MatrixInstr &instr,
                         ArrayRef<std::pair<Value, Value>> steps, Value acc) {
  // The NVVM op takes the accumulator as a struct of accPerLane f32; it is
  // built once and chained through the steps, so that no register moves
  // sit between them (ptxas would otherwise wait for each wgmma).
  Type f32 = b.getF32Type();
  auto structType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(instr.accPerLane, f32));
  Value d = LLVM::UndefOp::create(b, loc, structType);
  for (unsigned i = 0; i < instr.accPerLane; ++i)
    d = LLVM::InsertValueOp::create(
        b, loc, d, vector::ExtractOp::create(b, loc, acc, int64_t(i)), i);
  MLIRContext *ctx = b.getContext();
  for (auto [descA, descB] : steps)
    d = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, structType, d, descA, descB,
        NVVM::MMAShapeAttr::get(ctx, instr.m, instr.n, instr.k),
        NVVM::WGMMATypes::e4m3, NVVM::WGMMATypes::e4m3, NVVM::WGMMATypes::f32,
        NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
        NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row, NVVM::MMALayout::col,
        NVVM::MMAIntOverflowAttr());
  SmallVector<Value> elems;
  for (unsigned i = 0; i < instr.accPerLane; ++i)
    elems.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(instr.accPerLane)}, f32), elems);
}

void hopper::emitWgmmaCommit(OpBuilder &b, Location loc) {
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
}

void hopper::emitWgmmaWait(OpBuilder &b, Location loc, unsigned pending) {
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
}

SmallVector<Value> hopper::emitRegisterTie(OpBuilder &b, Location loc,
                                           ValueRange values) {
  SmallVector<Value> scalars;
  for (Value v : values) {
    auto vt = cast<VectorType>(v.getType());
    for (int64_t i = 0; i < vt.getNumElements(); ++i)
      scalars.push_back(vector::ExtractOp::create(b, loc, v, i));
  }
  if (scalars.empty())
    return SmallVector<Value>(values);
  // "=f" outputs, then inputs "0", "1", ... tied to them.
  std::string constraints;
  for (size_t i = 0; i < scalars.size(); ++i)
    constraints += "=f,";
  for (size_t i = 0; i < scalars.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < scalars.size() ? "," : "");
  auto structType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(scalars.size(), b.getF32Type()));
  auto tie = LLVM::InlineAsmOp::create(
      b, loc, structType, scalars, "// wgmma registers ready", constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  SmallVector<Value> out;
  int64_t next = 0;
  for (Value v : values) {
    auto vt = cast<VectorType>(v.getType());
    SmallVector<Value> elems;
    for (int64_t i = 0; i < vt.getNumElements(); ++i)
      elems.push_back(
          LLVM::ExtractValueOp::create(b, loc, tie.getResult(0), next++));
    out.push_back(vector::FromElementsOp::create(b, loc, vt, elems));
  }
  return out;
}
