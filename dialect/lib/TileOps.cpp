//===- TileOps.cpp - tile dialect operations ------------------------------===//

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace tessel::tile;

#define GET_OP_CLASSES
#include "tessel/Dialect/Tile/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Shape of a tile value: the tensor's shape, or {} for a scalar.
static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    return rt.getShape();
  return {};
}

static std::string shapeStr(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return "scalar";
  if (rt.getRank() == 0)
    return "rank-0";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(rt.getShape(), os, "x");
  return s;
}

static bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType>(t);
}

/// Checks the optional mask against the offsets' shape.
static LogicalResult verifyMask(Operation *op, Value mask, Type offsetsType) {
  if (!mask)
    return success();
  if (shapeOf(mask.getType()) != shapeOf(offsetsType) ||
      isa<RankedTensorType>(mask.getType()) !=
          isa<RankedTensorType>(offsetsType))
    return op->emitOpError("mask shape (")
           << shapeStr(mask.getType()) << ") must match offsets shape ("
           << shapeStr(offsetsType) << ")";
  return success();
}

/// Checks that `value` is a tile of `elem` elements shaped like the offsets.
static LogicalResult verifyPointee(Operation *op, StringRef what, Type value,
                                   Type offsetsType, Type pointee) {
  if (getElementTypeOrSelf(value) != pointee)
    return op->emitOpError()
           << what << " element type " << getElementTypeOrSelf(value)
           << " does not match pointee type " << pointee;
  if (shapeOf(value) != shapeOf(offsetsType) ||
      isa<RankedTensorType>(value) != isa<RankedTensorType>(offsetsType))
    return op->emitOpError()
           << what << " shape (" << shapeStr(value)
           << ") must match offsets shape (" << shapeStr(offsetsType) << ")";
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is out of range for a tensor of rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Rank-0 tensors
//===----------------------------------------------------------------------===//

static bool isRank0Tensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getRank() == 0;
}

static LogicalResult rejectRank0(Operation *op, StringRef what, unsigned i,
                                 Type t) {
  return op->emitOpError()
         << what << " #" << i << " is a rank-0 tensor " << t
         << "; tiles must have rank >= 1: use a 1-element tile such as "
         << RankedTensorType::get({1},
                                  cast<RankedTensorType>(t).getElementType())
         << " (or a scalar)";
}

