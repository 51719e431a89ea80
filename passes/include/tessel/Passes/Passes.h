//===- Passes.h - Target-independent passes on tile IR -----------*- C++
//-*-===//
#ifndef TESSEL_PASSES_PASSES_H
#define TESSEL_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/Tile/TileDialect.h"

namespace tessel {

#define GEN_PASS_DECL
#include "tessel/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Passes/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_PASSES_PASSES_H
