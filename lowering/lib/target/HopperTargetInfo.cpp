//===- HopperTargetInfo.cpp - sm_90a and sm_90 (H100/H200) ----------------===//
//
// One Hopper chip, two code-object targets: `sm_90a` may use the
// architecture-specific features (wgmma, setmaxnreg), whose PTX only runs on
// sm_90 itself; `sm_90` is the portable fallback. ptxas refuses sm_90a PTX for
// sm_90, so they are separate code objects, and the runtime prefers sm_90a.
//
//===----------------------------------------------------------------------===//

#include "AsyncCopy.h"
#include "HopperMmaSync.h"
#include "HopperWgmma.h"
#include "TargetInfoImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessel;

namespace {

class HopperTargetInfo : public TargetInfo {
public:
  explicit HopperTargetInfo(HopperVariant variant) : variant(variant) {}

  StringRef name() const override { return chip(); }
  Vendor vendor() const override { return Vendor::NVIDIA; }
  StringRef triple() const override { return "nvptx64-nvidia-cuda"; }
  StringRef chip() const override {
    return variant == HopperVariant::ArchSpecific ? "sm_90a" : "sm_90";
  }
  bool hasArchSpecificFeatures() const override {
    return variant == HopperVariant::ArchSpecific;
  }
  // PTX 8.4 is the first ISA version with dense e4m3 mma.sync on sm_90.
  StringRef features() const override { return "+ptx84"; }
  unsigned waveSize() const override { return 32; }
  unsigned maxVectorBytes() const override { return 16; }
  unsigned maxWorkgroupSize() const override { return 1024; }
  unsigned registersPerLane() const override { return 255; }
  // The static `.shared` limit; 227 KiB would need dynamic shared memory.
  unsigned ldsBytesPerWorkgroup() const override { return 48 * 1024; }
  unsigned ldsBankRowBytes() const override { return 128; }
  StringRef deviceSyncScope() const override { return "device"; }
  // nanosleep of 100 ns: of the order of one L2 round trip.
  void emitSpinBackoff(OpBuilder &b, Location loc) const override {
    Value ns = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(100));
    NVVM::NanosleepOp::create(b, loc, ns);
  }
  // shfl and ld/st.shared share the MIO/LSU pipe: partial sums written once
  // and read once cost fewer of its cycles than a shuffle per result.
  unsigned laneReduceScratchBytes() const override { return 8 * 1024; }
  // Global to shared memory without registers: cp.async.
  void emitAsyncCopy(OpBuilder &b, Location loc, Value src, Value srcIdx,
                     Value dst, Value dstIdx, int64_t elems,
                     Value pred) const override {
    emitCpAsync(b, loc, src, srcIdx, dst, dstIdx, elems, pred);
  }
  void emitAsyncCommitGroup(OpBuilder &b, Location loc) const override {
    emitCpAsyncCommitGroup(b, loc);
  }
  void emitAsyncWait(OpBuilder &b, Location loc,
                     unsigned pending) const override {
    emitCpAsyncWaitGroup(b, loc, pending);
  }
  // Completion barriers: mbarriers that cp.async arrives on.
  bool hasAsyncCopyBarriers() const override { return true; }
  void emitAsyncBarrierInit(OpBuilder &b, Location loc, Value addr,
                            unsigned arrivals) const override {
    emitMbarrierInit(b, loc, addr, arrivals);
  }
  void emitAsyncBarrierArrive(OpBuilder &b, Location loc,
                              Value addr) const override {
    emitCpAsyncMbarrierArrive(b, loc, addr);
  }
  void emitAsyncBarrierWait(OpBuilder &b, Location loc, Value addr,
                            Value parity) const override {
    emitMbarrierWaitParity(b, loc, addr, parity);
  }
  Type fp8Type(MLIRContext *ctx) const override {
    return Float8E4M3FNType::get(ctx);
  }
  double fp8Max() const override { return 448.0; }
  // sm_90a prefers wgmma (HopperWgmma.cpp), which reads its operands from
  // shared memory, where the dot's shape and num_waves allow; mma.sync
  // serves the rest and all of sm_90.
  SmallVector<MatrixInstr> matrixInstrs(MLIRContext *ctx) const override {
    SmallVector<MatrixInstr> out;
    if (hasArchSpecificFeatures())
      out.append(hopper::wgmmaInstrs(ctx));
    out.append(hopper::mmaSyncInstrs(ctx));
    return out;
  }
  Attribute matrixAccEncoding(MLIRContext *ctx, const MatrixInstr &instr,
                              unsigned wavesM, unsigned wavesN,
                              bool /*transposed*/) const override {
    if (instr.operandSource == MatrixOperandSource::SharedMemory)
      return hopper::wgmmaAccEncoding(ctx, instr, wavesM, wavesN);
    return hopper::mmaSyncAccEncoding(ctx, instr, wavesM, wavesN);
  }
  FailureOr<MatrixInstr> matrixInstrOf(Attribute acc, Type operandType,
                                       std::string *why) const override {
    if (!hopper::isWgmmaAcc(acc))
      return hopper::mmaSyncInstrOf(name(), acc, operandType, why);
    if (!hasArchSpecificFeatures()) {
      if (why)
        *why =
            "wgmma (#tile.nv_mma version 3) needs sm_90a, not " + name().str();
      return failure();
    }
    return hopper::wgmmaInstrOf(acc, operandType, why);
  }