LogicalResult tessel::tile::verifyNoRank0Tensors(Operation *op) {
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (isRank0Tensor(t))
      return rejectRank0(op, "operand", i, t);
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (isRank0Tensor(t))
      return rejectRank0(op, "result", i, t);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (isRank0Tensor(arg.getType()))
          return rejectRank0(op, "region argument", arg.getArgNumber(),
                             arg.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &b, ArrayRef<Type> args, ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return b.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verifyRegions() {
  // Tile ops check themselves (NoRank0Tensors); arith, math and scf ops in
  // a kernel compute on tiles too.
  WalkResult result = getBody().walk([](Operation *op) {
    if (isa<TileDialect>(op->getDialect()))
      return WalkResult::advance();
    return failed(verifyNoRank0Tensors(op)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

KnobAttr KernelOp::lookupKnob(StringRef name) {
  if (!getKnobs())
    return {};
  for (Attribute a : getKnobsAttr())
    if (auto k = dyn_cast<KnobAttr>(a); k && k.getName() == name)
      return k;
  return {};
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("kernels return nothing, but the type has ")
           << type.getNumResults() << " result(s)";
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    if (!isa<PtrType>(t) && !t.isInteger(32) && !t.isInteger(64) && !t.isF32())
      return emitOpError("argument #")
             << i << " has type " << t
             << "; kernel arguments must be !tile.ptr, i32, i64 or f32";
  }
  if (getBody().empty())
    return emitOpError("kernel must have a body");
  llvm::StringSet<> names;
  if (getKnobs())
    for (Attribute a : getKnobsAttr()) {
      auto k = cast<KnobAttr>(a);
      if (!names.insert(k.getName()).second)
        return emitOpError("knob '") << k.getName() << "' is declared twice";
    }
  return success();
}

//===----------------------------------------------------------------------===//
// KnobOp
//===----------------------------------------------------------------------===//

LogicalResult KnobOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError("must be inside a tile.kernel");
  KnobAttr decl = kernel.lookupKnob(getName());
  if (!decl)
    return emitOpError("reads knob '")
           << getName() << "' which kernel @" << kernel.getSymName()
           << " does not declare";
  if (decl.getType() != getType())
    return emitOpError("knob '")
           << getName() << "' is declared as " << decl.getType()
           << " but read as " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor construction
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  auto type = getType();
  int64_t start = getStart(), end = getEnd();
  if (type.getRank() != 1)
    return emitOpError("result must be 1-D, got rank ") << type.getRank();
  if (end <= start)
    return emitOpError("end (")
           << end << ") must be greater than start (" << start << ")";
  // Every element, start .. end - 1, must be a value of the element type.
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  int64_t lo = width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
  int64_t hi = width >= 64 ? INT64_MAX : (int64_t(1) << (width - 1)) - 1;
  if (start < lo || end - 1 > hi)
    return emitOpError("range ")
           << start << " to " << end << " does not fit in "
           << type.getElementType();
  if (uint64_t(end) - uint64_t(start) != uint64_t(type.getDimSize(0)))
    return emitOpError("result has ")
           << type.getDimSize(0) << " elements but the range has "
           << uint64_t(end) - uint64_t(start);
  return success();
}

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError("result element type ")
           << getType().getElementType() << " does not match source type "
           << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ");
  if (src.getRank() != dst.getRank())
    return emitOpError("source rank ")
           << src.getRank() << " differs from result rank " << dst.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (src.getDimSize(d) != 1 && src.getDimSize(d) != dst.getDimSize(d))
      return emitOpError("dimension ")
             << d << " of size " << src.getDimSize(d)
             << " cannot be broadcast to " << dst.getDimSize(d);
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ");
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for a tensor of rank " << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (ArrayRef<int64_t>(expected) != dst.getShape())
    return emitOpError("result shape (")
           << shapeStr(dst) << ") must be the source shape with 1 inserted at "
           << axis;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ");
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError("source has ")
           << src.getNumElements() << " elements, result has "
           << dst.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  ArrayRef<int32_t> order = getOrder();
  if ((int64_t)order.size() != src.getRank())
    return emitOpError("order has ")
           << order.size() << " entries for a tensor of rank " << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= (int32_t)order.size() || seen[d])
      return emitOpError("order must be a permutation of 0..")
             << order.size() - 1;
    seen[d] = true;
  }
  if (src.getElementType() != dst.getElementType() ||
      dst.getRank() != src.getRank())
    return emitOpError("result must have the source's element type and rank");
  for (size_t i = 0; i < order.size(); ++i)
    if (dst.getDimSize(i) != src.getDimSize(order[i]))
      return emitOpError("result dimension ")
             << i << " must be source dimension " << order[i] << " ("
             << src.getDimSize(order[i]) << "), got " << dst.getDimSize(i);
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("source and result must have the same shape and "
                       "element type");
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult PtrCastOp::verify() {
  if (!getSrc().getType().getPointeeType().isInteger(8))
    return emitOpError("only !tile.ptr<i8> can be cast, got ")
           << getSrc().getType();
  return success();
}

/// A preshuffled load reads [128, N] fp8 bytes of a paged K block; with
/// `block_base` it names each element's block start in bytes.
static LogicalResult verifyPreshuffled(LoadOp op) {
  bool preshuffled =
      op.getDataLayout() == tessel::tile::DataLayout::preshuffled;
  Value base = op.getBlockBase();
  if (base && !preshuffled)
    return op.emitOpError("'block_base' needs data_layout = preshuffled");
  if (!preshuffled)
    return success();
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type || !type.getElementType().isInteger(8))
    return op.emitOpError("a preshuffled load reads fp8 bytes: its result "
                          "must be an i8 tile, got ")
           << op.getType();
  if (type.getRank() != 2 || type.getDimSize(0) != 128)
    return op.emitOpError("a preshuffled tile must be [128, N] (D = 128 "
                          "bytes along dimension 0, N tokens), got ")
           << type;
  if (!base)
    return success();
  auto baseType = cast<RankedTensorType>(base.getType());
  if (!baseType.getElementType().isInteger(64))
    return op.emitOpError("'block_base' must be an i64 tile (byte offsets), "
                          "got ")
           << baseType;
  if (baseType != op.getOffsets().getType())
    return op.emitOpError("'block_base' type ")
           << baseType << " must equal the offsets type "
           << op.getOffsets().getType();
  return success();
}

LogicalResult LoadOp::verify() {
  Type offsets = getOffsets().getType();
  if (failed(verifyPointee(*this, "result", getType(), offsets,
                           getPtr().getType().getPointeeType())))
    return failure();
  if (failed(verifyMask(*this, getMask(), offsets)))
    return failure();
  if (failed(verifyPreshuffled(*this)))
    return failure();
  if (Value other = getOther()) {
    if (!getMask())
      return emitOpError("'other' needs a mask");
    if (other.getType() != getType())
      return emitOpError("'other' type ")
             << other.getType() << " must equal the result type " << getType();
  }
  return success();
}

LogicalResult StoreOp::verify() {
  Type offsets = getOffsets().getType();
  if (failed(verifyPointee(*this, "value", getValue().getType(), offsets,
                           getPtr().getType().getPointeeType())))
    return failure();
  return verifyMask(*this, getMask(), offsets);
}

static LogicalResult verifyAtomicElem(Operation *op, Type elem) {
  if (!elem.isInteger(32) && !elem.isInteger(64) && !elem.isF32())
    return op->emitOpError("atomics support i32, i64 and f32 elements, got ")
           << elem;
  return success();
}

/// The element type a global pointer or a shared-memory tile holds; a
/// tile must be 1-D without stages, so that offsets are its positions.
static FailureOr<Type> atomicTarget(Operation *op, Type ptr) {
  if (auto p = dyn_cast<PtrType>(ptr))
    return p.getPointeeType();
  auto mem = cast<MemDescType>(ptr);
  if (mem.hasStages() || mem.getShape().size() != 1)
    return op->emitOpError("atomics on a shared-memory tile need a 1-D tile "
                           "without stages, got ")
           << mem;
  return mem.getElementType();
}

LogicalResult AtomicRMWOp::verify() {
  Type offsets = getOffsets().getType();
  FailureOr<Type> elem = atomicTarget(*this, getPtr().getType());
  if (failed(elem))
    return failure();
  if (failed(
          verifyPointee(*this, "value", getValue().getType(), offsets, *elem)))
    return failure();
  if (failed(verifyMask(*this, getMask(), offsets)) ||
      failed(verifyAtomicElem(*this, *elem)))
    return failure();
  bool isFloat = isa<FloatType>(*elem);
  AtomicKind k = getKind();
  if (isFloat && k != AtomicKind::add && k != AtomicKind::max &&
      k != AtomicKind::min && k != AtomicKind::xchg)
    return emitOpError("atomic '")
           << stringifyAtomicKind(k) << "' needs integer elements";
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type offsets = getOffsets().getType();
  if (failed(verifyPointee(*this, "value", getValue().getType(), offsets,
                           getPtr().getType().getPointeeType())) ||
      failed(verifyAtomicElem(*this, getPtr().getType().getPointeeType())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> DotOp::operandShape(Value v) {
  if (auto m = dyn_cast<MemDescType>(v.getType()))
    return m.getTileShape();
  return cast<RankedTensorType>(v.getType()).getShape();
}

Type DotOp::operandElementType(Value v) {
  if (auto m = dyn_cast<MemDescType>(v.getType()))
    return m.getElementType();
  return cast<RankedTensorType>(v.getType()).getElementType();
}

void DotOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand *operand : {&getAMutable(), &getBMutable()})
    if (isa<MemDescType>(operand->get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), operand);
}

/// The first use of the result of an async dot that may read it before it
/// is written: anything but the accumulator of another async dot or a
/// tile.dot_wait, following the value through scf.for iter_args, yields and
/// results. Null when there is none.
static OpOperand *firstEarlyRead(Value result) {
  SmallVector<Value> work{result};
  llvm::DenseSet<Value> seen{result};
  auto follow = [&](Value v) {
    if (seen.insert(v).second)
      work.push_back(v);
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<DotWaitOp>(user))
        continue;
      if (auto dot = dyn_cast<DotOp>(user);
          dot && dot.getAsync() && &use == &dot.getCMutable())
        continue;
      if (auto forOp = dyn_cast<scf::ForOp>(user);
          forOp && use.getOperandNumber() >= forOp.getNumControlOperands()) {
        unsigned k = use.getOperandNumber() - forOp.getNumControlOperands();
        follow(forOp.getRegionIterArgs()[k]);
        follow(forOp.getResult(k));
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user))
        if (auto forOp = dyn_cast<scf::ForOp>(yield->getParentOp())) {
          follow(forOp.getRegionIterArgs()[use.getOperandNumber()]);
          follow(forOp.getResult(use.getOperandNumber()));
          continue;
        }
      return &use;
    }
  }
  return nullptr;
}

