//===- TileDialect.h - The tile dialect ---------------------------*- C++
//-*-===//
//
// Public header of the tile dialect: the dialect, its types, attributes
// (layout encodings, knob declarations, enums) and operations.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TILE_TILEDIALECT_H
#define TESSEL_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessel/Dialect/Tile/LinearLayout.h"

#include "tessel/Dialect/Tile/TileDialect.h.inc"
#include "tessel/Dialect/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tile/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/Tile/TileTypes.h.inc"

namespace tessel::tile {
/// True when `v` is a value of integer type `type`, read as signed (i1
/// takes 0 and 1).
bool fitsIn(int64_t v, mlir::IntegerType type);
/// Rank of the tensors a distributed layout (blocked, slice, mfma, nv_mma,
/// dot_operand, linear) describes, or nullopt for other attributes.
std::optional<unsigned> distributedLayoutRank(mlir::Attribute layout);

/// Fails, naming the value and suggesting a 1-element tile, when an operand
/// or result of `op` is a rank-0 tensor. Tiles have rank >= 1.
mlir::LogicalResult verifyNoRank0Tensors(mlir::Operation *op);

namespace OpTrait {
/// Every tile op: no operand or result is a rank-0 tensor.
template <typename ConcreteType>
class NoRank0Tensors
    : public mlir::OpTrait::TraitBase<ConcreteType, NoRank0Tensors> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyNoRank0Tensors(op);
  }
};
} // namespace OpTrait
} // namespace tessel::tile

#define GET_OP_CLASSES
#include "tessel/Dialect/Tile/TileOps.h.inc"

#endif // TESSEL_DIALECT_TILE_TILEDIALECT_H
