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