LogicalResult DotOp::verify() {
  if (getAsync())
    if (OpOperand *use = firstEarlyRead(getResult())) {
      InFlightDiagnostic d =
          emitOpError("is async: its result is still being written when '")
          << use->getOwner()->getName()
          << "' reads it; use it only as the accumulator of another async "
             "tile.dot or through tile.dot_wait";
      d.attachNote(use->getOwner()->getLoc()) << "read here";
      return d;
    }
  for (auto [name, v] :
       {std::pair<StringRef, Value>{"a", getA()}, {"b", getB()}})
    if (auto m = dyn_cast<MemDescType>(v.getType()); m && m.hasStages())
      return emitOpError("operand ")
             << name << " in shared memory must be one stage (take it with "
             << "tile.memdesc_index), got " << m;
  ArrayRef<int64_t> a = operandShape(getA()), b = operandShape(getB());
  auto c = getC().getType(), d = getType();
  if (a.size() != 2 || b.size() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D");
  if (a[1] != b[0])
    return emitOpError("K of a (")
           << a[1] << ") does not match K of b (" << b[0] << ")";
  if (c.getDimSize(0) != a[0] || c.getDimSize(1) != b[1])
    return emitOpError("accumulator shape (")
           << shapeStr(c) << ") must be " << a[0] << "x" << b[1];
  if (c != d)
    return emitOpError("result type must equal the accumulator type");
  if (!c.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ") << c.getElementType();
  Type ea = operandElementType(getA()), eb = operandElementType(getB());
  bool ok = (isFp8(ea) && ea == eb) || (ea.isBF16() && eb.isBF16());
  if (!ok)
    return emitOpError("unsupported operand types ")
           << ea << " x " << eb
           << "; expected fp8 x fp8 of one format, or bf16 x bf16";
  return success();
}

/// umax and umin order integers; a float has no unsigned order.
static LogicalResult verifyCombineKind(Operation *op, CombineKind kind,
                                       Type elem) {
  if ((kind == CombineKind::umax || kind == CombineKind::umin) &&
      !isa<IntegerType>(elem))
    return op->emitOpError("combine kind ")
           << stringifyCombineKind(kind) << " needs integer elements, got "
           << elem;
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (failed(verifyAxis(*this, axis, src.getRank())) ||
      failed(verifyCombineKind(*this, getKind(), src.getElementType())))
    return failure();
  Type elem = src.getElementType();
  if (getElementTypeOrSelf(getType()) != elem)
    return emitOpError("result element type must be ") << elem;
  if (src.getRank() == 1) {
    if (getType() != elem)
      return emitOpError("reducing a 1-D tensor gives a scalar ") << elem;
    return success();
  }
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + axis);
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected) ||
      !isa<RankedTensorType>(getType()))
    return emitOpError("result shape (")
           << shapeStr(getType()) << ") must be the source shape without axis "
           << axis;
  return success();
}

