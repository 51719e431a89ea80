//===- Compiler.cpp - SIMT IR to emulator instructions --------------------===//
//
// Compiles each gpu.func kernel once into the flat instruction list of
// Program.h. All op-kind dispatch happens here, at load time; execution only
// calls the resolved handler of each instruction.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include "tessel/Emulator/Emulator.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

using namespace mlir;
using namespace tessel::emu::detail;
using EOp = tessel::emu::detail::Op;

namespace tessel::emu {

namespace {

struct ElemTy {
  bool isFloat = false;
  FK fk = FK::F32;
  unsigned width = 0; // bits
  bool ok = false;
};

ElemTy elemOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    if (v.isScalable() || v.getNumElements() == 0)
      return ElemTy();
  t = getElementTypeOrSelf(t);
  ElemTy e;
  e.ok = true;
  if (t.isIndex() || isa<LLVM::LLVMPointerType>(t)) {
    // Pointers (pointerOp) are 64-bit addresses.
    e.width = 64;
  } else if (auto it = dyn_cast<IntegerType>(t)) {
    e.width = it.getWidth();
    e.ok = e.width >= 1 && e.width <= 64;
  } else if (isa<Float16Type>(t)) {
    e = {true, FK::F16, 16, true};
  } else if (isa<BFloat16Type>(t)) {
    e = {true, FK::BF16, 16, true};
  } else if (isa<Float32Type>(t)) {
    e = {true, FK::F32, 32, true};
  } else if (isa<Float64Type>(t)) {
    e = {true, FK::F64, 64, true};
  } else if (isa<Float8E4M3FNType>(t)) {
    e = {true, FK::E4M3FN, 8, true};
  } else if (isa<Float8E4M3FNUZType>(t)) {
    e = {true, FK::E4M3FNUZ, 8, true};
  } else if (isa<Float8E5M2Type>(t)) {
    e = {true, FK::E5M2, 8, true};
  } else if (isa<Float8E5M2FNUZType>(t)) {
    e = {true, FK::E5M2FNUZ, 8, true};
  } else {
    e.ok = false;
  }
  return e;
}

unsigned numElems(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return (unsigned)v.getNumElements();
  return 1;
}

/// The file:line:col inside `loc`: the first FileLineColLoc found looking
/// through fused, call-site (callee first), name and opaque locations.
std::optional<std::string> fileLineCol(Location loc) {
  auto fl = loc->findInstanceOf<FileLineColLoc>();
  if (!fl)
    return std::nullopt;
  return fl.getFilename().str() + ":" + std::to_string(fl.getLine()) + ":" +
         std::to_string(fl.getColumn());
}

std::string locString(Location loc) {
  if (std::optional<std::string> s = fileLineCol(loc))
    return *s;
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// Where `op` comes from. SIMT IR printed with its source locations
/// (tessel::printSimt) leaves some ops, such as constants the lowering
/// creates, with an unknown location; they are named by the nearest enclosing
/// op that has one.
std::string locString(Operation *op) {
  for (Operation *o = op; o; o = o->getParentOp())
    if (std::optional<std::string> s = fileLineCol(o->getLoc()))
      return *s;
  return locString(op->getLoc());
}

bool isWorkgroupSpace(Attribute ms) {
  if (auto a = dyn_cast_or_null<gpu::AddressSpaceAttr>(ms))
    return a.getValue() == gpu::AddressSpace::Workgroup;
  if (auto i = dyn_cast_or_null<IntegerAttr>(ms))
    return i.getInt() == 3;
  return false;
}

class KernelCompiler {
public:
  KernelCompiler(gpu::GPUFuncOp fn, Kernel &K) : fn(fn), K(K) {}

  LogicalResult run();
  std::string error;

private:
  gpu::GPUFuncOp fn;
  Kernel &K;
  llvm::DenseMap<Value, uint32_t> slots, mrefs;

  LogicalResult fail(Operation *op, const llvm::Twine &msg) {
    if (error.empty())
      error = locString(op) + ": '" + op->getName().getStringRef().str() +
              "': " + msg.str();
    return failure();
  }
  uint32_t locOf(Operation *op) {
    K.locs.push_back(locString(op) + ": '" +
                     op->getName().getStringRef().str() + "'");
    return (uint32_t)K.locs.size() - 1;
  }
  uint32_t alloc(unsigned n) {
    uint32_t s = K.numSlots;
    K.numSlots += n;
    return s;
  }
  uint32_t def(Value v) {
    uint32_t s = alloc(numElems(v.getType()));
    slots[v] = s;
    return s;
  }
  FailureOr<uint32_t> use(Operation *op, Value v) {
    auto it = slots.find(v);
    if (it == slots.end())
      return fail(op, "operand is not a value the emulator can hold (type " +
                          llvm::Twine(typeStr(v.getType())) + ")");
    return it->second;
  }
  FailureOr<uint32_t> muse(Operation *op, Value v) {
    auto it = mrefs.find(v);
    if (it == mrefs.end())
      return fail(op, "memref operand is not a kernel argument, LDS buffer or "
                      "view of one");
    return it->second;
  }
  uint32_t mdef(Value v) {
    uint32_t m = K.numMRefs++;
    mrefs[v] = m;
    return m;
  }
  static std::string typeStr(Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return s;
  }
  Inst &emit(Handler h, Operation *op) {
    Inst I;
    I.fn = h;
    I.loc = op ? locOf(op) : 0;
    K.code.push_back(I);
    return K.code.back();
  }
  uint32_t pc() const { return (uint32_t)K.code.size(); }
  uint32_t auxPush(llvm::ArrayRef<int64_t> v) {
    uint32_t x = (uint32_t)K.aux.size();
    K.aux.insert(K.aux.end(), v.begin(), v.end());
    return x;
  }

  using TermFn = std::function<LogicalResult(Operation *)>;
  LogicalResult compileBlock(Block &b, const TermFn &term);
  LogicalResult compileOp(Operation *op);
  LogicalResult constant(arith::ConstantOp op);
  LogicalResult scfIf(scf::IfOp op);
  LogicalResult scfFor(scf::ForOp op);
  LogicalResult scfWhile(scf::WhileOp op);
  LogicalResult parallelCopy(Operation *op, ValueRange from,
                             llvm::ArrayRef<uint32_t> to, bool masked);
  LogicalResult memAccess(Operation *op, Handler h, Value memref,
                          ValueRange indices, uint32_t n, uint32_t valueSlot,
                          uint32_t dst);
  LogicalResult mfma(amdgpu::MFMAOp op);
  LogicalResult pointerOp(Operation *op);
  LogicalResult bufferOp(Operation *op);
};

LogicalResult KernelCompiler::parallelCopy(Operation *op, ValueRange from,
                                           llvm::ArrayRef<uint32_t> to,
                                           bool masked) {
  llvm::SmallVector<uint32_t> src;
  bool hazard = false;
  for (auto [i, v] : llvm::enumerate(from)) {
    auto s = use(op, v);
    if (failed(s))
      return failure();
    src.push_back(*s);
  }
  for (size_t i = 0; i < src.size(); ++i)
    for (size_t j = 0; j < to.size(); ++j)
      if (i != j && src[i] == to[j])
        hazard = true;
  for (size_t i = 0; i < src.size(); ++i) {
    if (hazard) {
      uint32_t n = numElems(from[i].getType());
      uint32_t t = alloc(n);
      Inst &I = emit(copyH(), op);
      I.d = t, I.a = src[i], I.n = n;
      src[i] = t;
    }
  }
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] == to[i])
      continue;
    Inst &I = emit(masked ? maskedCopyH() : copyH(), op);
    I.d = to[i], I.a = src[i], I.n = numElems(from[i].getType());
  }
  return success();
}

