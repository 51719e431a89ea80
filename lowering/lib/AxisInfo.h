//===- AxisInfo.h - Contiguity and divisibility of tile values ---*- C++
//-*-===//
//
// What the vectorizer needs to know about an integer tile: along each
// dimension, how many consecutive elements increase by exactly one
// (contiguity), the largest power of two dividing the first element of each
// such run (divisibility), and how many consecutive elements are equal
// (constancy). Facts come from tile.range, constants, `tile.divisibility`
// argument attributes and the arithmetic between them.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_AXISINFO_H
#define TESSEL_LOWERING_AXISINFO_H

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace tessel {

struct AxisInfo {
  llvm::SmallVector<int64_t> contiguity, divisibility, constancy;
  /// Known constant value (scalars and splats).
  std::optional<int64_t> constant;

  static AxisInfo unknown(llvm::ArrayRef<int64_t> shape);
  /// Divisibility that holds for every element along d (run starts are
  /// only known to be divisible; the elements after them add 1, 2, ...).
  int64_t elementDivisibility(unsigned d) const {
    return contiguity[d] > 1 ? 1 : divisibility[d];
  }
  unsigned rank() const { return contiguity.size(); }
};

class AxisInfoAnalysis {
public:
  /// Analyses the values of a function holding tile IR. Arguments may
  /// promise divisibility with a `tile.divisibility` attribute.
  explicit AxisInfoAnalysis(mlir::FunctionOpInterface func);
  /// Facts about `v`; scalars are described as tensors of shape [1].
  /// Returned by value: a later query may insert into the cache and move
  /// its entries, so no caller may hold a reference into it.
  AxisInfo get(mlir::Value v);

  /// Whether no element of `v` is negative (read as signed): ranges from
  /// 0, program ids, zero extensions, and what keeps those non-negative.
  bool isNonNegative(mlir::Value v);

private:
  AxisInfo compute(mlir::Value v);
  /// Facts of an extension (extsi, extui, index_cast[ui]) of its operand.
  AxisInfo extended(mlir::Operation *def);
  /// Facts of the low `width` bits of a value with facts `r`.
  static AxisInfo truncated(AxisInfo r, unsigned width);
  bool computeNonNegative(mlir::Value v);
  llvm::DenseMap<mlir::Value, AxisInfo> infos;
  llvm::DenseMap<mlir::Value, bool> nonNegative;
  llvm::DenseMap<mlir::Value, int64_t> argDivisibility;
};

} // namespace tessel

#endif