LogicalResult ScanOp::verify() {
  RankedTensorType src = getSrc().getType();
  if (failed(verifyAxis(*this, static_cast<int32_t>(getAxis()), src.getRank())))
    return failure();
  return verifyCombineKind(*this, getKind(), src.getElementType());
}

LogicalResult PrefixCountOp::verify() {
  RankedTensorType mask = getMask().getType();
  if (mask.getRank() != 1)
    return emitOpError("mask must be 1-D, got ") << shapeStr(mask);
  if (getPositions().getType().getShape() != mask.getShape())
    return emitOpError("positions (")
           << shapeStr(getPositions().getType())
           << ") must have the mask's shape (" << shapeStr(mask) << ")";
  return success();
}

LogicalResult GatherOp::verify() {
  RankedTensorType src = getSrc().getType(), idx = getIndices().getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (failed(verifyAxis(*this, axis, src.getRank())))
    return failure();
  if (idx.getRank() != src.getRank())
    return emitOpError("indices (")
           << shapeStr(idx) << ") must have the rank "
           << "of the source (" << shapeStr(src) << ")";
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) != src.getDimSize(d))
      return emitOpError("indices (")
             << shapeStr(idx) << ") and source (" << shapeStr(src)
             << ") must have the same size in every dimension but axis "
             << axis;
  if (getType().getShape() != idx.getShape())
    return emitOpError("result shape (")
           << shapeStr(getType()) << ") must be the indices' shape ("
           << shapeStr(idx) << ")";
  if (getType().getElementType() != src.getElementType())
    return emitOpError("result element type must be the source's, ")
           << src.getElementType();
  return success();
}

