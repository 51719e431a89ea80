//===- TileDialect.cpp - tile dialect registration and types -------------===//

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

#include "tessel/Dialect/Tile/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/Tile/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessel/Dialect/Tile/TileTypes.cpp.inc"
      >();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/Tile/TileOps.cpp.inc"
      >();
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type pointeeType) {
  if (!pointeeType.isSignlessInteger() && !isa<FloatType>(pointeeType))
    return emitError() << "pointee must be a signless integer or float type, "
                          "got "
                       << pointeeType;
  return success();
}

LogicalResult
AsyncBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned stages) {
  // More stages than any tile ring in 227 KiB of shared memory is a slip.
  if (stages < 1 || stages > 16)
    return emitError() << "an async barrier ring has 1 to 16 stages, got "
                       << stages;
  return success();
}

/// `tile.divisibility = N` on a kernel argument promises that a pointer's
/// address (in bytes) or an integer's value is a multiple of N; the runtime
/// checks the promise, the vectorizer relies on it. It stays on the argument
/// when the kernel becomes a gpu.func (where pointers are memrefs).
LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != "tile.divisibility")
    return op->emitError() << "unknown argument attribute '"
                           << attr.getName().getValue() << "'";
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || value.getInt() <= 0 || !llvm::isPowerOf2_64(value.getInt()))
    return op->emitError() << "tile.divisibility of argument #" << argIndex
                           << " must be a positive power of two, got "
                           << attr.getValue();
  Region &region = op->getRegion(regionIndex);
  if (region.empty() || argIndex >= region.getNumArguments())
    return success();
  Type type = region.getArgument(argIndex).getType();
  if (!isa<PtrType, MemRefType>(type) && !type.isSignlessInteger())
    return op->emitError() << "tile.divisibility applies to pointer and "
                              "integer arguments, not "
                           << type;
  return success();
}

//===----------------------------------------------------------------------===//
// !tile.memdesc
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elem;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elem) || parser.parseComma() ||
      parser.parseAttribute(encoding) || parser.parseGreater())
    return {};
  return parser.getChecked<MemDescType>(parser.getContext(), shape, elem,
                                        encoding);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding) {
  auto shared = dyn_cast<SharedLayoutAttr>(encoding);
  if (!shared)
    return emitError() << "memdesc layout must be #tile.shared, got "
                       << encoding;
  bool elemOk = (elementType.isSignlessInteger() &&
                 elementType.getIntOrFloatBitWidth() >= 8 &&
                 elementType.getIntOrFloatBitWidth() <= 64) ||
                isa<FloatType>(elementType);
  if (!elemOk)
    return emitError() << "memdesc element type must be a float or a "
                          "signless integer of 8 to 64 bits, got "
                       << elementType;
  size_t rank = shared.getOrder().size();
  if (shape.size() != rank && shape.size() != rank + 1)
    return emitError() << "memdesc shape has rank " << shape.size()
                       << " but its shared layout has rank " << rank
                       << " (one more for a leading stage dimension)";
  bool staged = shape.size() == rank + 1;
  if (staged && shape[0] < 1)
    return emitError() << "memdesc stage count must be positive, got "
                       << shape[0];
  for (int64_t d : shape.drop_front(staged ? 1 : 0))
    if (d < 1 || !llvm::isPowerOf2_64(d))
      return emitError() << "memdesc tile dimensions must be powers of two "
                            "(the shared layout is a linear map of the "
                            "offset bits), got "
                         << d;
  return success();
}

int64_t MemDescType::getTileElems() const {
  int64_t n = 1;
  for (int64_t d : getTileShape())
    n *= d;
  return n;
}

MemDescType MemDescType::getStageType() const {
  return MemDescType::get(getContext(), getTileShape(), getElementType(),
                          getEncoding());
}
