//===- HopperMmaSync.cpp - tile.dot through mma.sync on Hopper ------------===//
//
// Fragment facts are from the PTX ISA, "Matrix Fragments for mma.m16n8k16
// with floating point type" and "... mma.m16n8k32" (9.7.14.5), which
// test/unit/compiler/LinearLayoutTest.cpp checks the layouts against.
//
//===----------------------------------------------------------------------===//

#include "HopperMmaSync.h"

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessel;

namespace {

/// The f16 instruction Hopper's fp8 tiles run as, and the bf16 one.
constexpr const char *kF16Mnemonic =
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
constexpr const char *kBf16Mnemonic =
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";

/// True for the fp8 tiles, which run as f16 instructions after conversion.
bool runsAsF16(const MatrixInstr &instr) {
  return isa<Float8E4M3FNType>(instr.operandType);
}

MatrixInstr make(unsigned k, Type operand, const char *mnemonic) {
  MatrixInstr i;
  i.m = 16;
  i.n = 8;
  i.k = k;
  i.operandType = operand;
  // Four lanes (threadID_in_group) share a row of A / a column of B.
  i.kPerLane = k / 4;
  i.accPerLane = 16 * 8 / 32;
  i.mnemonic = mnemonic;
  return i;
}

/// Splits `v` into its consecutive element pairs: the 32-bit registers of a
/// 16-bit fragment, as vector<2xf16> or (bf16, which nvvm.mma.sync takes
/// packed) i32.
SmallVector<Value> registerPairs(OpBuilder &b, Location loc, Value v) {
  auto vt = cast<VectorType>(v.getType());
  bool packInt = vt.getElementType().isBF16();
  SmallVector<Value> regs;
  for (int64_t i = 0; i + 1 < vt.getNumElements(); i += 2) {
    Value pair = vector::ExtractStridedSliceOp::create(
        b, loc, v, ArrayRef<int64_t>{i}, ArrayRef<int64_t>{2},
        ArrayRef<int64_t>{1});
    if (packInt) {
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      pair = vector::ExtractOp::create(b, loc, word, int64_t(0));
    }
    regs.push_back(pair);
  }
  return regs;
}

/// One `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` on A registers
/// a[0..3], B registers b[0..1] and the four f32 of `acc`.
Value mma16816(OpBuilder &b, Location loc, NVVM::MMATypes type,
               ArrayRef<Value> a, ArrayRef<Value> bregs, Value acc) {
  Type f32 = b.getF32Type();
  SmallVector<Value> c;
  for (int64_t i = 0; i < 4; ++i)
    c.push_back(vector::ExtractOp::create(b, loc, acc, i));
  auto resType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resType, a, bregs, c, ArrayRef<int64_t>{16, 8, 16},
      /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, acc.getType(), out);
}

} // namespace

SmallVector<MatrixInstr> hopper::mmaSyncInstrs(MLIRContext *ctx) {
  Type bf16 = BFloat16Type::get(ctx), fp8 = Float8E4M3FNType::get(ctx);
  return {make(32, fp8, kF16Mnemonic), make(16, fp8, kF16Mnemonic),
          make(32, bf16, kBf16Mnemonic), make(16, bf16, kBf16Mnemonic)};
}

Attribute hopper::mmaSyncAccEncoding(MLIRContext *ctx, const MatrixInstr &instr,
                                     unsigned wavesM, unsigned wavesN) {
  return tile::NvMmaLayoutAttr::get(
      ctx, /*version=*/2, {instr.m, instr.n, instr.k}, {wavesM, wavesN});
}

Attribute hopper::mmaSyncOperandEncoding(Attribute acc, unsigned opIdx,
                                         const MatrixInstr &instr) {
  return tile::DotOperandLayoutAttr::get(acc.getContext(), opIdx, acc,
                                         instr.k / 8);
}

FailureOr<MatrixInstr> hopper::mmaSyncInstrOf(StringRef target, Attribute acc,
                                              Type operandType,
                                              std::string *why) {
  auto fail = [&](const Twine &msg) -> FailureOr<MatrixInstr> {
    if (why)
      *why = msg.str();
    return failure();
  };
  auto mma = dyn_cast_or_null<tile::NvMmaLayoutAttr>(acc);
  if (!mma)
    return fail("the accumulator of a dot on " + target +
                " must have a #tile.nv_mma layout");
  if (mma.getVersion() != 2)
    return fail("#tile.nv_mma version " + Twine(mma.getVersion()) +
                " is not an mma.sync accumulator (version 2)");
  return findMatrixInstr(mmaSyncInstrs(operandType.getContext()),
                         mma.getInstrShape(), operandType, "mma.sync", target,
                         why);
}

Value hopper::convertMmaSyncOperand(OpBuilder &b, Location loc,
                                    const MatrixInstr &instr, Value operand) {
  if (!runsAsF16(instr))
    return operand;
  auto vt = cast<VectorType>(operand.getType());
  return arith::ExtFOp::create(b, loc, vt.clone(b.getF16Type()), operand);
}

Value hopper::emitMmaSync(OpBuilder &b, Location loc, const MatrixInstr &instr,
                          Value a, Value bv, Value acc) {
  SmallVector<Value> pa = registerPairs(b, loc, a),
                     pb = registerPairs(b, loc, bv);
  NVVM::MMATypes type =
      runsAsF16(instr) ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  if (instr.k == 16)
    return mma16816(b, loc, type, pa, pb, acc);
  for (unsigned j = 0; j < 2; ++j) {
    K16Registers r = k32TileAsK16(j);
    SmallVector<Value> a16, b16;
    for (unsigned p : r.a)
      a16.push_back(pa[p]);
    for (unsigned p : r.b)
      b16.push_back(pb[p]);
    acc = mma16816(b, loc, type, a16, b16, acc);
  }
  return acc;
}

hopper::K16Registers hopper::k32TileAsK16(unsigned j) {
  // The m16n8k32 8-bit fragment has A registers (row g, k 4t..4t+3),
  // (row g+8, same k), then the same two at k + 16; B registers (k 4t..4t+3)
  // and (k 16+4t..). Instruction j reads 8-bit A registers 2j (row g) and
  // 2j+1 (row g+8) and B register j: their low pairs (k 4t, 4t+1) as its
  // k 2t, 2t+1 and their high pairs (k 4t+2, 4t+3) as its k 8+2t, 9+2t, in
  // A and B alike. m16n8k16 A registers are (row g, k lo), (row g+8, k lo),
  // (row g, k hi), (row g+8, k hi); B registers (k lo), (k hi).
  unsigned rowG = 2 * j, rowG8 = 2 * j + 1;
  return {{2 * rowG, 2 * rowG8, 2 * rowG + 1, 2 * rowG8 + 1},
          {2 * j, 2 * j + 1}};
}
