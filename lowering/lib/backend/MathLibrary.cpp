//===- MathLibrary.cpp - Built-in definitions of vendor math calls --------===//
//
// convert-gpu-to-rocdl and convert-gpu-to-nvvm lower several math ops to calls
// into ROCm's ocml or CUDA's libdevice. Tessel links neither, so it defines
// those functions here with intrinsics each target selects natively. The
// LLVM optimizer inlines them. Math intrinsics a target cannot select (tanh;
// exp/log/log2 on NVPTX) are expanded the same way. Transcendentals are
// provided for f32 only; anything else is reported instead of reaching code
// generation, where an unselectable call would abort.
//
//===----------------------------------------------------------------------===//

#include "BackendInternal.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <cmath>

using namespace llvm;

namespace tessel::backend {
namespace {

enum class Elem { F32, F64, I32, I64, Unknown };

/// A vendor math function, normalized: `__ocml_exp_f32` and `__nv_expf` are
/// both {"exp", F32}.
struct MathFn {
  StringRef op;
  Elem elem = Elem::Unknown;
};

MathFn classify(StringRef name, Vendor vendor) {
  MathFn fn;
  if (vendor == Vendor::AMD) {
    if (!name.consume_front("__ocml_"))
      return fn;
    if (name.consume_back("_f32"))
      fn.elem = Elem::F32;
    else if (name.consume_back("_f64"))
      fn.elem = Elem::F64;
    fn.op = name;
    return fn;
  }
  if (!name.consume_front("__nv_"))
    return fn;
  if (name == "abs")
    return {"iabs", Elem::I32};
  if (name == "llabs")
    return {"iabs", Elem::I64};
  static const char *const known[] = {
      "exp", "exp2", "log",  "log2",     "sqrt",  "rsqrt", "fabs",
      "fma", "tanh", "ceil", "copysign", "floor", "fmax",  "fmin"};
  for (const char *k : known) {
    if (name == k)
      return {k, Elem::F64};
    if (name.size() == strlen(k) + 1 && name.starts_with(k) &&
        name.back() == 'f')
      return {k, Elem::F32};
  }
  return fn;
}

Type *elemType(LLVMContext &ctx, Elem elem) {
  switch (elem) {
  case Elem::F32:
    return Type::getFloatTy(ctx);
  case Elem::F64:
    return Type::getDoubleTy(ctx);
  case Elem::I32:
    return Type::getInt32Ty(ctx);
  case Elem::I64:
    return Type::getInt64Ty(ctx);
  case Elem::Unknown:
    break;
  }
  return nullptr;
}

class BodyBuilder {
public:
  BodyBuilder(IRBuilder<> &b, Vendor vendor) : b(b), vendor(vendor) {}

  Value *exp2(Value *x) { return b.CreateUnaryIntrinsic(Intrinsic::exp2, x); }
  Value *exp(Value *x) {
    if (vendor == Vendor::AMD)
      return b.CreateUnaryIntrinsic(Intrinsic::exp, x);
    return exp2(b.CreateFMul(x, ConstantFP::get(x->getType(), M_LOG2E)));
  }
  Value *log2(Value *x) {
    if (vendor == Vendor::AMD)
      return b.CreateUnaryIntrinsic(Intrinsic::log2, x);
    return b.CreateIntrinsic(Intrinsic::nvvm_lg2_approx_f, {}, {x});
  }
  Value *log(Value *x) {
    if (vendor == Vendor::AMD)
      return b.CreateUnaryIntrinsic(Intrinsic::log, x);
    return b.CreateFMul(log2(x), ConstantFP::get(x->getType(), M_LN2));
  }
  Value *sqrt(Value *x) { return b.CreateUnaryIntrinsic(Intrinsic::sqrt, x); }
  /// tanh(x) = sign(x) * (1 - t) / (1 + t) with t = exp(-2|x|); below
  /// |x| < 1/16 a short odd series avoids the cancellation in 1 - t.
  Value *tanh(Value *x) {
    Type *ty = x->getType();
    Value *ax = b.CreateUnaryIntrinsic(Intrinsic::fabs, x);
    Value *t = exp(b.CreateFMul(ax, ConstantFP::get(ty, -2.0)));
    Value *one = ConstantFP::get(ty, 1.0);
    Value *big = b.CreateFDiv(b.CreateFSub(one, t), b.CreateFAdd(one, t));
    Value *x2 = b.CreateFMul(x, x);
    // x * (1 - x^2/3 + 2x^4/15 - 17x^6/315)
    Value *p = ConstantFP::get(ty, -17.0 / 315.0);
    p = b.CreateIntrinsic(Intrinsic::fma, {ty},
                          {p, x2, ConstantFP::get(ty, 2.0 / 15.0)});
    p = b.CreateIntrinsic(Intrinsic::fma, {ty},
                          {p, x2, ConstantFP::get(ty, -1.0 / 3.0)});
    p = b.CreateIntrinsic(Intrinsic::fma, {ty}, {p, x2, one});
    Value *small = b.CreateFMul(x, p);
    Value *signedBig = b.CreateBinaryIntrinsic(Intrinsic::copysign, big, x);
    Value *isSmall = b.CreateFCmpOLT(ax, ConstantFP::get(ty, 0.0625));
    return b.CreateSelect(isSmall, small, signedBig);
  }

