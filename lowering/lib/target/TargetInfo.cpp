//===- TargetInfo.cpp - Target lookup -------------------------------------===//

#include "tessel/Lowering/TargetInfo.h"

#include "TargetInfoImpl.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessel;

std::unique_ptr<TargetInfo> TargetInfo::create(llvm::StringRef name) {
  if (name == "gfx942")
    return createCDNATargetInfo(CDNAGeneration::CDNA3);
  if (name == "gfx950")
    return createCDNATargetInfo(CDNAGeneration::CDNA4);
  if (name == "sm_90a")
    return createHopperTargetInfo(HopperVariant::ArchSpecific);
  if (name == "sm_90")
    return createHopperTargetInfo(HopperVariant::Portable);
  return nullptr;
}

llvm::StringRef TargetInfo::supportedTargets() {
  return "gfx942, gfx950, sm_90a, sm_90";
}

bool TargetInfo::crossesLanes(mlir::Type t) const {
  if (!t.isIntOrFloat())
    return false;
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits == kLaneMoveBits || bits == 2 * kLaneMoveBits;
}

llvm::FailureOr<MatrixInstr>
TargetInfo::selectMatrixInstr(mlir::Type a, mlir::Type b, mlir::Type acc,
                              int64_t m, int64_t n, int64_t k, std::string *why,
                              unsigned numWaves) const {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  auto fail = [&]() -> llvm::FailureOr<MatrixInstr> {
    if (why)
      *why = msg;
    return llvm::failure();
  };
  llvm::SmallVector<MatrixInstr> instrs = matrixInstrs(a.getContext());
  if (instrs.empty()) {
    os << "tile.dot is not lowered on " << name()
       << " yet: it has no matrix instruction table";
    return fail();
  }
  if (a != b) {
    os << "tile.dot operands must have one element type, got " << a << " and "
       << b;
    return fail();
  }
  if (!acc.isF32()) {
    os << "tile.dot accumulates in f32 on " << name() << ", got " << acc;
    return fail();
  }
  bool typeKnown = false;
  for (const MatrixInstr &instr : instrs) {
    if (instr.operandType != a)
      continue;
    typeKnown = true;
    if (m % instr.m == 0 && n % instr.n == 0 && k % instr.k == 0 &&
        (numWaves == 0 || numWaves % instr.wavesPerInstr == 0))
      return instr;
  }
  if (!typeKnown) {
    os << "no matrix instruction of " << name() << " takes " << a
       << " operands (supported:";
    llvm::SmallVector<mlir::Type> seen;
    for (const MatrixInstr &instr : instrs)
      if (!llvm::is_contained(seen, instr.operandType)) {
        seen.push_back(instr.operandType);
        os << " " << instr.operandType;
      }
    os << ")";
    return fail();
  }
  os << "no matrix instruction of " << name() << " for " << a << " tiles " << m
     << "x" << n << "x" << k << " (MxNxK): supported shapes are";
  for (const MatrixInstr &instr : instrs)
    if (instr.operandType == a)
      os << " " << instr.m << "x" << instr.n << "x" << instr.k;
  os << ", and the tile must be a multiple of one";
  for (const MatrixInstr &instr : instrs)
    if (instr.operandType == a && instr.wavesPerInstr > 1 && numWaves &&
        numWaves % instr.wavesPerInstr) {
      os << " (" << instr.m << "x" << instr.n << "x" << instr.k << " needs "
         << "num_waves a multiple of " << instr.wavesPerInstr << ", got "
         << numWaves << ")";
      break;
    }
  return fail();
}

llvm::FailureOr<MatrixInstr>
TargetInfo::matrixInstrOf(mlir::Attribute, mlir::Type, std::string *why) const {
  if (why)
    *why = ("tile.dot is not lowered on " + name() + " yet").str();
  return llvm::failure();
}

mlir::Value TargetInfo::emitMatrixInstr(mlir::OpBuilder &, mlir::Location,
                                        const MatrixInstr &, mlir::Attribute,
                                        mlir::Value, mlir::Value,
                                        mlir::Value) const {
  // Only reached with an instruction of matrixInstrs(), which is empty here.
  return {};
}

llvm::FailureOr<MatrixInstr>
tessel::findMatrixInstr(llvm::ArrayRef<MatrixInstr> instrs,
                        llvm::ArrayRef<unsigned> shape, mlir::Type operandType,
                        llvm::StringRef family, llvm::StringRef target,
                        std::string *why) {
  for (const MatrixInstr &i : instrs)
    if (shape.size() == 3 && i.m == shape[0] && i.n == shape[1] &&
        i.k == shape[2] && i.operandType == operandType)
      return i;
  if (why) {
    llvm::raw_string_ostream os(*why);
    os << "no " << family << " of " << target << " has shape ";
    llvm::interleave(shape, os, "x");
    os << " with " << operandType << " operands";
  }
  return llvm::failure();
}