  //===--- mma.sync: tile.dot on both variants (HopperMmaSync.h) ----------===//
  Attribute matrixOperandEncoding(Attribute acc, unsigned opIdx,
                                  const MatrixInstr &instr,
                                  int64_t /*dotK*/) const override {
    return hopper::mmaSyncOperandEncoding(acc, opIdx, instr);
  }
  Value emitMatrixOperandConversion(OpBuilder &b, Location loc,
                                    const MatrixInstr &instr,
                                    Value operand) const override {
    return hopper::convertMmaSyncOperand(b, loc, instr, operand);
  }
  Value emitMatrixInstr(OpBuilder &b, Location loc, const MatrixInstr &instr,
                        Attribute /*accEncoding*/, Value a, Value bv,
                        Value acc) const override {
    return hopper::emitMmaSync(b, loc, instr, a, bv, acc);
  }
  // End of mma.sync.

  // wgmma (sm_90a): operands from shared memory (HopperWgmma.cpp).
  Value emitSharedMatrixDescriptor(OpBuilder &b, Location loc, Value addr,
                                   unsigned swizzleBytes,
                                   int64_t groupBytes) const override {
    return hopper::emitWgmmaDescriptor(b, loc, addr, swizzleBytes, groupBytes);
  }
  void emitSharedMatrixOperandsWritten(OpBuilder &b,
                                       Location loc) const override {
    hopper::emitAsyncProxyFence(b, loc);
  }
  void emitSharedMatrixBegin(OpBuilder &b, Location loc) const override {
    hopper::emitWgmmaFence(b, loc);
  }
  Value emitSharedMatrixInstrs(OpBuilder &b, Location loc,
                               const MatrixInstr &instr,
                               ArrayRef<std::pair<Value, Value>> steps,
                               Value acc) const override {
    return hopper::emitWgmmas(b, loc, instr, steps, acc);
  }
  void emitSharedMatrixEnd(OpBuilder &b, Location loc,
                           bool async) const override {
    hopper::emitWgmmaCommit(b, loc);
    if (!async)
      hopper::emitWgmmaWait(b, loc, 0);
  }
  SmallVector<Value> emitMatrixWait(OpBuilder &b, Location loc,
                                    unsigned pending,
                                    ValueRange values) const override {
    if (!hasArchSpecificFeatures()) // mma.sync completes in order
      return SmallVector<Value>(values);
    hopper::emitWgmmaWait(b, loc, pending);
    return hopper::emitRegisterTie(b, loc, values);
  }
  // End of wgmma.