  /// Returns the body's result, or null if `fn` is not provided.
  Value *build(const MathFn &fn, ArrayRef<Value *> args) {
    bool f32 = fn.elem == Elem::F32;
    bool fp = f32 || fn.elem == Elem::F64;
    auto unary = [&](Intrinsic::ID id) -> Value * {
      return args.size() == 1 ? b.CreateUnaryIntrinsic(id, args[0]) : nullptr;
    };
    if (fn.op == "iabs" && args.size() == 1 && !fp)
      return b.CreateBinaryIntrinsic(Intrinsic::abs, args[0], b.getFalse());
    if (!fp)
      return nullptr;
    if (fn.op == "fabs")
      return unary(Intrinsic::fabs);
    if (fn.op == "ceil")
      return unary(Intrinsic::ceil);
    if (fn.op == "floor")
      return unary(Intrinsic::floor);
    if (fn.op == "sqrt" && args.size() == 1)
      return sqrt(args[0]);
    if (fn.op == "rsqrt" && args.size() == 1)
      return b.CreateFDiv(ConstantFP::get(args[0]->getType(), 1.0),
                          sqrt(args[0]));
    // arith.maxnumf/minnumf arrive as fmaxf/fminf: llvm.maxnum/minnum have
    // their NaN rule and select to max.f32/min.f32 on NVPTX.
    if (fn.op == "fmax" && args.size() == 2)
      return b.CreateBinaryIntrinsic(Intrinsic::maxnum, args[0], args[1]);
    if (fn.op == "fmin" && args.size() == 2)
      return b.CreateBinaryIntrinsic(Intrinsic::minnum, args[0], args[1]);
    if (fn.op == "copysign" && args.size() == 2)
      return b.CreateBinaryIntrinsic(Intrinsic::copysign, args[0], args[1]);
    if (fn.op == "fma" && args.size() == 3)
      return b.CreateIntrinsic(Intrinsic::fma, {args[0]->getType()},
                               {args[0], args[1], args[2]});
    // Transcendentals: f32 only (f64 has no native instruction on either
    // target).
    if (!f32 || args.size() != 1)
      return nullptr;
    if (fn.op == "exp")
      return exp(args[0]);
    if (fn.op == "exp2")
      return exp2(args[0]);
    if (fn.op == "log")
      return log(args[0]);
    if (fn.op == "log2")
      return log2(args[0]);
    if (fn.op == "tanh")
      return tanh(args[0]);
    return nullptr;
  }

private:
  IRBuilder<> &b;
  Vendor vendor;
};

/// `size_t __ockl_get_num_groups(uint dim)`, which convert-gpu-to-rocdl
/// makes of gpu.grid_dim (tile.num_programs): the grid size along `dim` over
/// the workgroup size, rounded up, from the HSA kernel dispatch packet
/// (hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z are u16 at bytes 4,
/// 6, 8; grid_size_x/y/z are u32 at bytes 12, 16, 20). A `dim` above 2
/// reads dimension 2.
bool defineNumGroups(Function &f) {
  FunctionType *fty = f.getFunctionType();
  if (f.getName() != "__ockl_get_num_groups" || fty->getNumParams() != 1 ||
      !fty->getParamType(0)->isIntegerTy(32) ||
      !fty->getReturnType()->isIntegerTy(64))
    return false;
  LLVMContext &ctx = f.getContext();
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", &f));
  Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
  Value *packet = b.CreateIntrinsic(Intrinsic::amdgcn_dispatch_ptr, {});
  Value *dim =
      b.CreateBinaryIntrinsic(Intrinsic::umin, f.getArg(0), b.getInt32(2));
  auto field = [&](Type *t, unsigned base, unsigned bytes) {
    Value *at =
        b.CreateAdd(b.getInt32(base), b.CreateMul(dim, b.getInt32(bytes)));
    Value *ptr = b.CreateGEP(i8, packet, at);
    LoadInst *load = b.CreateAlignedLoad(t, ptr, Align(bytes));
    load->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(ctx, {}));
    return b.CreateZExt(load, i32);
  };
  Value *wg = field(i16, 4, 2), *grid = field(i32, 12, 4);
  Value *groups = b.CreateUDiv(grid, wg);
  Value *partial = b.CreateICmpNE(b.CreateURem(grid, wg), b.getInt32(0));
  groups = b.CreateAdd(groups, b.CreateZExt(partial, i32));
  b.CreateRet(b.CreateZExt(groups, b.getInt64Ty()));
  f.setLinkage(GlobalValue::InternalLinkage);
  f.addFnAttr(Attribute::AlwaysInline);
  f.removeFnAttr(Attribute::NoInline);
  return true;
}

/// Gives `f` a body if it is a vendor math function Tessel provides.
bool define(Function &f, Vendor vendor) {
  if (vendor == Vendor::AMD && defineNumGroups(f))
    return true;
  MathFn fn = classify(f.getName(), vendor);
  if (fn.op.empty() || fn.elem == Elem::Unknown)
    return false;
  Type *ty = elemType(f.getContext(), fn.elem);
  FunctionType *fty = f.getFunctionType();
  if (fty->getReturnType() != ty || fty->isVarArg())
    return false;
  for (Type *param : fty->params())
    if (param != ty)
      return false;

  BasicBlock *entry = BasicBlock::Create(f.getContext(), "entry", &f);
  IRBuilder<> b(entry);
  SmallVector<Value *> args;
  for (Argument &arg : f.args())
    args.push_back(&arg);
  BodyBuilder body(b, vendor);
  Value *result = body.build(fn, args);
  if (!result) {
    entry->eraseFromParent();
    return false;
  }
  b.CreateRet(result);
  // A new name keeps LLVM's library-call simplification (which knows the
  // vendor names) from turning the call back into an intrinsic that the
  // target cannot select, e.g. llvm.tanh.
  f.setName("__tessel_" + fn.op +
            (fn.elem == Elem::F64   ? "_f64"
             : fn.elem == Elem::F32 ? "_f32"
             : fn.elem == Elem::I64 ? "_i64"
                                    : "_i32"));
  f.setLinkage(GlobalValue::InternalLinkage);
  f.addFnAttr(Attribute::AlwaysInline);
  f.removeFnAttr(Attribute::NoInline);
  return true;
}

} // namespace