/// A histogram's optional mask has its keys' shape.
template <typename HistOp>
static LogicalResult verifyHistogramMask(HistOp op) {
  if (Value mask = op.getMask())
    if (shapeOf(mask.getType()) != op.getKeys().getType().getShape())
      return op.emitOpError("mask shape (")
             << shapeStr(mask.getType()) << ") must match keys shape ("
             << shapeStr(op.getKeys().getType()) << ")";
  return success();
}

LogicalResult HistogramOp::verify() {
  if (getType().getRank() != 1 || getType().getDimSize(0) < 1)
    return emitOpError("result must be a 1-D tensor of at least one bin");
  return verifyHistogramMask(*this);
}

LogicalResult HistogramAddOp::verify() {
  MemDescType bins = getBins().getType();
  if (bins.hasStages() || bins.getShape().size() != 1 ||
      !bins.getElementType().isInteger(32))
    return emitOpError("bins must be a 1-D i32 shared-memory tile without "
                       "stages, got ")
           << bins;
  return verifyHistogramMask(*this);
}

LogicalResult TopKOp::verify() {
  if (!getSrc().getType().getPointeeType().isF32())
    return emitOpError("source must be !tile.ptr<f32>, got ")
           << getSrc().getType();
  if (!getDst().getType().getPointeeType().isInteger(32))
    return emitOpError("destination must be !tile.ptr<i32>, got ")
           << getDst().getType();
  int64_t k = static_cast<int32_t>(getK());
  if (k <= 0)
    return emitOpError("k must be positive, got ") << k;
  int64_t chunk = static_cast<int32_t>(getChunk());
  if (chunk <= 0 || !llvm::isPowerOf2_64(chunk))
    return emitOpError("chunk must be a positive power of two, got ") << chunk;
  // The sort's pairs live in a shared-memory tile, whose size is a power of
  // two.
  if (getSorted() && !llvm::isPowerOf2_64(k))
    return emitOpError("with `sorted`, k must be a power of two, got ") << k;
  if (isSplit() && !getWs().getType().getPointeeType().isInteger(32))
    return emitOpError("the split workspace must be !tile.ptr<i32>, got ")
           << getWs().getType();
  return success();
}

