//===- DotToSimt.h - tile.dot to the target's matrix instruction -*- C++
//-*-===//
#ifndef TESSEL_LOWERING_DOTTOSIMT_H
#define TESSEL_LOWERING_DOTTOSIMT_H

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/Transforms/DialectConversion.h"

namespace tessel {

/// Lowers `tile.dot` whose result has the target's accumulator encoding and
/// whose operands have the matching operand encodings
/// (TargetInfo::matrixOperandEncoding) to one matrix instruction per
/// register tile and K step, accumulating in registers.
void populateDotToSimtPatterns(const mlir::TypeConverter &tc,
                               mlir::RewritePatternSet &patterns,
                               const TargetInfo &target);

} // namespace tessel

#endif // TESSEL_LOWERING_DOTTOSIMT_H