/// The op name of a math intrinsic that `vendor` cannot select for f32 but
/// BodyBuilder can expand; empty otherwise.
StringRef expandableIntrinsic(Intrinsic::ID id, Vendor vendor) {
  switch (id) {
  case Intrinsic::tanh:
    return "tanh";
  case Intrinsic::exp:
    return vendor == Vendor::NVIDIA ? "exp" : "";
  case Intrinsic::log:
    return vendor == Vendor::NVIDIA ? "log" : "";
  case Intrinsic::log2:
    return vendor == Vendor::NVIDIA ? "log2" : "";
  default:
    return "";
  }
}

/// Replaces calls to f32 (scalar or vector) math intrinsics the target cannot
/// select with their expansion, element by element for vectors.
void expandIntrinsicCalls(Function &intrinsic, Vendor vendor) {
  StringRef op = expandableIntrinsic(intrinsic.getIntrinsicID(), vendor);
  if (op.empty())
    return;
  SmallVector<CallInst *> calls;
  for (User *user : intrinsic.users())
    if (auto *call = dyn_cast<CallInst>(user);
        call && call->getCalledFunction() == &intrinsic &&
        call->arg_size() == 1 && call->getType()->getScalarType()->isFloatTy())
      calls.push_back(call);
  for (CallInst *call : calls) {
    IRBuilder<> b(call);
    BodyBuilder body(b, vendor);
    MathFn fn{op, Elem::F32};
    Value *arg = call->getArgOperand(0);
    Value *result = nullptr;
    if (auto *vt = dyn_cast<FixedVectorType>(arg->getType())) {
      result = PoisonValue::get(vt);
      for (unsigned i = 0; i < vt->getNumElements(); ++i) {
        Value *elem = body.build(fn, {b.CreateExtractElement(arg, i)});
        result = b.CreateInsertElement(result, elem, i);
      }
    } else {
      result = body.build(fn, {arg});
    }
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

/// Math intrinsics the NVPTX back end cannot select; it aborts on them.
bool unselectableOnNVPTX(Intrinsic::ID id) {
  switch (id) {
  case Intrinsic::exp:
  case Intrinsic::exp10:
  case Intrinsic::log:
  case Intrinsic::log2:
  case Intrinsic::log10:
  case Intrinsic::pow:
  case Intrinsic::powi:
  case Intrinsic::sin:
  case Intrinsic::cos:
  case Intrinsic::tan:
  case Intrinsic::tanh:
  case Intrinsic::sinh:
  case Intrinsic::cosh:
  case Intrinsic::asin:
  case Intrinsic::acos:
  case Intrinsic::atan:
  case Intrinsic::atan2:
    return true;
  default:
    return false;
  }
}

Error provideMathLibrary(Module &module, Vendor vendor) {
  SmallVector<std::string> missing;
  for (Function &f : module) {
    if (f.isIntrinsic()) {
      expandIntrinsicCalls(f, vendor);
      if (vendor == Vendor::NVIDIA && !f.use_empty() &&
          unselectableOnNVPTX(f.getIntrinsicID()))
        missing.push_back(f.getName().str());
      continue;
    }
    if (!f.isDeclaration() || f.use_empty())
      continue;
    if (!define(f, vendor))
      missing.push_back(f.getName().str());
  }
  if (missing.empty())
    return Error::success();
  return createStringError(
      "the kernel calls external function(s) " + join(missing, ", ") +
      " that Tessel does not provide (no device library is linked); "
      "transcendental math is supported for f32 only");
}

} // namespace tessel::backend
