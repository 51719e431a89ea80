//===- TileAttrs.cpp - tile dialect attributes and layouts ----------------===//

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/MfmaShapes.h"
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
  return v >= -(int64_t(1) << (w - 1)) && v < (int64_t(1) << (w - 1));
}

std::optional<unsigned> tessel::tile::distributedLayoutRank(Attribute layout) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout))
    return blocked.getRank();
  if (isa<MfmaLayoutAttr, NvMmaLayoutAttr, DotOperandLayoutAttr>(layout))
    return 2;
  if (auto linear = dyn_cast<LinearEncodingAttr>(layout))
    return linear.getRank();
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    std::optional<unsigned> parent = distributedLayoutRank(slice.getParent());
    if (!parent || *parent == 0)
      return std::nullopt;
    return *parent - 1;
  }
  return std::nullopt;
}

/// Shared by the layouts' VerifiableTensorEncoding implementations.
static LogicalResult
verifyLayoutRank(Attribute layout, unsigned rank, ArrayRef<int64_t> shape,
                 function_ref<InFlightDiagnostic()> emitError) {
  if (shape.size() != rank)
    return emitError() << "layout " << layout << " has rank " << rank
                       << " but the tensor has rank " << shape.size();
  return success();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, getRank(), shape, emitError);
}
LogicalResult SliceLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, *distributedLayoutRank(*this), shape,
                          emitError);
}
LogicalResult MfmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, 2, shape, emitError);
}
LogicalResult NvMmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, 2, shape, emitError);
}
LogicalResult DotOperandLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, 2, shape, emitError);
}
LogicalResult LinearEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyLayoutRank(*this, getRank(), shape, emitError)))
    return failure();
  for (unsigned in = 0; in < 3; ++in)
    for (ArrayRef<int32_t> basis : getBases(in))
      for (auto [d, c] : llvm::enumerate(basis))
        if (c >= shape[d])
          return emitError() << "layout " << *this << " holds coordinate " << c
                             << " of dimension " << d
                             << ", outside the tensor's " << shape[d];
  std::string why;
  FailureOr<LinearLayout> l = toLinearLayout(shape, *this, &why);
  if (failed(l))
    return emitError() << "layout " << *this << ": " << why;
  if (!l->isSurjective())
    return emitError() << "layout " << *this
                       << " leaves elements of the tensor unheld (its bases "
                          "do not span the shape)";
  return success();
}
LogicalResult SharedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(*this, getOrder().size(), shape, emitError);
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
  return llvm::all_of(values,
                      [](unsigned v) { return llvm::isPowerOf2_32(v); });
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
    return emitError() << "default " << *defaultValue << " of knob '" << name
                       << "' does not fit in " << type;
  if (values && values.empty())
    return emitError() << "knob '" << name << "' lists no allowed values";
  if (values) {
    ArrayRef<int64_t> vs = values.asArrayRef();
    for (auto [i, v] : llvm::enumerate(vs)) {
      if (!fitsIn(v, cast<IntegerType>(type)))
        return emitError() << "value " << v << " of knob '" << name
                           << "' does not fit in " << type;
      if (llvm::is_contained(vs.take_front(i), v))
        return emitError() << "knob '" << name << "' lists the value " << v
                           << " twice";
    }
  }
  if (values && defaultValue &&
      !llvm::is_contained(values.asArrayRef(), *defaultValue))
    return emitError() << "default " << *defaultValue << " of knob '" << name
                       << "' is not among its values";
  return success();
}

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWave,
    ArrayRef<unsigned> wavesPerCTA, ArrayRef<unsigned> order) {
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
  std::optional<unsigned> parentRank = distributedLayoutRank(parent);
  if (!parentRank)
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  if (*parentRank < 2)
    return emitError() << "slice parent must have rank >= 2, got "
                       << *parentRank;
  if (dim >= *parentRank)
    return emitError() << "slice dim " << dim
                       << " out of range for parent of rank " << *parentRank;
  return success();
}

LogicalResult
MfmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned version, ArrayRef<unsigned> instrShape,
                       ArrayRef<unsigned> wavesPerCTA, bool transposed) {
  // `transposed` needs no check: it swaps the roles of M and N in the
  // accumulator tile (LinearLayoutConversions.h), which the dot lowering
  // honours by swapping the instruction's operands.
  (void)transposed;
  if (version != 3 && version != 4)
    return emitError() << "mfma version must be 3 (CDNA3) or 4 (CDNA4), got "
                       << version;
  if (instrShape.size() != 3)
    return emitError() << "mfma instrShape must be [M, N, K]";
  if (const MfmaShape *s =
          findMfmaShape(instrShape[0], instrShape[1], instrShape[2]);
      s && s->minVersion > version)
    return emitError() << "mfma instruction shape " << instrShape[0] << "x"
                       << instrShape[1] << "x" << instrShape[2]
                       << " needs version >= " << s->minVersion
                       << ", got version " << version;
  if (!findMfmaShape(version, instrShape[0], instrShape[1], instrShape[2])) {
    InFlightDiagnostic diag = emitError();
    diag << "unsupported mfma instruction shape " << instrShape[0] << "x"
         << instrShape[1] << "x" << instrShape[2] << " for version " << version
         << " (supported:";
    llvm::StringRef sep = " ";
    for (const MfmaShape &s : kMfmaShapes)
      if (s.minVersion <= version) {
        diag << sep << s.m << "x" << s.n << "x" << s.k << " "
             << mfmaOperandKindName(s.operand);
        sep = ", ";
      }
    return diag << ")";
  }
  if (wavesPerCTA.size() != 2 || !allPowersOfTwo(wavesPerCTA))
    return emitError()
           << "mfma wavesPerCTA must be two powers of two [along M, along N]";
  return success();
}