LogicalResult KernelCompiler::compileBlock(Block &b, const TermFn &term) {
  for (Operation &op : b) {
    if (op.hasTrait<OpTrait::IsTerminator>() && term &&
        !isa<gpu::ReturnOp>(op)) {
      if (failed(term(&op)))
        return failure();
      continue;
    }
    if (failed(compileOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult KernelCompiler::constant(arith::ConstantOp op) {
  Type t = op.getType();
  ElemTy e = elemOf(t);
  if (!e.ok)
    return fail(op, "unsupported constant type " + typeStr(t));
  uint32_t d = def(op.getResult());
  auto bitsOf = [&](Attribute a) -> std::optional<uint64_t> {
    if (auto i = dyn_cast<IntegerAttr>(a))
      return i.getValue().getZExtValue() &
             (e.width >= 64 ? ~0ull : ((1ull << e.width) - 1));
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValue().bitcastToAPInt().getZExtValue();
    if (auto b = dyn_cast<BoolAttr>(a))
      return b.getValue() ? 1 : 0;
    return std::nullopt;
  };
  Attribute v = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(v)) {
    unsigned n = numElems(t);
    if (dense.isSplat()) {
      auto b = bitsOf(dense.getSplatValue<Attribute>());
      if (!b)
        return fail(op, "unsupported constant");
      for (unsigned i = 0; i < n; ++i)
        K.consts.push_back({d + i, *b});
      return success();
    }
    unsigned i = 0;
    for (Attribute a : dense.getValues<Attribute>()) {
      auto b = bitsOf(a);
      if (!b)
        return fail(op, "unsupported constant");
      K.consts.push_back({d + i++, *b});
    }
    return success();
  }
  auto b = bitsOf(v);
  if (!b)
    return fail(op, "unsupported constant attribute");
  K.consts.push_back({d, *b});
  return success();
}

LogicalResult KernelCompiler::scfIf(scf::IfOp op) {
  auto c = use(op, op.getCondition());
  if (failed(c))
    return failure();
  llvm::SmallVector<uint32_t> res;
  for (Value r : op.getResults()) {
    if (!elemOf(r.getType()).ok)
      return fail(op, "unsupported result type " + typeStr(r.getType()));
    res.push_back(def(r));
  }
  auto yieldTo = [&](Operation *t) -> LogicalResult {
    auto y = dyn_cast<scf::YieldOp>(t);
    if (!y)
      return fail(t, "unexpected terminator");
    return parallelCopy(t, y.getOperands(), res, /*masked=*/true);
  };
  uint32_t beginPc = pc();
  Inst &B = emit(ifBeginH(), op);
  B.a = *c;
  if (failed(compileBlock(op.getThenRegion().front(), yieldTo)))
    return failure();
  uint32_t elsePc = pc();
  emit(ifElseH(), op);
  if (!op.getElseRegion().empty())
    if (failed(compileBlock(op.getElseRegion().front(), yieldTo)))
      return failure();
  uint32_t endPc = pc();
  emit(ifEndH(), op);
  K.code[beginPc].i0 = elsePc;
  K.code[elsePc].i0 = endPc;
  return success();
}

LogicalResult KernelCompiler::scfFor(scf::ForOp op) {
  auto lb = use(op, op.getLowerBound()), ub = use(op, op.getUpperBound()),
       st = use(op, op.getStep());
  if (failed(lb) || failed(ub) || failed(st))
    return failure();
  llvm::SmallVector<uint32_t> res;
  Block &body = *op.getBody();
  for (auto [r, arg] : llvm::zip(op.getResults(), op.getRegionIterArgs())) {
    if (!elemOf(r.getType()).ok)
      return fail(op, "unsupported loop-carried type " + typeStr(r.getType()));
    uint32_t s = def(r);
    slots[arg] = s; // iteration arguments live in the result registers
    res.push_back(s);
  }
  if (failed(parallelCopy(op, op.getInitArgs(), res, true)))
    return failure();
  Value ivV = op.getInductionVar();
  uint32_t iv = def(ivV);
  Inst &C = emit(maskedCopyH(), op);
  C.d = iv, C.a = *lb;
  emit(loopPushH(), op);
  uint32_t head = pc();
  Inst &H = emit(forHeadH(), op);
  H.a = iv, H.b = *ub, H.w = elemOf(ivV.getType()).width;
  H.i1 = op.getUnsignedCmp() ? 1 : 0;
  auto yieldTo = [&](Operation *t) -> LogicalResult {
    return parallelCopy(t, t->getOperands(), res, true);
  };
  if (failed(compileBlock(body, yieldTo)))
    return failure();
  Inst &S = emit(forStepH(), op);
  S.a = iv, S.b = *st, S.w = elemOf(ivV.getType()).width, S.i0 = head;
  uint32_t exitPc = pc();
  emit(loopPopH(), op);
  K.code[head].i0 = exitPc;
  return success();
}

LogicalResult KernelCompiler::scfWhile(scf::WhileOp op) {
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  llvm::SmallVector<uint32_t> bargs, aargs, res;
  for (Value a : before.getArguments()) {
    if (!elemOf(a.getType()).ok)
      return fail(op, "unsupported loop-carried type " + typeStr(a.getType()));
    bargs.push_back(def(a));
  }
  for (Value a : after.getArguments())
    aargs.push_back(def(a));
  for (Value r : op.getResults())
    res.push_back(def(r));
  if (failed(parallelCopy(op, op.getInits(), bargs, true)))
    return failure();
  emit(loopPushH(), op);
  uint32_t head = pc();
  uint32_t condPc = 0;
  auto condTo = [&](Operation *t) -> LogicalResult {
    auto c = dyn_cast<scf::ConditionOp>(t);
    if (!c)
      return fail(t, "unexpected terminator");
    if (failed(parallelCopy(t, c.getArgs(), aargs, true)) ||
        failed(parallelCopy(t, c.getArgs(), res, true)))
      return failure();
    auto cs = use(t, c.getCondition());
    if (failed(cs))
      return failure();
    condPc = pc();
    Inst &W = emit(whileCondH(), t);
    W.a = *cs;
    return success();
  };
  if (failed(compileBlock(before, condTo)))
    return failure();
  auto yieldTo = [&](Operation *t) -> LogicalResult {
    return parallelCopy(t, t->getOperands(), bargs, true);
  };
  if (failed(compileBlock(after, yieldTo)))
    return failure();
  Inst &J = emit(jumpBackH(), op);
  J.i0 = head;
  uint32_t exitPc = pc();
  emit(loopPopH(), op);
  K.code[condPc].i0 = exitPc;
  return success();
}

LogicalResult KernelCompiler::memAccess(Operation *op, Handler h, Value memref,
                                        ValueRange indices, uint32_t n,
                                        uint32_t valueSlot, uint32_t dst) {
  auto m = muse(op, memref);
  if (failed(m))
    return failure();
  auto mt = cast<MemRefType>(memref.getType());
  if (mt.getRank() > 4)
    return fail(op, "memrefs of rank > 4 are not supported");
  llvm::SmallVector<int64_t> idx;
  for (Value v : indices) {
    auto s = use(op, v);
    if (failed(s))
      return failure();
    idx.push_back(*s);
  }
  Inst &I = emit(h, op);
  I.a = *m, I.n = n, I.b = valueSlot, I.d = dst;
  I.x = auxPush(idx);
  return success();
}

/// Accesses of global memory through `!llvm.ptr<1>` (tile.grid_barrier's
/// scoped atomics): addresses are i64 slots, each access is checked against
/// the launch's buffers when it runs. The emulator runs one lane at a time,
/// so every ordering and scope holds, and fences are no-ops.
LogicalResult KernelCompiler::pointerOp(Operation *op) {
  auto isGlobalPtr = [](Type t) {
    auto p = dyn_cast<LLVM::LLVMPointerType>(t);
    return p && p.getAddressSpace() == 1;
  };
  auto wordBytes = [&](Type t) -> FailureOr<uint32_t> {
    if (t.isInteger(32) || t.isInteger(64))
      return t.getIntOrFloatBitWidth() / 8;
    return fail(op, "only i32 and i64 accesses through a pointer are "
                    "supported, got " +
                        typeStr(t));
  };
  if (isa<LLVM::FenceOp>(op))
    return success();
  if (auto e = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
    if (isWorkgroupSpace(e.getSource().getType().getMemorySpace()))
      return fail(op, "the address of an LDS buffer is not supported");
    auto m = muse(op, e.getSource());
    if (failed(m))
      return failure();
    Inst &I = emit(alignedPointerH(), op);
    I.a = *m, I.d = def(e.getResult());
    return success();
  }
  if (auto c = dyn_cast<LLVM::IntToPtrOp>(op)) {
    if (!isGlobalPtr(c.getType()) || !c.getArg().getType().isInteger(64))
      return fail(op, "only i64 to !llvm.ptr<1> (global) is supported");
    auto a = use(op, c.getArg());
    if (failed(a))
      return failure();
    Inst &I = emit(copyH(), op);
    I.a = *a, I.d = def(c.getResult()), I.n = 1;
    return success();
  }
  if (auto l = dyn_cast<LLVM::LoadOp>(op)) {
    auto bytes = wordBytes(l.getType());
    auto a = use(op, l.getAddr());
    if (failed(bytes) || failed(a))
      return failure();
    if (!isGlobalPtr(l.getAddr().getType()))
      return fail(op, "only loads from global pointers are supported");
    Inst &I = emit(pointerLoadH(), op);
    I.a = *a, I.d = def(l.getResult()), I.i1 = *bytes;
    return success();
  }
  if (auto st = dyn_cast<LLVM::StoreOp>(op)) {
    auto bytes = wordBytes(st.getValue().getType());
    auto a = use(op, st.getAddr()), v = use(op, st.getValue());
    if (failed(bytes) || failed(a) || failed(v))
      return failure();
    if (!isGlobalPtr(st.getAddr().getType()))
      return fail(op, "only stores to global pointers are supported");
    Inst &I = emit(pointerStoreH(), op);
    I.a = *a, I.b = *v, I.i1 = *bytes;
    return success();
  }
  auto rmw = cast<LLVM::AtomicRMWOp>(op);
  auto bytes = wordBytes(rmw.getVal().getType());
  auto a = use(op, rmw.getPtr()), v = use(op, rmw.getVal());
  if (failed(bytes) || failed(a) || failed(v))
    return failure();
  if (!isGlobalPtr(rmw.getPtr().getType()))
    return fail(op, "only atomics on global pointers are supported");
  // The kinds' codes are applyAtomic's (those of memref.atomic_rmw).
  uint32_t kind;
  switch (rmw.getBinOp()) {
  case LLVM::AtomicBinOp::add:
    kind = 1;
    break;
  case LLVM::AtomicBinOp::xchg:
    kind = 2;
    break;
  case LLVM::AtomicBinOp::max:
    kind = 4;
    break;
  case LLVM::AtomicBinOp::umax:
    kind = 5;
    break;
  case LLVM::AtomicBinOp::min:
    kind = 7;
    break;
  case LLVM::AtomicBinOp::umin:
    kind = 8;
    break;
  case LLVM::AtomicBinOp::_or:
    kind = 11;
    break;
  case LLVM::AtomicBinOp::_and:
    kind = 12;
    break;
  case LLVM::AtomicBinOp::_xor:
    kind = 15;
    break;
  default:
    return fail(op, "unsupported atomicrmw kind (supported: add, xchg, max, "
                    "umax, min, umin, or, and, xor)");
  }
  Inst &I = emit(pointerAtomicH(), op);
  I.a = *a, I.b = *v, I.d = def(rmw.getRes()), I.w = kind, I.i1 = *bytes;
  return success();
}

LogicalResult KernelCompiler::mfma(amdgpu::MFMAOp op) {
  auto a = use(op, op.getSourceA()), b = use(op, op.getSourceB()),
       c = use(op, op.getDestC());
  if (failed(a) || failed(b) || failed(c))
    return failure();
  unsigned M = op.getM(), N = op.getN(), Kd = op.getK();
  if (op.getBlocks() != 1 || op.getCbsz() != 0 || op.getAbid() != 0 ||
      op.getBlgp() != amdgpu::MFMAPermB::none || op.getNegateA() ||
      op.getNegateB() || op.getNegateC() || op.getReducePrecision())
    return fail(op, "only blocks = 1 without cbsz/abid/blgp/negate modifiers "
                    "is supported");
  auto va = dyn_cast<VectorType>(op.getSourceA().getType());
  auto vb = dyn_cast<VectorType>(op.getSourceB().getType());
  auto vc = dyn_cast<VectorType>(op.getDestC().getType());
  if (!va || !vb || !vc || !isa<Float32Type>(vc.getElementType()))
    return fail(op, "unsupported mfma operand types");
  ElemTy ea = elemOf(va), eb = elemOf(vb);
  unsigned lenA = (unsigned)va.getNumElements(),
           lenB = (unsigned)vb.getNumElements();
  bool fp8 = ea.isFloat && eb.isFloat && ea.width == 8 && eb.width == 8;
  bool half = ea.isFloat && eb.isFloat && ea.width == 16 && eb.width == 16 &&
              ea.fk == eb.fk;
  // gfx950's double-rate fp8 (v_mfma_f32_*_f8f6f4); e4m3fn A and B only
  // (CBSZ = BLGP = 0), whose layout the tests check.
  bool f8f6f4 =
      fp8 && lenA == 32 && lenB == 32 &&
      ((M == 16 && N == 16 && Kd == 128) || (M == 32 && N == 32 && Kd == 64));
  bool okShape =
      (fp8 && lenA == 8 && lenB == 8 &&
       ((M == 16 && N == 16 && Kd == 32) ||
        (M == 32 && N == 32 && Kd == 16))) ||
      (f8f6f4 && ea.fk == FK::E4M3FN && eb.fk == FK::E4M3FN) ||
      (half && lenA == 4 && lenB == 4 &&
       ((M == 16 && N == 16 && Kd == 16) || (M == 32 && N == 32 && Kd == 8)));
  if (!okShape || (unsigned)vc.getNumElements() != M * N / 64)
    return fail(op, "unsupported mfma variant " + std::to_string(M) + "x" +
                        std::to_string(N) + "x" + std::to_string(Kd) +
                        " with operands " + typeStr(va) + ", " + typeStr(vb) +
                        " (supported: fp8 16x16x32 and 32x32x16, bf16/f16 "
                        "16x16x16 and 32x32x8, and on gfx950 16x16x128 and "
                        "32x32x64 with vector<32xf8E4M3FN> operands)");
  if (f8f6f4) {
    auto t = fn->getAttrOfType<StringAttr>("tessel.target");
    if (t && t.getValue() != "gfx950")
      return fail(op, "amdgpu.mfma " + std::to_string(M) + "x" +
                          std::to_string(N) + "x" + std::to_string(Kd) +
                          " (v_mfma_f32_" + std::to_string(M) + "x" +
                          std::to_string(N) + "x" + std::to_string(Kd) +
                          "_f8f6f4) exists on gfx950 (CDNA4) only, but the "
                          "kernel's tessel.target is " +
                          t.getValue().str());
  }
  uint32_t d = def(op.getResult());
  Inst &I = emit(mfmaH(), op);
  I.a = *a, I.b = *b, I.c = *c, I.d = d, I.n = vc.getNumElements();
  I.x = auxPush({(int64_t)M, (int64_t)N, (int64_t)Kd, (int64_t)ea.fk,
                 (int64_t)eb.fk, (int64_t)lenA, (int64_t)lenB});
  return success();
}

LogicalResult KernelCompiler::bufferOp(Operation *op) {
  auto getOffsets = [&](Inst &I, std::optional<uint32_t> idxOff,
                        Value sgpr) -> LogicalResult {
    I.i0 = idxOff ? *idxOff : 0;
    if (sgpr) {
      auto s = use(op, sgpr);
      if (failed(s))
        return failure();
      I.b = *s;
      I.i1 = 1;
    }
    return success();
  };
  if (auto ld = dyn_cast<amdgpu::RawBufferLoadOp>(op)) {
    uint32_t d = def(ld.getResult());
    if (failed(memAccess(op, bufLoadH(), ld.getMemref(), ld.getIndices(),
                         numElems(ld.getResult().getType()), 0, d)))
      return failure();
    return getOffsets(K.code.back(), ld.getIndexOffset(), ld.getSgprOffset());
  }
  if (auto st = dyn_cast<amdgpu::RawBufferStoreOp>(op)) {
    auto v = use(op, st.getValue());
    if (failed(v) ||
        failed(memAccess(op, bufStoreH(), st.getMemref(), st.getIndices(),
                         numElems(st.getValue().getType()), 0, 0)))
      return failure();
    K.code.back().c = *v;
    return getOffsets(K.code.back(), st.getIndexOffset(), st.getSgprOffset());
  }
  // Atomics: kind code (see Interp.cpp AK_*), 100 = cmpswap.
  uint32_t kind;
  Value value, memref, sgpr, cmp;
  ValueRange indices;
  std::optional<uint32_t> idxOff;
  if (auto a = dyn_cast<amdgpu::RawBufferAtomicFaddOp>(op)) {
    kind = 0, value = a.getValue(), memref = a.getMemref(),
    indices = a.getIndices(), idxOff = a.getIndexOffset(),
    sgpr = a.getSgprOffset();
  } else if (auto a = dyn_cast<amdgpu::RawBufferAtomicFmaxOp>(op)) {
    kind = 13, value = a.getValue(), memref = a.getMemref(),
    indices = a.getIndices(), idxOff = a.getIndexOffset(),
    sgpr = a.getSgprOffset();
  } else if (auto a = dyn_cast<amdgpu::RawBufferAtomicSmaxOp>(op)) {
    kind = 4, value = a.getValue(), memref = a.getMemref(),
    indices = a.getIndices(), idxOff = a.getIndexOffset(),
    sgpr = a.getSgprOffset();
  } else if (auto a = dyn_cast<amdgpu::RawBufferAtomicUminOp>(op)) {
    kind = 8, value = a.getValue(), memref = a.getMemref(),
    indices = a.getIndices(), idxOff = a.getIndexOffset(),
    sgpr = a.getSgprOffset();
  } else if (auto a = dyn_cast<amdgpu::RawBufferAtomicCmpswapOp>(op)) {
    kind = 100, value = a.getSrc(), cmp = a.getCmp(), memref = a.getMemref(),
    indices = a.getIndices(), idxOff = a.getIndexOffset(),
    sgpr = a.getSgprOffset();
  } else {
    return fail(op, "unsupported raw buffer op");
  }
  auto v = use(op, value);
  if (failed(v))
    return failure();
  uint32_t d = op->getNumResults() ? def(op->getResult(0)) : ~0u;
  if (failed(memAccess(op, bufAtomicH(), memref, indices, 1, 0, d)))
    return failure();
  Inst &I = K.code.back();
  ElemTy e = elemOf(value.getType());
  I.c = *v, I.w = kind;
  K.aux.push_back((int64_t)e.fk);
  K.aux.push_back(e.width);
  if (cmp) {
    auto cs = use(op, cmp);
    if (failed(cs))
      return failure();
    I.i2 = *cs;
  }
  return getOffsets(I, idxOff, sgpr);
}

std::optional<EOp> intBinOp(StringRef n) {
  return llvm::StringSwitch<std::optional<EOp>>(n)
      .Case("arith.addi", EOp::AddI)
      .Case("arith.subi", EOp::SubI)
      .Case("arith.muli", EOp::MulI)
      .Case("arith.divsi", EOp::DivSI)
      .Case("arith.divui", EOp::DivUI)
      .Case("arith.remsi", EOp::RemSI)
      .Case("arith.remui", EOp::RemUI)
      .Case("arith.ceildivsi", EOp::CeilDivSI)
      .Case("arith.ceildivui", EOp::CeilDivUI)
      .Case("arith.floordivsi", EOp::FloorDivSI)
      .Case("arith.andi", EOp::AndI)
      .Case("arith.ori", EOp::OrI)
      .Case("arith.xori", EOp::XOrI)
      .Case("arith.shli", EOp::ShLI)
      .Case("arith.shrsi", EOp::ShRSI)
      .Case("arith.shrui", EOp::ShRUI)
      .Case("arith.maxsi", EOp::MaxSI)
      .Case("arith.maxui", EOp::MaxUI)
      .Case("arith.minsi", EOp::MinSI)
      .Case("arith.minui", EOp::MinUI)
      .Default(std::nullopt);
}
std::optional<EOp> fltBinOp(StringRef n) {
  return llvm::StringSwitch<std::optional<EOp>>(n)
      .Case("arith.addf", EOp::AddF)
      .Case("arith.subf", EOp::SubF)
      .Case("arith.mulf", EOp::MulF)
      .Case("arith.divf", EOp::DivF)
      .Case("arith.remf", EOp::RemF)
      .Case("arith.maximumf", EOp::MaximumF)
      .Case("arith.minimumf", EOp::MinimumF)
      .Case("arith.maxnumf", EOp::MaxNumF)
      .Case("arith.minnumf", EOp::MinNumF)
      .Case("math.copysign", EOp::CopySign)
      .Case("math.powf", EOp::PowF)
      .Default(std::nullopt);
}
std::optional<EOp> fltUnOp(StringRef n) {
  return llvm::StringSwitch<std::optional<EOp>>(n)
      .Case("arith.negf", EOp::NegF)
      .Case("math.absf", EOp::AbsF)
      .Case("math.exp", EOp::Exp)
      .Case("math.exp2", EOp::Exp2)
      .Case("math.log", EOp::Log)
      .Case("math.log2", EOp::Log2)
      .Case("math.sqrt", EOp::Sqrt)
      .Case("math.rsqrt", EOp::Rsqrt)
      .Case("math.tanh", EOp::Tanh)
      .Case("math.ceil", EOp::Ceil)
      .Case("math.floor", EOp::Floor)
      .Case("math.round", EOp::Round)
      .Case("math.roundeven", EOp::RoundEven)
      .Case("math.trunc", EOp::Trunc)
      .Case("math.sin", EOp::Sin)
      .Case("math.cos", EOp::Cos)
      .Case("math.erf", EOp::Erf)
      .Case("math.log1p", EOp::Log1p)
      .Case("math.expm1", EOp::Expm1)
      .Default(std::nullopt);
}
std::optional<EOp> intUnOp(StringRef n) {
  return llvm::StringSwitch<std::optional<EOp>>(n)
      .Case("math.absi", EOp::AbsI)
      .Case("math.ctpop", EOp::CtPop)
      .Case("math.ctlz", EOp::CtLz)
      .Case("math.cttz", EOp::CtTz)
      .Default(std::nullopt);
}

int64_t cmpITable(arith::CmpIPredicate p, bool &sgn) {
  using P = arith::CmpIPredicate;
  sgn = p == P::slt || p == P::sle || p == P::sgt || p == P::sge;
  switch (p) {
  case P::eq:
    return 0b010;
  case P::ne:
    return 0b101;
  case P::slt:
  case P::ult:
    return 0b001;
  case P::sle:
  case P::ule:
    return 0b011;
  case P::sgt:
  case P::ugt:
    return 0b100;
  case P::sge:
  case P::uge:
    return 0b110;
  }
  return 0;
}
int64_t cmpFTable(arith::CmpFPredicate p) {
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return 0;
  case P::OEQ:
    return 0b0010;
  case P::OGT:
    return 0b0100;
  case P::OGE:
    return 0b0110;
  case P::OLT:
    return 0b0001;
  case P::OLE:
    return 0b0011;
  case P::ONE:
    return 0b0101;
  case P::ORD:
    return 0b0111;
  case P::UEQ:
    return 0b1010;
  case P::UGT:
    return 0b1100;
  case P::UGE:
    return 0b1110;
  case P::ULT:
    return 0b1001;
  case P::ULE:
    return 0b1011;
  case P::UNE:
    return 0b1101;
  case P::UNO:
    return 0b1000;
  case P::AlwaysTrue:
    return 0b1111;
  }
  return 0;
}

LogicalResult KernelCompiler::compileOp(Operation *op) {
  StringRef name = op->getName().getStringRef();
  // Every result must be a value the emulator can hold, except memrefs.
  for (Value r : op->getResults())
    if (!isa<MemRefType>(r.getType()) && !elemOf(r.getType()).ok)
      return fail(op, "unsupported result type " + typeStr(r.getType()));

  auto unary = [&](Handler h, uint32_t w = 0, int64_t i0 = 0) -> LogicalResult {
    if (!h)
      return fail(op, "unsupported element type");
    auto a = use(op, op->getOperand(0));
    if (failed(a))
      return failure();
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(h, op);
    I.a = *a, I.d = d, I.n = numElems(op->getResult(0).getType()), I.w = w,
    I.i0 = i0;
    return success();
  };
  auto binary = [&](Handler h, uint32_t w = 0) -> LogicalResult {
    if (!h)
      return fail(op, "unsupported element type");
    auto a = use(op, op->getOperand(0)), b = use(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(h, op);
    I.a = *a, I.b = *b, I.d = d, I.n = numElems(op->getResult(0).getType()),
    I.w = w;
    return success();
  };

  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return constant(c);
  if (auto o = intBinOp(name)) {
    ElemTy e = elemOf(op->getResult(0).getType());
    if (e.isFloat)
      return fail(op, "integer op on a float type");
    return binary(intBinary(*o), e.width);
  }
  if (auto o = fltBinOp(name)) {
    ElemTy e = elemOf(op->getResult(0).getType());
    if (!e.isFloat || e.width == 8)
      return fail(op, "float arithmetic is supported on f16/bf16/f32/f64");
    return binary(floatBinary(*o, e.fk));
  }
  if (auto o = fltUnOp(name)) {
    ElemTy e = elemOf(op->getResult(0).getType());
    if (!e.isFloat || e.width == 8)
      return fail(op, "float arithmetic is supported on f16/bf16/f32/f64");
    return unary(floatUnary(*o, e.fk));
  }
  if (auto o = intUnOp(name)) {
    ElemTy e = elemOf(op->getResult(0).getType());
    return unary(intUnary(*o), e.width);
  }
  if (isa<math::FmaOp, vector::FMAOp>(op)) {
    ElemTy e = elemOf(op->getResult(0).getType());
    if (!e.isFloat || e.width == 8)
      return fail(op, "unsupported element type");
    auto a = use(op, op->getOperand(0)), b = use(op, op->getOperand(1)),
         c = use(op, op->getOperand(2));
    if (failed(a) || failed(b) || failed(c))
      return failure();
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(floatFma(e.fk), op);
    I.a = *a, I.b = *b, I.c = *c, I.d = d,
    I.n = numElems(op->getResult(0).getType());
    return success();
  }
  if (auto s = dyn_cast<arith::SelectOp>(op)) {
    auto c = use(op, s.getCondition()), a = use(op, s.getTrueValue()),
         b = use(op, s.getFalseValue());
    if (failed(c) || failed(a) || failed(b))
      return failure();
    uint32_t d = def(s.getResult());
    Inst &I = emit(selectH(), op);
    I.a = *c, I.b = *a, I.c = *b, I.d = d, I.n = numElems(s.getType());
    I.i0 = isa<VectorType>(s.getCondition().getType()) ? 1 : 0;
    return success();
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    bool sgn;
    int64_t tt = cmpITable(c.getPredicate(), sgn);
    if (failed(binary(cmpI(), elemOf(c.getLhs().getType()).width)))
      return failure();
    K.code.back().i0 = tt;
    K.code.back().i1 = sgn;
    return success();
  }
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    ElemTy e = elemOf(c.getLhs().getType());
    if (failed(binary(cmpF(e.fk))))
      return failure();
    K.code.back().i0 = cmpFTable(c.getPredicate());
    return success();
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(op)) {
    unsigned ws = elemOf(op->getOperand(0).getType()).width;
    unsigned wd = elemOf(op->getResult(0).getType()).width;
    bool sgn = isa<arith::ExtSIOp, arith::IndexCastOp>(op);
    if (wd < ws)
      return unary(truncI(), ws, wd);
    if (sgn)
      return unary(extSI(), ws, wd);
    return unary(extUI(), ws, wd);
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    if (auto t = dyn_cast<arith::TruncFOp>(op))
      if (t.getRoundingmode() &&
          *t.getRoundingmode() != arith::RoundingMode::to_nearest_even)
        return fail(op, "only round-to-nearest-even truncf is supported");
    ElemTy s = elemOf(op->getOperand(0).getType()),
           d = elemOf(op->getResult(0).getType());
    return unary(convFF(s.fk, d.fk));
  }
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    ElemTy s = elemOf(op->getOperand(0).getType()),
           d = elemOf(op->getResult(0).getType());
    return unary(isa<arith::FPToSIOp>(op) ? fpToSI(s.fk) : fpToUI(s.fk), 0,
                 d.width);
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    ElemTy s = elemOf(op->getOperand(0).getType()),
           d = elemOf(op->getResult(0).getType());
    return unary(isa<arith::SIToFPOp>(op) ? siToFP(d.fk) : uiToFP(d.fk),
                 s.width);
  }
  if (isa<arith::BitcastOp>(op))
    return unary(copyH());

  // ---- gpu ----
  auto special = [&](Special s) -> LogicalResult {
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(specialH(), op);
    I.d = d, I.i0 = (int64_t)s, I.w = elemOf(op->getResult(0).getType()).width;
    return success();
  };
  auto dimIdx = [](gpu::Dimension d) {
    return d == gpu::Dimension::x ? 0 : d == gpu::Dimension::y ? 1 : 2;
  };
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
    return special((Special)((int)Special::TidX + dimIdx(t.getDimension())));
  if (auto t = dyn_cast<gpu::BlockIdOp>(op))
    return special((Special)((int)Special::BidX + dimIdx(t.getDimension())));
  if (auto t = dyn_cast<gpu::BlockDimOp>(op))
    return special((Special)((int)Special::BDimX + dimIdx(t.getDimension())));
  if (auto t = dyn_cast<gpu::GridDimOp>(op))
    return special((Special)((int)Special::GDimX + dimIdx(t.getDimension())));
  if (isa<gpu::LaneIdOp>(op))
    return special(Special::LaneId);
  if (isa<gpu::SubgroupSizeOp>(op))
    return special(Special::SubgroupSize);
  if (isa<gpu::SubgroupIdOp>(op))
    return special(Special::SubgroupId);
  if (isa<gpu::NumSubgroupsOp>(op))
    return special(Special::NumSubgroups);
  if (isa<gpu::BarrierOp, amdgpu::LDSBarrierOp, ROCDL::SBarrierOp,
          NVVM::Barrier0Op>(op)) {
    emit(barrierH(), op);
    return success();
  }
  if (isa<ROCDL::SWaitcntOp, amdgpu::SchedBarrierOp>(op))
    return success(); // no observable effect in a sequential emulator
  if (isa<gpu::ReturnOp>(op)) {
    emit(returnH(), op);
    return success();
  }
  if (auto s = dyn_cast<gpu::ShuffleOp>(op)) {
    auto v = use(op, s.getValue()), o = use(op, s.getOffset()),
         w = use(op, s.getWidth());
    if (failed(v) || failed(o) || failed(w))
      return failure();
    uint32_t d = def(s.getShuffleResult());
    uint32_t valid = def(s.getValid());
    Inst &I = emit(gpuShuffleH(), op);
    I.a = *v, I.b = *o, I.c = *w, I.d = d, I.i1 = valid,
    I.n = numElems(s.getValue().getType());
    switch (s.getMode()) {
    case gpu::ShuffleMode::XOR:
      I.i0 = 0;
      break;
    case gpu::ShuffleMode::UP:
      I.i0 = 1;
      break;
    case gpu::ShuffleMode::DOWN:
      I.i0 = 2;
      break;
    case gpu::ShuffleMode::IDX:
      I.i0 = 3;
      break;
    }
    return success();
  }

  // ---- scf ----
  if (auto o = dyn_cast<scf::IfOp>(op))
    return scfIf(o);
  if (auto o = dyn_cast<scf::ForOp>(op))
    return scfFor(o);
  if (auto o = dyn_cast<scf::WhileOp>(op))
    return scfWhile(o);

  // ---- vector ----
  if (isa<vector::BroadcastOp>(op)) {
    Type st = op->getOperand(0).getType();
    unsigned sn = numElems(st), dn = numElems(op->getResult(0).getType());
    auto a = use(op, op->getOperand(0));
    if (failed(a))
      return failure();
    uint32_t d = def(op->getResult(0));
    if (sn == 1) {
      Inst &I = emit(broadcastH(), op);
      I.a = *a, I.d = d, I.n = dn;
      return success();
    }
    auto sv = cast<VectorType>(st);
    auto dv = cast<VectorType>(op->getResult(0).getType());
    auto dsh = dv.getShape(), ssh = sv.getShape();
    if (ssh.size() > dsh.size() ||
        !std::equal(ssh.begin(), ssh.end(), dsh.end() - ssh.size()))
      return fail(op, "only broadcasts of a scalar or along leading "
                      "dimensions are supported");
    llvm::SmallVector<int64_t> src;
    for (unsigned j = 0; j < dn; ++j)
      src.push_back(*a + j % sn);
    Inst &I = emit(gatherH(), op);
    I.d = d, I.n = dn, I.x = auxPush(src);
    return success();
  }
  if (auto e = dyn_cast<vector::ExtractOp>(op)) {
    auto a = use(op, e.getSource());
    if (failed(a))
      return failure();
    auto vt = cast<VectorType>(e.getSource().getType());
    auto pos = e.getMixedPosition();
    unsigned sub = numElems(e.getResult().getType());
    uint32_t d = def(e.getResult());
    bool dyn = llvm::any_of(pos, [](OpFoldResult f) { return isa<Value>(f); });
    if (dyn) {
      if (pos.size() != 1)
        return fail(op, "only a single dynamic position is supported");
      auto p = use(op, cast<Value>(pos[0]));
      if (failed(p))
        return failure();
      Inst &I = emit(extractDynH(), op);
      I.a = *a, I.b = *p, I.d = d, I.n = sub, I.i0 = vt.getShape()[0];
      return success();
    }
    int64_t off = 0, stride = vt.getNumElements();
    for (auto [i, f] : llvm::enumerate(pos)) {
      stride /= vt.getShape()[i];
      int64_t p = cast<IntegerAttr>(cast<Attribute>(f)).getInt();
      if (p < 0 || p >= vt.getShape()[i])
        return fail(op, "static position out of range");
      off += p * stride;
    }
    Inst &I = emit(copyH(), op);
    I.a = *a + (uint32_t)off, I.d = d, I.n = sub;
    return success();
  }
  if (auto e = dyn_cast<vector::InsertOp>(op)) {
    auto a = use(op, e.getDest()), v = use(op, e.getValueToStore());
    if (failed(a) || failed(v))
      return failure();
    auto vt = cast<VectorType>(e.getDest().getType());
    auto pos = e.getMixedPosition();
    unsigned sub = numElems(e.getValueToStore().getType());
    uint32_t d = def(e.getResult());
    bool dyn = llvm::any_of(pos, [](OpFoldResult f) { return isa<Value>(f); });
    if (dyn) {
      if (pos.size() != 1)
        return fail(op, "only a single dynamic position is supported");
      auto p = use(op, cast<Value>(pos[0]));
      if (failed(p))
        return failure();
      Inst &I = emit(insertDynH(), op);
      I.a = *a, I.b = *p, I.c = *v, I.d = d, I.n = sub, I.i0 = vt.getShape()[0];
      return success();
    }
    int64_t off = 0, stride = vt.getNumElements();
    for (auto [i, f] : llvm::enumerate(pos)) {
      stride /= vt.getShape()[i];
      off += cast<IntegerAttr>(cast<Attribute>(f)).getInt() * stride;
    }
    Inst &C = emit(copyH(), op);
    C.a = *a, C.d = d, C.n = vt.getNumElements();
    Inst &I = emit(copyH(), op);
    I.a = *v, I.d = d + (uint32_t)off, I.n = sub;
    return success();
  }
  if (auto s = dyn_cast<vector::ShuffleOp>(op)) {
    auto a = use(op, s.getV1()), b = use(op, s.getV2());
    if (failed(a) || failed(b))
      return failure();
    auto v1 = cast<VectorType>(s.getV1().getType());
    if (v1.getRank() != 1)
      return fail(op, "only 1-D shuffles are supported");
    int64_t n1 = v1.getNumElements();
    llvm::SmallVector<int64_t> src;
    for (int64_t m : s.getMask())
      src.push_back(m < 0 ? *a : (m < n1 ? *a + m : *b + (m - n1)));
    uint32_t d = def(s.getResult());
    Inst &I = emit(gatherH(), op);
    I.d = d, I.n = src.size(), I.x = auxPush(src);
    return success();
  }
  if (auto f = dyn_cast<vector::FromElementsOp>(op)) {
    llvm::SmallVector<int64_t> src;
    for (Value v : f.getElements()) {
      auto s = use(op, v);
      if (failed(s))
        return failure();
      src.push_back(*s);
    }
    uint32_t d = def(f.getResult());
    Inst &I = emit(gatherH(), op);
    I.d = d, I.n = src.size(), I.x = auxPush(src);
    return success();
  }
  if (auto e = dyn_cast<vector::ExtractStridedSliceOp>(op)) {
    auto a = use(op, e.getSource());
    if (failed(a))
      return failure();
    if (e.getSourceVectorType().getRank() != 1)
      return fail(op, "only 1-D strided slices are supported");
    int64_t off = cast<IntegerAttr>(e.getOffsets()[0]).getInt();
    int64_t sz = cast<IntegerAttr>(e.getSizes()[0]).getInt();
    int64_t st = cast<IntegerAttr>(e.getStrides()[0]).getInt();
    llvm::SmallVector<int64_t> src;
    for (int64_t i = 0; i < sz; ++i)
      src.push_back(*a + off + i * st);
    uint32_t d = def(e.getResult());
    Inst &I = emit(gatherH(), op);
    I.d = d, I.n = src.size(), I.x = auxPush(src);
    return success();
  }
  if (auto e = dyn_cast<vector::InsertStridedSliceOp>(op)) {
    auto a = use(op, e.getValueToStore()), dst = use(op, e.getDest());
    if (failed(a) || failed(dst))
      return failure();
    if (e.getDestVectorType().getRank() != 1)
      return fail(op, "only 1-D strided slices are supported");
    int64_t n = e.getDestVectorType().getNumElements();
    int64_t off = cast<IntegerAttr>(e.getOffsets()[0]).getInt();
    int64_t st = cast<IntegerAttr>(e.getStrides()[0]).getInt();
    int64_t sn = e.getSourceVectorType().getNumElements();
    llvm::SmallVector<int64_t> src;
    for (int64_t i = 0; i < n; ++i)
      src.push_back(*dst + i);
    for (int64_t i = 0; i < sn; ++i)
      src[off + i * st] = *a + i;
    uint32_t d = def(e.getResult());
    Inst &I = emit(gatherH(), op);
    I.d = d, I.n = src.size(), I.x = auxPush(src);
    return success();
  }
  if (isa<vector::ShapeCastOp>(op))
    return unary(copyH()); // row-major element order is unchanged
  if (auto st = dyn_cast<vector::StepOp>(op)) {
    uint32_t d = def(st.getResult());
    for (unsigned i = 0, n = numElems(st.getType()); i < n; ++i)
      K.consts.push_back({d + i, i});
    return success();
  }
  if (auto b = dyn_cast<vector::BitCastOp>(op)) {
    auto a = use(op, b.getSource());
    if (failed(a))
      return failure();
    ElemTy es = elemOf(b.getSourceVectorType()),
           ed = elemOf(b.getResultVectorType());
    int64_t sn = b.getSourceVectorType().getNumElements(),
            dn = b.getResultVectorType().getNumElements();
    if (sn * es.width > 4096)
      return fail(op, "vector too large for bitcast");
    uint32_t d = def(b.getResult());
    Inst &I = emit(bitcastVecH(), op);
    I.a = *a, I.d = d, I.n = dn;
    I.x = auxPush({sn, (int64_t)es.width, dn, (int64_t)ed.width});
    return success();
  }
  if (auto r = dyn_cast<vector::ReductionOp>(op)) {
    ElemTy e = elemOf(r.getVector().getType());
    using CK = vector::CombiningKind;
    std::optional<EOp> o;
    switch (r.getKind()) {
    case CK::ADD:
      o = e.isFloat ? EOp::AddF : EOp::AddI;
      break;
    case CK::MUL:
      o = e.isFloat ? EOp::MulF : EOp::MulI;
      break;
    case CK::MINUI:
      o = EOp::MinUI;
      break;
    case CK::MINSI:
      o = EOp::MinSI;
      break;
    case CK::MAXUI:
      o = EOp::MaxUI;
      break;
    case CK::MAXSI:
      o = EOp::MaxSI;
      break;
    case CK::AND:
      o = EOp::AndI;
      break;
    case CK::OR:
      o = EOp::OrI;
      break;
    case CK::XOR:
      o = EOp::XOrI;
      break;
    case CK::MINNUMF:
      o = EOp::MinNumF;
      break;
    case CK::MAXNUMF:
      o = EOp::MaxNumF;
      break;
    case CK::MINIMUMF:
      o = EOp::MinimumF;
      break;
    case CK::MAXIMUMF:
      o = EOp::MaximumF;
      break;
    }
    Handler h = o ? reduceH(*o, e.fk, e.isFloat) : nullptr;
    if (!h || (e.isFloat && e.width == 8))
      return fail(op, "unsupported reduction kind/type");
    auto a = use(op, r.getVector());
    if (failed(a))
      return failure();
    int64_t acc = 0;
    if (r.getAcc()) {
      auto s = use(op, r.getAcc());
      if (failed(s))
        return failure();
      acc = *s + 1;
    }
    uint32_t d = def(r.getResult());
    Inst &I = emit(h, op);
    I.a = *a, I.d = d, I.n = numElems(r.getVector().getType()), I.w = e.width,
    I.i0 = acc;
    return success();
  }
  if (auto l = dyn_cast<vector::LoadOp>(op)) {
    if (l.getVectorType().getRank() != 1)
      return fail(op, "only 1-D vector loads are supported");
    uint32_t d = def(l.getResult());
    return memAccess(op, loadH(), l.getBase(), l.getIndices(),
                     l.getVectorType().getNumElements(), 0, d);
  }
  if (auto s = dyn_cast<vector::StoreOp>(op)) {
    if (s.getVectorType().getRank() != 1)
      return fail(op, "only 1-D vector stores are supported");
    auto v = use(op, s.getValueToStore());
    if (failed(v))
      return failure();
    return memAccess(op, storeH(), s.getBase(), s.getIndices(),
                     s.getVectorType().getNumElements(), *v, 0);
  }

  // ---- memref ----
  if (isa<memref::ExtractAlignedPointerAsIndexOp, LLVM::IntToPtrOp,
          LLVM::LoadOp, LLVM::StoreOp, LLVM::AtomicRMWOp, LLVM::FenceOp>(op))
    return pointerOp(op);
  if (isa<ROCDL::SSleepOp, NVVM::NanosleepOp>(op)) {
    emit(sleepH(), op);
    return success();
  }
  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    uint32_t d = def(l.getResult());
    return memAccess(op, loadH(), l.getMemref(), l.getIndices(), 1, 0, d);
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    auto v = use(op, s.getValueToStore());
    if (failed(v))
      return failure();
    return memAccess(op, storeH(), s.getMemref(), s.getIndices(), 1, *v, 0);
  }
  if (auto a = dyn_cast<memref::AtomicRMWOp>(op)) {
    using AK = arith::AtomicRMWKind;
    uint32_t kind;
    switch (a.getKind()) {
    case AK::addf:
      kind = 0;
      break;
    case AK::addi:
      kind = 1;
      break;
    case AK::assign:
      kind = 2;
      break;
    case AK::maximumf:
      kind = 3;
      break;
    case AK::maxs:
      kind = 4;
      break;
    case AK::maxu:
      kind = 5;
      break;
    case AK::minimumf:
      kind = 6;
      break;
    case AK::mins:
      kind = 7;
      break;
    case AK::minu:
      kind = 8;
      break;
    case AK::mulf:
      kind = 9;
      break;
    case AK::muli:
      kind = 10;
      break;
    case AK::ori:
      kind = 11;
      break;
    case AK::andi:
      kind = 12;
      break;
    case AK::maxnumf:
      kind = 13;
      break;
    case AK::minnumf:
      kind = 14;
      break;
    case AK::xori:
      kind = 15;
      break;
    default:
      return fail(op, "unsupported atomic kind");
    }
    auto v = use(op, a.getValue());
    if (failed(v))
      return failure();
    uint32_t d = def(a.getResult());
    if (failed(memAccess(op, atomicRmwH(), a.getMemref(), a.getIndices(), 1, *v,
                         d)))
      return failure();
    ElemTy e = elemOf(a.getValue().getType());
    K.code.back().w = kind;
    K.code.back().i0 = (int64_t)e.fk;
    K.code.back().i1 = e.width;
    return success();
  }
  if (auto g = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
    Block &body = g.getRegion().front();
    uint32_t res = def(g.getResult());
    uint32_t arg = def(body.getArgument(0));
    if (failed(memAccess(op, gAtomicBeginH(), g.getMemref(), g.getIndices(), 1,
                         0, arg)))
      return failure();
    K.code.back().c = res;
    uint32_t auxX = K.code.back().x, m = K.code.back().a;
    uint32_t bodyPc = pc();
    auto yieldTo = [&](Operation *t) -> LogicalResult {
      auto v = use(t, t->getOperand(0));
      if (failed(v))
        return failure();
      Inst &E = emit(gAtomicEndH(), op);
      E.a = m, E.x = auxX, E.b = *v, E.c = res, E.i0 = bodyPc, E.i1 = arg;
      return success();
    };
    return compileBlock(body, yieldTo);
  }
  if (auto d = dyn_cast<memref::DimOp>(op)) {
    auto m = muse(op, d.getSource());
    if (failed(m))
      return failure();
    uint32_t r = def(d.getResult());
    Inst &I = emit(dimH(), op);
    I.a = *m, I.d = r;
    if (auto ci = d.getConstantIndex()) {
      I.i0 = *ci, I.i1 = 1;
    } else {
      auto s = use(op, d.getIndex());
      if (failed(s))
        return failure();
      I.b = *s;
    }
    return success();
  }
  if (auto v = dyn_cast<memref::ViewOp>(op)) {
    auto m = muse(op, v.getSource());
    auto sh = use(op, v.getByteShift());
    if (failed(m) || failed(sh))
      return failure();
    MemRefType rt = v.getType();
    if (rt.getRank() > 4 || !elemOf(rt.getElementType()).ok)
      return fail(op, "unsupported view result type");
    llvm::SmallVector<int64_t> aux = {rt.getRank(), (elemOf(rt).width + 7) / 8};
    unsigned dynI = 0;
    for (int64_t s : rt.getShape()) {
      if (ShapedType::isDynamic(s)) {
        auto ds = use(op, v.getSizes()[dynI++]);
        if (failed(ds))
          return failure();
        aux.push_back(-1 - (int64_t)*ds);
      } else {
        aux.push_back(s);
      }
    }
    uint32_t d = mdef(v.getResult());
    Inst &I = emit(viewH(), op);
    I.a = *m, I.b = *sh, I.d = d, I.x = auxPush(aux);
    return success();
  }
  if (auto rc = dyn_cast<memref::ReinterpretCastOp>(op)) {
    auto m = muse(op, rc.getSource());
    if (failed(m))
      return failure();
    auto src = cast<MemRefType>(rc.getSource().getType());
    if (rc.getType().getRank() != 1 || src.getRank() != 1 ||
        rc.getStaticOffsets()[0] != 0 || rc.getStaticStrides()[0] != 1 ||
        src.getElementType() != rc.getType().getElementType())
      return fail(op, "memref.reinterpret_cast is supported from and to rank "
                      "1 with offset 0 and stride 1 only");
    int64_t size = rc.getStaticSizes()[0];
    uint32_t sizeSlot = 0;
    if (ShapedType::isDynamic(size)) {
      auto s = use(op, rc.getSizes()[0]);
      if (failed(s))
        return failure();
      sizeSlot = *s;
    }
    uint32_t d = mdef(rc.getResult());
    Inst &I = emit(reinterpretH(), op);
    I.a = *m, I.d = d, I.b = sizeSlot;
    if (!ShapedType::isDynamic(size))
      I.i0 = size, I.i1 = 1;
    return success();
  }
  if (isa<memref::AssumeAlignmentOp, memref::CastOp>(op)) {
    auto m = muse(op, op->getOperand(0));
    if (failed(m))
      return failure();
    mrefs[op->getResult(0)] = *m; // same descriptor
    return success();
  }
  if (auto a = dyn_cast<memref::AllocaOp>(op)) {
    MemRefType t = a.getType();
    if (!isWorkgroupSpace(t.getMemorySpace()))
      return fail(op, "only workgroup (LDS) memref.alloca is supported");
    if (!t.hasStaticShape() || t.getRank() > 4 ||
        !elemOf(t.getElementType()).ok || !t.getLayout().isIdentity())
      return fail(op, "LDS alloca needs a static identity-layout shape of "
                      "rank <= 4");
    LdsAlloc L{};
    L.mref = mdef(a.getResult());
    L.elemBytes = (elemOf(t).width + 7) / 8;
    K.ldsBytes = (K.ldsBytes + 15) & ~15ull;
    L.offset = K.ldsBytes;
    L.rank = t.getRank();
    for (unsigned r = 0; r < L.rank; ++r)
      L.sizes[r] = t.getShape()[r];
    K.ldsBytes += t.getNumElements() * L.elemBytes;
    K.bufferNames.push_back("memref.alloca at " + locString(op));
    L.what = K.bufferNames.size() - 1;
    K.lds.push_back(L);
    return success();
  }

  // ---- amdgpu ----
  if (auto m = dyn_cast<amdgpu::MFMAOp>(op))
    return mfma(m);
  if (auto fc = dyn_cast<amdgpu::FatRawBufferCastOp>(op)) {
    auto m = muse(op, fc.getSource());
    if (failed(m))
      return failure();
    if (!fc.getBoundsCheck() || fc.getCacheSwizzleStride() ||
        fc.getSource().getType().getRank() != 1)
      return fail(op, "amdgpu.fat_raw_buffer_cast is supported on rank-1 "
                      "memrefs, bounds-checked, without cacheSwizzleStride");
    uint32_t valid = 0;
    if (Value v = fc.getValidBytes()) {
      auto s = use(op, v);
      if (failed(s))
        return failure();
      valid = *s;
    }
    uint32_t d = mdef(fc.getResult());
    Inst &I = emit(fatBufferH(), op);
    I.a = *m, I.d = d, I.b = valid, I.i1 = fc.getValidBytes() ? 1 : 0;
    return success();
  }
  if (isa<amdgpu::RawBufferLoadOp, amdgpu::RawBufferStoreOp,
          amdgpu::RawBufferAtomicFaddOp, amdgpu::RawBufferAtomicFmaxOp,
          amdgpu::RawBufferAtomicSmaxOp, amdgpu::RawBufferAtomicUminOp,
          amdgpu::RawBufferAtomicCmpswapOp>(op))
    return bufferOp(op);
  if (auto d = dyn_cast<amdgpu::DPPOp>(op)) {
    auto o = use(op, d.getOld()), s = use(op, d.getSrc());
    if (failed(o) || failed(s))
      return failure();
    int64_t arg = 0;
    auto kind = d.getKind();
    if (auto pa = d.getPermArgument()) {
      if (auto arr = dyn_cast<ArrayAttr>(*pa)) {
        if (arr.size() != 4)
          return fail(op, "quad_perm needs 4 entries");
        for (unsigned i = 0; i < 4; ++i)
          arg |= (cast<IntegerAttr>(arr[i]).getInt() & 3) << (2 * i);
      } else if (auto ia = dyn_cast<IntegerAttr>(*pa)) {
        arg = ia.getInt();
      }
    }
    if ((kind == amdgpu::DPPPerm::row_shl || kind == amdgpu::DPPPerm::row_shr ||
         kind == amdgpu::DPPPerm::row_ror) &&
        (arg < 1 || arg > 15))
      return fail(op, "row shift amount must be in [1, 15]");
    uint32_t r = def(d.getResult());
    Inst &I = emit(dppH(), op);
    I.a = *o, I.b = *s, I.d = r, I.n = numElems(d.getType());
    I.i0 = (int64_t)kind, I.i1 = arg;
    I.w = (d.getRowMask() & 0xf) | ((d.getBankMask() & 0xf) << 4) |
          ((d.getBoundCtrl() ? 1u : 0u) << 8);
    return success();
  }
  if (auto s = dyn_cast<amdgpu::SwizzleBitModeOp>(op)) {
    if (failed(unary(swizzleBitsH())))
      return failure();
    Inst &I = K.code.back();
    I.i0 = s.getAndMask(), I.i1 = s.getOrMask(), I.i2 = s.getXorMask();
    return success();
  }
  if (auto p = dyn_cast<amdgpu::PermlaneSwapOp>(op)) {
    if (p.getRowLength() != 16 && p.getRowLength() != 32)
      return fail(op, "row_length must be 16 or 32");
    return unary(permlaneSwapH(),
                 (p.getFetchInactive() ? 1 : 0) | (p.getBoundCtrl() ? 2 : 0),
                 p.getRowLength());
  }
  if (auto t = dyn_cast<amdgpu::PackedTrunc2xFp8Op>(op)) {
    ElemTy e = elemOf(t.getRes().getType());
    auto a = use(op, t.getSourceA());
    if (failed(a))
      return failure();
    uint32_t b = ~0u, c = ~0u;
    if (t.getSourceB()) {
      auto s = use(op, t.getSourceB());
      if (failed(s))
        return failure();
      b = *s;
    }
    if (t.getExisting()) {
      auto s = use(op, t.getExisting());
      if (failed(s))
        return failure();
      c = *s;
    }
    uint32_t d = def(t.getRes());
    Inst &I = emit(packedTruncH(e.fk), op);
    I.a = *a, I.b = b, I.c = c, I.d = d, I.n = 4, I.i0 = t.getWordIndex();
    return success();
  }
  if (auto x = dyn_cast<amdgpu::ExtPackedFp8Op>(op)) {
    ElemTy e = elemOf(x.getSource().getType());
    unsigned srcN = numElems(x.getSource().getType());
    unsigned resN = numElems(x.getRes().getType());
    unsigned idx = x.getIndex();
    // A vector<2xf32> result reads elements 2*index and 2*index+1 of the
    // packed word (index selects the 16-bit half).
    unsigned first = resN == 2 ? 2 * idx : idx;
    if (first + resN > srcN)
      return fail(op, "index selects elements beyond the source vector");
    auto a = use(op, x.getSource());
    if (failed(a))
      return failure();
    uint32_t d = def(x.getRes());
    Inst &I = emit(extPackedH(e.fk), op);
    I.a = *a, I.d = d, I.n = resN, I.i0 = first;
    return success();
  }

  // ---- rocdl ----
  if (isa<ROCDL::ReadlaneOp>(op)) {
    auto a = use(op, op->getOperand(0)), b = use(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(readlaneH(), op);
    I.a = *a, I.b = *b, I.d = d, I.n = numElems(op->getResult(0).getType());
    return success();
  }
  if (isa<ROCDL::ReadfirstlaneOp>(op))
    return unary(readFirstLaneH());
  if (isa<ROCDL::BallotOp>(op))
    return unary(ballotH(), elemOf(op->getResult(0).getType()).width);
  if (isa<ROCDL::DsSwizzleOp>(op)) {
    auto a = use(op, op->getOperand(0)), b = use(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    uint32_t d = def(op->getResult(0));
    Inst &I = emit(dsSwizzleH(), op);
    I.a = *a, I.b = *b, I.d = d;
    return success();
  }
  if (isa<ROCDL::DsBpermuteOp>(op))
    return binary(dsBpermuteH());
  if (isa<ROCDL::MbcntLoOp>(op))
    return binary(mbcntH(false));
  if (isa<ROCDL::MbcntHiOp>(op))
    return binary(mbcntH(true));

  // ---- nvvm ----
  if (auto sh = dyn_cast<NVVM::ShflOp>(op)) {
    if (sh.getReturnValueAndIsValid())
      return fail(op, "the (value, valid) struct form is not supported");
    auto v = use(op, sh.getVal()), o = use(op, sh.getOffset()),
         c = use(op, sh.getMaskAndClamp());
    if (failed(v) || failed(o) || failed(c))
      return failure();
    uint32_t d = def(sh.getRes());
    Inst &I = emit(nvvmShflH(), op);
    I.a = *v, I.b = *o, I.c = *c, I.d = d, I.i0 = (int64_t)sh.getKind();
    return success();
  }
  if (auto vo = dyn_cast<NVVM::VoteSyncOp>(op)) {
    if (failed(binary(nvvmVoteH())))
      return failure();
    K.code.back().i0 = (int64_t)vo.getKind();
    return success();
  }
  // `all` returns a struct, which the result type check above rejects.
  if (auto ma = dyn_cast<NVVM::MatchSyncOp>(op))
    return binary(nvvmMatchAnyH(),
                  ma.getVal().getType().getIntOrFloatBitWidth());

  return fail(op, "op is not supported by the SIMT emulator");
}

LogicalResult KernelCompiler::run() {
  K.name = fn.getName().str();
  K.waveSize = 64;
  if (auto t = fn->getAttrOfType<StringAttr>("tessel.target")) {
    StringRef s = t.getValue();
    if (s.starts_with("sm_"))
      K.waveSize = 32;
    else if (s != "gfx942" && s != "gfx950")
      return fail(fn, "unknown tessel.target '" + s.str() + "'");
  }
  if (auto kb = fn.getKnownBlockSizeAttr()) {
    K.hasKnownBlock = true;
    for (unsigned i = 0; i < 3 && i < kb.size(); ++i)
      K.knownBlock[i] = kb[i];
  }
  K.gridBarrier = fn->hasAttr("tessel.grid_barrier");
  if (fn.getBody().getBlocks().size() != 1)
    return fail(fn, "unstructured control flow (more than one block) is not "
                    "supported");
  // Kernel arguments.
  unsigned argNo = 0;
  unsigned numInputs = fn.getFunctionType().getNumInputs();
  for (BlockArgument arg : fn.getArguments().take_front(numInputs)) {
    ParamSpec ps;
    ps.argNo = argNo++;
    if (auto mt = dyn_cast<MemRefType>(arg.getType())) {
      if (isWorkgroupSpace(mt.getMemorySpace()))
        return fail(fn, "argument #" + std::to_string(ps.argNo) +
                            " is a workgroup memref");
      ElemTy e = elemOf(mt.getElementType());
      if (!e.ok || mt.getRank() > 4)
        return fail(fn, "unsupported memref argument type " + typeStr(mt));
      ps.isMemRef = true;
      ps.rank = mt.getRank();
      ps.elemBytes = (e.width + 7) / 8;
      ps.target = mdef(arg);
      K.numFlatParams += 3 + 2 * ps.rank;
      K.bufferNames.push_back("argument #" + std::to_string(ps.argNo));
    } else {
      ElemTy e = elemOf(arg.getType());
      if (!e.ok || isa<VectorType>(arg.getType()))
        return fail(fn, "unsupported scalar argument type " +
                            typeStr(arg.getType()));
      ps.bytes = (e.width + 7) / 8;
      ps.target = def(arg);
      K.numFlatParams += 1;
      K.bufferNames.push_back("argument #" + std::to_string(ps.argNo));
    }
    K.params.push_back(ps);
  }
  // Workgroup attributions are LDS buffers.
  for (auto [i, attr] : llvm::enumerate(fn.getWorkgroupAttributions())) {
    auto t = cast<MemRefType>(attr.getType());
    if (!t.hasStaticShape() || t.getRank() > 4 || !elemOf(t).ok)
      return fail(fn, "unsupported workgroup attribution type " + typeStr(t));
    LdsAlloc L{};
    L.mref = mdef(attr);
    L.elemBytes = (elemOf(t).width + 7) / 8;
    K.ldsBytes = (K.ldsBytes + 15) & ~15ull;
    L.offset = K.ldsBytes;
    L.rank = t.getRank();
    for (unsigned r = 0; r < L.rank; ++r)
      L.sizes[r] = t.getShape()[r];
    K.ldsBytes += t.getNumElements() * L.elemBytes;
    K.bufferNames.push_back("workgroup attribution #" + std::to_string(i));
    L.what = K.bufferNames.size() - 1;
    K.lds.push_back(L);
  }
  if (!fn.getPrivateAttributions().empty())
    return fail(fn, "private attributions are not supported");
  if (failed(compileBlock(fn.getBody().front(), nullptr)))
    return failure();
  emit(returnH(), fn); // falls off the end
  // LDS per workgroup that the hardware offers (gfx942: 64 KiB, gfx950:
  // 160 KiB, sm_90: 227 KiB of shared memory per block).
  uint64_t ldsLimit = 64 * 1024;
  if (auto t = fn->getAttrOfType<StringAttr>("tessel.target")) {
    if (t.getValue() == "gfx950")
      ldsLimit = 160 * 1024;
    else if (t.getValue().starts_with("sm_"))
      ldsLimit = 227 * 1024;
  }
  if (K.ldsBytes > ldsLimit)
    return fail(fn, "kernel uses " + std::to_string(K.ldsBytes) +
                        " bytes of LDS, more than the " +
                        std::to_string(ldsLimit) + " bytes of its target");
  return success();
}

void registerDialects(MLIRContext &ctx) {
  DialectRegistry reg;
  reg.insert<arith::ArithDialect, math::MathDialect, vector::VectorDialect,
             scf::SCFDialect, memref::MemRefDialect, gpu::GPUDialect,
             amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect, NVVM::NVVMDialect,
             LLVM::LLVMDialect, func::FuncDialect>();
  ctx.appendDialectRegistry(reg);
  ctx.loadAllAvailableDialects();
}

} // namespace

KernelArg KernelArg::f32(float v) {
  KernelArg a{F32};
  uint32_t u;
  std::memcpy(&u, &v, 4);
  a.bits = u;
  return a;
}

Module::~Module() = default;

llvm::Expected<std::unique_ptr<Module>> Module::fromModule(ModuleOp m) {
  std::unique_ptr<Module> mod(new Module());
  std::string err;
  m.walk([&](gpu::GPUFuncOp fn) {
    if (!fn.isKernel() || !err.empty())
      return;
    auto K = std::make_unique<Kernel>();
    KernelCompiler C(fn, *K);
    if (failed(C.run())) {
      err = C.error.empty() ? "failed to compile kernel" : C.error;
      return;
    }
    mod->kernels.push_back(std::move(K));
  });
  if (!err.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
  if (mod->kernels.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "module holds no gpu.func kernel");
  return mod;
}

llvm::Expected<std::unique_ptr<Module>> Module::parse(StringRef text,
                                                      StringRef bufferName) {
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  registerDialects(ctx);
  ctx.allowUnregisteredDialects(false);
  std::string diag;
  llvm::raw_string_ostream os(diag);
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    os << locString(d.getLocation()) << ": " << d << "\n";
    return success();
  });
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                        llvm::SMLoc());
  OwningOpRef<ModuleOp> m = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!m)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "failed to parse SIMT IR: " + diag);
  if (failed(verify(*m)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "SIMT IR does not verify: " + diag);
  return fromModule(*m);
}

