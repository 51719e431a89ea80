//===- TileDialect.cpp - tile dialect registration and types -------------===//

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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