LogicalResult
NvMmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned version, ArrayRef<unsigned> instrShape,
                        ArrayRef<unsigned> wavesPerCTA) {
  if (version != 2 && version != 3)
    return emitError()
           << "nv_mma version must be 2 (mma.sync) or 3 (wgmma), got "
           << version;
  if (instrShape.size() != 3)
    return emitError() << "nv_mma instrShape must be [M, N, K]";
  if (version == 2 && (instrShape[0] != 16 || instrShape[1] != 8))
    return emitError() << "mma.sync instrShape must be [16, 8, K]";
  if (version == 3 && (instrShape[0] != 64 || instrShape[1] < 8 ||
                       instrShape[1] % 8 != 0 || instrShape[1] > 256))
    return emitError() << "wgmma instrShape must be [64, N, K] with N a "
                          "multiple of 8 from 8 to 256";
  // K of one instruction: 16 for 16-bit operands, 32 for fp8 (8 for tf32).
  if (instrShape[2] != 8 && instrShape[2] != 16 && instrShape[2] != 32)
    return emitError() << "nv_mma K must be 8, 16 or 32, got " << instrShape[2];
  if (wavesPerCTA.size() != 2 || !allPowersOfTwo(wavesPerCTA))
    return emitError()
           << "nv_mma wavesPerCTA must be two powers of two [along M, along N]";
  return success();
}

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned opIdx, Attribute parent,
                             unsigned kWidth) {
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
  // perPhase = maxPhase = 0: the compiler chooses the swizzle.
  bool chosenLater = perPhase == 0 && maxPhase == 0;
  if (!llvm::isPowerOf2_32(vec) ||
      (!chosenLater &&
       (!llvm::isPowerOf2_32(perPhase) || !llvm::isPowerOf2_32(maxPhase))))
    return emitError() << "shared layout vec, perPhase and maxPhase must be "
                          "powers of two (the swizzle XORs bit fields), or "
                          "perPhase = maxPhase = 0 for a swizzle the "
                          "compiler chooses";
  if (order.empty() || !isPermutation(order))
    return emitError() << "shared layout order must be a permutation";
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.linear
//===----------------------------------------------------------------------===//

static constexpr const char *kLinearInNames[] = {"register", "lane", "wave"};

SmallVector<SmallVector<int32_t, 4>>
LinearEncodingAttr::getBases(unsigned in) const {
  ArrayRef<int32_t> flat = in == 0   ? getRegisterBases()
                           : in == 1 ? getLaneBases()
                                     : getWaveBases();
  SmallVector<SmallVector<int32_t, 4>> out;
  unsigned r = std::max(1u, getRank());
  for (size_t i = 0; i + r <= flat.size(); i += r)
    out.emplace_back(flat.slice(i, r));
  return out;
}

LinearEncodingAttr LinearEncodingAttr::get(MLIRContext *ctx,
                                           const LinearLayout &layout) {
  unsigned rank = layout.getOutDims().size();
  SmallVector<int32_t> flat[3];
  for (const LinearLayout::InDim &in : layout.getInDims()) {
    unsigned idx = in.name == kRegisterDim ? 0 : in.name == kLaneDim ? 1 : 2;
    for (const LinearLayout::Basis &b : in.bases)
      flat[idx].append(b.begin(), b.end());
  }
  return get(ctx, rank, flat[0], flat[1], flat[2]);
}

LogicalResult
LinearEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           unsigned rank, ArrayRef<int32_t> registerBases,
                           ArrayRef<int32_t> laneBases,
                           ArrayRef<int32_t> waveBases) {
  if (rank == 0)
    return emitError() << "linear layout rank must be at least 1";
  ArrayRef<int32_t> all[] = {registerBases, laneBases, waveBases};
  for (auto [in, flat] : llvm::enumerate(all)) {
    if (flat.size() % rank)
      return emitError() << "linear layout '" << kLinearInNames[in]
                         << "' bases must have " << rank << " coordinates each";
    if (flat.size() / rank > 30)
      return emitError() << "linear layout '" << kLinearInNames[in]
                         << "' has more than 30 bases";
    for (int32_t c : flat)
      if (c < 0)
        return emitError() << "linear layout coordinates must be "
                              "non-negative, got "
                           << c;
  }
  return success();
}

Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  // #tile.linear<{rank = R, register = [[..], ..], lane = [..], wave = [..]}>
  unsigned rank = 0;
  SmallVector<int32_t> flat[3];
  auto parseBases = [&](SmallVector<int32_t> &out) -> ParseResult {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                                [&]() -> ParseResult {
                                                  int32_t v;
                                                  if (parser.parseInteger(v))
                                                    return failure();
                                                  out.push_back(v);
                                                  return success();
                                                });
        });
  };
  if (parser.parseLess() || parser.parseLBrace() ||
      parser.parseKeyword("rank") || parser.parseEqual() ||
      parser.parseInteger(rank))
    return {};
  for (unsigned in = 0; in < 3; ++in)
    if (parser.parseComma() || parser.parseKeyword(kLinearInNames[in]) ||
        parser.parseEqual() || parseBases(flat[in]))
      return {};
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  return parser.getChecked<LinearEncodingAttr>(parser.getContext(), rank,
                                               flat[0], flat[1], flat[2]);
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{rank = " << getRank();
  for (unsigned in = 0; in < 3; ++in) {
    printer << ", " << kLinearInNames[in] << " = [";
    llvm::interleaveComma(getBases(in), printer, [&](ArrayRef<int32_t> basis) {
      printer << "[";
      llvm::interleaveComma(basis, printer);
      printer << "]";
    });
    printer << "]";
  }
  printer << "}>";
}