std::vector<std::string> Module::kernelNames() const {
  std::vector<std::string> names;
  for (auto &k : kernels)
    names.push_back(k->name);
  return names;
}

const Kernel *Module::find(StringRef name) const {
  for (auto &k : kernels)
    if (k->name == name)
      return k.get();
  return nullptr;
}

llvm::Expected<std::optional<Dim3>>
Module::knownBlockSize(StringRef kernel) const {
  const Kernel *K = find(kernel);
  if (!K)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernel named '" + kernel.str() + "'");
  if (!K->hasKnownBlock)
    return std::optional<Dim3>();
  return std::optional<Dim3>(
      Dim3{K->knownBlock[0], K->knownBlock[1], K->knownBlock[2]});
}

llvm::Expected<size_t> Module::numParams(StringRef kernel) const {
  const Kernel *K = find(kernel);
  if (!K)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernel named '" + kernel.str() + "'");
  return K->numFlatParams;
}

namespace {
/// The only setting the emulator reads from the environment.
constexpr const char *kTimeoutEnv = "TESSEL_EMU_TIMEOUT_S";

/// The watchdog limit of a launch: the option if set, else the environment
/// variable, else the default.
llvm::Expected<double> resolveTimeout(const LaunchOptions &opts) {
  if (opts.timeoutSeconds >= 0)
    return opts.timeoutSeconds;
  const char *v = std::getenv(kTimeoutEnv);
  if (!v || !*v)
    return kDefaultTimeoutSeconds;
  char *end = nullptr;
  double t = std::strtod(v, &end);
  if (*end != '\0' || !std::isfinite(t) || t < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        std::string(kTimeoutEnv) +
            ": expected a number of seconds >= 0 (0 = no limit), got '" + v +
            "'");
  return t;
}
} // namespace

