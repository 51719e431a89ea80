//===- TileAttrs.cpp - tile dialect attributes and layouts ----------------===//

#include "tessel/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel::tile;

#include "tessel/Dialect/Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tile/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/Tile/TileAttrs.cpp.inc"
      >();
}

bool tessel::tile::fitsIn(int64_t v, IntegerType type) {
  unsigned w = type.getWidth();
  if (w == 1)
    return v == 0 || v == 1;
  if (w >= 64)
    return true;
  return v >= -(int64_t(1) << (w - 1)) && v < (int64_t(1) << w);
}

static bool isPermutation(ArrayRef<unsigned> order) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

static bool allPowersOfTwo(ArrayRef<unsigned> values) {
  return llvm::all_of(values, [](unsigned v) { return llvm::isPowerOf2_32(v); });
}

LogicalResult KnobAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, Type type,
                               std::optional<int64_t> defaultValue,
                               DenseI64ArrayAttr values) {
  if (name.empty())
    return emitError() << "knob name must not be empty";
  if (!type.isSignlessInteger())
    return emitError() << "knob '" << name
                       << "' must have a signless integer type, got " << type;
  if (defaultValue && !fitsIn(*defaultValue, cast<IntegerType>(type)))
    return emitError() << "default " << *defaultValue << " of knob '"
                       << name << "' does not fit in " << type;
  if (values && values.empty())
    return emitError() << "knob '" << name
                       << "' lists no allowed values";
  if (values && defaultValue &&
      !llvm::is_contained(values.asArrayRef(), *defaultValue))
    return emitError() << "default " << *defaultValue << " of knob '"
                       << name << "' is not among its values";
  return success();
}

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> sizePerThread,
                          ArrayRef<unsigned> threadsPerWave,
                          ArrayRef<unsigned> wavesPerCTA,
                          ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0)
    return emitError() << "blocked layout must have rank >= 1";
  if (sizePerThread.size() != rank || threadsPerWave.size() != rank ||
      wavesPerCTA.size() != rank)
    return emitError() << "blocked layout arrays must all have rank " << rank
                       << " (sizePerThread " << sizePerThread.size()
                       << ", threadsPerWave " << threadsPerWave.size()
                       << ", wavesPerCTA " << wavesPerCTA.size() << ")";
  if (!isPermutation(order))
    return emitError() << "blocked layout order must be a permutation of 0.."
                       << rank - 1;
  if (!allPowersOfTwo(sizePerThread) || !allPowersOfTwo(threadsPerWave) ||
      !allPowersOfTwo(wavesPerCTA))
    return emitError()
           << "blocked layout sizes must be powers of two (and non-zero)";
  return success();
}

unsigned BlockedLayoutAttr::getNumLanes() const {
  unsigned n = 1;
  for (unsigned t : getThreadsPerWave())
    n *= t;
  return n;
}

unsigned BlockedLayoutAttr::getNumWaves() const {
  unsigned n = 1;
  for (unsigned w : getWavesPerCTA())
    n *= w;
  return n;
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  unsigned parentRank = 0;
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(parent))
    parentRank = blocked.getRank();
  else if (auto mfma = dyn_cast<MfmaLayoutAttr>(parent))
    parentRank = mfma.getWavesPerCTA().size();
  else if (auto mma = dyn_cast<NvMmaLayoutAttr>(parent))
    parentRank = mma.getWavesPerCTA().size();
  else if (auto slice = dyn_cast<SliceLayoutAttr>(parent))
    parentRank = 0; // nested slices are checked when used
  else
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  if (parentRank && dim >= parentRank)
    return emitError() << "slice dim " << dim << " out of range for parent of rank "
                       << parentRank;
  return success();
}

LogicalResult MfmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     unsigned version,
                                     ArrayRef<unsigned> instrShape,
                                     ArrayRef<unsigned> wavesPerCTA,
                                     bool transposed) {
  (void)transposed;
  if (version != 3 && version != 4)
    return emitError() << "mfma version must be 3 (CDNA3) or 4 (CDNA4), got "
                       << version;
  if (instrShape.size() != 3)
    return emitError() << "mfma instrShape must be [M, N, K]";
  static const unsigned kShapes[][3] = {
      {16, 16, 32}, {32, 32, 16}, {16, 16, 16}, {32, 32, 8}};
  bool known = llvm::any_of(kShapes, [&](const unsigned(&s)[3]) {
    return instrShape[0] == s[0] && instrShape[1] == s[1] &&
           instrShape[2] == s[2];
  });
  if (!known)
    return emitError() << "unsupported mfma instruction shape " << instrShape[0]
                       << "x" << instrShape[1] << "x" << instrShape[2]
                       << " (supported: 16x16x32, 32x32x16 fp8; 16x16x16, "
                          "32x32x8 bf16)";
  if (wavesPerCTA.size() != 2 || !allPowersOfTwo(wavesPerCTA))
    return emitError()
           << "mfma wavesPerCTA must be two powers of two [along M, along N]";
  return success();
}

LogicalResult NvMmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      unsigned version,
                                      ArrayRef<unsigned> instrShape,
                                      ArrayRef<unsigned> wavesPerCTA) {
  if (version != 2 && version != 3)
    return emitError() << "nv_mma version must be 2 (mma.sync) or 3 (wgmma), got "
                       << version;
  if (instrShape.size() != 3)
    return emitError() << "nv_mma instrShape must be [M, N, K]";
  if (version == 2 && (instrShape[0] != 16 || instrShape[1] != 8))
    return emitError() << "mma.sync instrShape must be [16, 8, K]";
  if (version == 3 && (instrShape[0] != 64 || instrShape[1] % 8 != 0 ||
                       instrShape[1] > 256))
    return emitError() << "wgmma instrShape must be [64, N, K] with N a "
                          "multiple of 8 up to 256";
  if (wavesPerCTA.size() != 2 || !allPowersOfTwo(wavesPerCTA))
    return emitError()
           << "nv_mma wavesPerCTA must be two powers of two [along M, along N]";
  return success();
}

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned opIdx, Attribute parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot_operand opIdx must be 0 (A) or 1 (B), got "
                       << opIdx;
  if (!isa<MfmaLayoutAttr, NvMmaLayoutAttr>(parent))
    return emitError() << "dot_operand parent must be #tile.mfma or "
                          "#tile.nv_mma, got "
                       << parent;
  if (kWidth == 0 || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "dot_operand kWidth must be a power of two";
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned vec, unsigned perPhase, unsigned maxPhase,
                         ArrayRef<unsigned> order) {
  if (vec == 0 || perPhase == 0 || maxPhase == 0)
    return emitError() << "shared layout vec, perPhase and maxPhase must be "
                          "positive";
  if (order.empty() || !isPermutation(order))
    return emitError() << "shared layout order must be a permutation";
  return success();
}