LogicalResult GridBarrierOp::verify() {
  if (!getPtr().getType().getPointeeType().isInteger(32))
    return emitOpError("the barrier counter must be i32");
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// Checks that `tensor` and the memdesc `mem` (without a stage dimension)
/// hold the same tile; `what` names the tensor.
static LogicalResult verifyTileMatches(Operation *op, StringRef what,
                                       RankedTensorType tensor,
                                       MemDescType mem) {
  if (mem.hasStages())
    return op->emitOpError("the shared-memory tile has ")
           << mem.getNumStages()
           << " stages; pick one with tile.memdesc_index first";
  if (tensor.getShape() != mem.getShape())
    return op->emitOpError() << what << " shape (" << shapeStr(tensor)
                             << ") must match the shared-memory tile shape ("
                             << shapeStr(RankedTensorType::get(
                                    mem.getShape(), mem.getElementType()))
                             << ")";
  if (tensor.getElementType() != mem.getElementType())
    return op->emitOpError()
           << what << " element type " << tensor.getElementType()
           << " does not match the shared-memory element type "
           << mem.getElementType();
  if (isa_and_nonnull<SharedLayoutAttr>(tensor.getEncoding()))
    return op->emitOpError()
           << what << " must have a distributed layout, not a shared one";
  return success();
}

LogicalResult LocalAllocOp::verify() {
  if (Value init = getInit())
    return verifyTileMatches(*this, "init",
                             cast<RankedTensorType>(init.getType()), getType());
  return success();
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType();
  if (!src.hasStages())
    return emitOpError("source has no stage dimension to index");
  if (getType() != src.getStageType())
    return emitOpError("result type must be ")
           << src.getStageType() << " (the source without its stage "
           << "dimension), got " << getType();
  return success();
}

LogicalResult LocalStoreOp::verify() {
  return verifyTileMatches(*this, "stored value", getValue().getType(),
                           getDst().getType());
}

LogicalResult LocalLoadOp::verify() {
  return verifyTileMatches(*this, "result", getType(), getSrc().getType());
}

LogicalResult AsyncCommitGroupOp::verify() {
  if (bool(getBarrier()) != bool(getFill()))
    return emitOpError("a barrier needs a fill index, and a fill index a "
                       "barrier");
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  if (bool(getBarrier()) != bool(getFill()))
    return emitOpError("a barrier needs a fill index, and a fill index a "
                       "barrier");
  if (bool(getBarrier()) == getNum().has_value())
    return emitOpError("waits either for groups ({num = N}) or for a barrier "
                       "fill (barrier(%bar[%fill])), not ")
           << (getBarrier() ? "both" : "neither");
  return success();
}

LogicalResult DotWaitOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  for (Value v : operands)
    results.push_back(v.getType());
  return success();
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  MemDescType dst = getDst().getType();
  auto offsets = getOffsets().getType();
  if (!offsets.getElementType().isInteger(32) &&
      !offsets.getElementType().isInteger(64))
    return emitOpError("offsets must be i32 or i64, got ")
           << offsets.getElementType();
  if (getPtr().getType().getPointeeType() != dst.getElementType())
    return emitOpError("pointee type ")
           << getPtr().getType().getPointeeType()
           << " does not match the shared-memory element type "
           << dst.getElementType();
  if (failed(verifyTileMatches(*this, "offsets",
                               RankedTensorType::get(offsets.getShape(),
                                                     dst.getElementType(),
                                                     offsets.getEncoding()),
                               dst)))
    return failure();
  return verifyMask(*this, getMask(), offsets);
}