  Value emitLaneGroupReduce(OpBuilder &b, Location loc, Value v,
                            CombineKind kind, unsigned firstBit,
                            unsigned numBits) const override {
    for (unsigned bit = firstBit; bit < firstBit + numBits; ++bit) {
      Value other =
          shuffle(b, loc, v, i32Const(b, loc, 1 << bit), gpu::ShuffleMode::XOR);
      v = emitCombine(b, loc, kind, v, other);
    }
    return v;
  }

  Value emitLaneGroupInclusiveScan(OpBuilder &b, Location loc, Value v,
                                   CombineKind kind, unsigned firstBit,
                                   unsigned numBits) const override {
    // Hillis-Steele with shfl.up: step s combines with the lane 2^s
    // positions earlier in the group, where there is one.
    Value lane = emitLaneId(b, loc);
    Value field = emitLaneBitField(b, loc, lane, firstBit, numBits);
    for (unsigned s = 0; s < numBits; ++s) {
      int32_t dist = 1 << (firstBit + s);
      Value up =
          shuffle(b, loc, v, i32Const(b, loc, dist), gpu::ShuffleMode::UP);
      Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        field, i32Const(b, loc, 1 << s));
      v = arith::SelectOp::create(b, loc, has, emitCombine(b, loc, kind, v, up),
                                  v);
    }
    return v;
  }

  Value emitLaneShuffle(OpBuilder &b, Location loc, Value v,
                        Value srcLane) const override {
    return shuffle(b, loc, v, srcLane, gpu::ShuffleMode::IDX);
  }

  // match.any.sync: the peers of a value in one instruction.
  bool hasMatchAny() const override { return true; }

  Value emitMatchAny(OpBuilder &b, Location loc, Value v,
                     Value members) const override {
    Type i32 = b.getI32Type();
    Value mask = arith::TruncIOp::create(b, loc, i32, members);
    Value peers = NVVM::MatchSyncOp::create(b, loc, i32, mask, v,
                                            NVVM::MatchSyncKind::any);
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), peers);
  }

  Value emitWaveBallot(OpBuilder &b, Location loc, Value pred) const override {
    Value all = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
    Value bits = NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), all, pred,
                                          NVVM::VoteSyncKind::ballot);
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), bits);
  }

  // popc of the ballot under the mask of the lanes below.
  Value emitCountBelow(OpBuilder &b, Location loc, Value mask, Value lane,
                       Value base) const override {
    Type i64 = b.getI64Type();
    Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
    Value below = arith::SubIOp::create(
        b, loc,
        arith::ShLIOp::create(b, loc, one,
                              arith::ExtUIOp::create(b, loc, i64, lane)),
        one);
    Value bits = math::CtPopOp::create(
        b, loc, arith::AndIOp::create(b, loc, mask, below));
    return arith::AddIOp::create(
        b, loc, arith::TruncIOp::create(b, loc, b.getI32Type(), bits), base);
  }

private:
  static Value i32Const(OpBuilder &b, Location loc, int32_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }

  /// shfl.sync over the whole warp, one 32-bit word at a time.
  static Value shuffle(OpBuilder &b, Location loc, Value v, Value offset,
                       gpu::ShuffleMode mode) {
    Value width = i32Const(b, loc, 32);
    return emitPerLaneWord(b, loc, v, [&](ValueRange w) {
      return gpu::ShuffleOp::create(b, loc, w[0], offset, width, mode)
          .getShuffleResult();
    });
  }

  HopperVariant variant;
};

} // namespace

std::unique_ptr<TargetInfo>
tessel::createHopperTargetInfo(HopperVariant variant) {
  return std::make_unique<HopperTargetInfo>(variant);
}