llvm::Error Module::launch(StringRef kernel, Dim3 grid, Dim3 block,
                           llvm::ArrayRef<void *> params,
                           const LaunchOptions &opts,
                           LaunchStats *stats) const {
  const Kernel *K = find(kernel);
  if (!K)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernel named '" + kernel.str() + "'");
  llvm::Expected<double> timeout = resolveTimeout(opts);
  if (!timeout)
    return timeout.takeError();
  LaunchConfig cfg{
      {grid.x, grid.y, grid.z},   {block.x, block.y, block.z},
      opts.maxResidentWorkgroups, opts.yieldBudget > 0 ? opts.yieldBudget : 1,
      opts.maxLoopIterations,     *timeout};
  uint64_t ops = 0;
  std::string err = runKernel(*K, cfg, params.data(), params.size(), &ops);
  if (stats)
    stats->laneOps = ops;
  if (!err.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
  return llvm::Error::success();
}

llvm::Error Module::launchArgs(StringRef kernel, Dim3 grid, Dim3 block,
                               llvm::ArrayRef<KernelArg> args,
                               const LaunchOptions &opts,
                               LaunchStats *stats) const {
  const Kernel *K = find(kernel);
  if (!K)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernel named '" + kernel.str() + "'");
  if (args.size() != K->params.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "kernel '" + kernel.str() + "' takes " +
                                       std::to_string(K->params.size()) +
                                       " arguments, got " +
                                       std::to_string(args.size()));
  // Storage for the flattened values; pointers into it are the params.
  std::vector<uint64_t> store;
  std::vector<size_t> idx;
  for (auto [i, a] : llvm::enumerate(args)) {
    const ParamSpec &ps = K->params[i];
    if (ps.isMemRef != (a.kind == KernelArg::Buffer) ||
        (ps.isMemRef && ps.rank != 1))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "argument #" + std::to_string(i) +
              (ps.isMemRef ? " must be a 1-D buffer" : " must be a scalar"));
    if (ps.isMemRef) {
      uint64_t p = (uint64_t)(uintptr_t)a.ptr;
      for (uint64_t v :
           {p, p, (uint64_t)0, (uint64_t)a.numElems, (uint64_t)1}) {
        idx.push_back(store.size());
        store.push_back(v);
      }
    } else {
      idx.push_back(store.size());
      store.push_back(a.bits);
    }
  }
  std::vector<void *> params;
  for (size_t i : idx)
    params.push_back(&store[i]);
  return launch(kernel, grid, block, params, opts, stats);
}

} // namespace tessel::emu
