//===- LinearLayoutConversions.cpp - Encodings as linear layouts ----------===//
//
// The register/lane facts of the matrix instructions, as bases:
//  - MFMA (CDNA3 Matrix Instruction Calculator tables, amd-isa-facts/; for
//    gfx950's f8f6f4 instructions the AMD tables that
//    runtime/emulator/README.md names);
//  - mma.sync and wgmma (PTX ISA, "Matrix Fragments for mma.m16n8k16",
//    "Matrix Fragments for mma.m16n8k32" and wgmma "Register Fragments").
// The unit tests check each against those sources entry by entry.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/MfmaShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

std::string tessel::tile::tensorDimName(unsigned d) {
  return "dim" + std::to_string(d);
}

namespace {

enum In : unsigned { Reg = 0, Lane = 1, Wave = 2 };

LogicalResult fail(std::string *error, const Twine &msg) {
  if (error)
    *error = msg.str();
  return failure();
}

unsigned log2(int64_t v) { return llvm::Log2_64(v); }

/// Accumulates the bases of a distributed layout bit by bit. Coordinates
/// wrap modulo the tensor shape, so bits beyond it become broadcasts.
class DistBuilder {
public:
  explicit DistBuilder(ArrayRef<int64_t> shape) : shape(shape) {
    ins.push_back({kRegisterDim.str(), {}});
    ins.push_back({kLaneDim.str(), {}});
    ins.push_back({kWaveDim.str(), {}});
  }
  /// Appends the next bit of input dim `in`: it maps to `coord` along `d`.
  void add(In in, unsigned d, int64_t coord) {
    LinearLayout::Basis b(shape.size(), 0);
    b[d] = int32_t(coord & (shape[d] - 1));
    ins[in].bases.push_back(b);
  }
  /// Appends `n` bits to `in`, mapping to coord * 2^i along `d`.
  void addRun(In in, unsigned n, unsigned d, int64_t coord) {
    for (unsigned i = 0; i < n; ++i)
      add(in, d, coord << i);
  }
  /// Appends the next bit of `in`, mapping to `coords` (one per dim).
  void addBasis(In in, ArrayRef<int32_t> coords) {
    LinearLayout::Basis b(shape.size(), 0);
    for (auto [d, c] : llvm::enumerate(coords))
      b[d] = int32_t(c & (shape[d] - 1));
    ins[in].bases.push_back(b);
  }
  /// Appends `n` broadcast bits to `in`.
  void addZeros(In in, unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      ins[in].bases.push_back(LinearLayout::Basis(shape.size(), 0));
  }
  FailureOr<LinearLayout> finish(std::string *error) const {
    SmallVector<LinearLayout::OutDim> outs;
    for (auto [d, s] : llvm::enumerate(shape))
      outs.push_back({tensorDimName(d), int32_t(s)});
    return LinearLayout::get(ins, outs, error);
  }

private:
  ArrayRef<int64_t> shape;
  SmallVector<LinearLayout::InDim, 3> ins;
};

LogicalResult checkShape(ArrayRef<int64_t> shape, unsigned rank, Attribute enc,
                         std::string *error) {
  if (shape.size() != rank)
    return fail(error, "layout has rank " + Twine(rank) +
                           " but the tensor has rank " + Twine(shape.size()));
  for (int64_t s : shape)
    if (s <= 0 || !llvm::isPowerOf2_64(s) || s > (int64_t(1) << 30))
      return fail(error, "dimension of size " + Twine(s) +
                             " is not a power of two up to 2^30; linear "
                             "layouts need power-of-two shapes");
  return success();
}

//===----------------------------------------------------------------------===//
// blocked, slice
//===----------------------------------------------------------------------===//

FailureOr<LinearLayout> blockedToLinear(ArrayRef<int64_t> shape,
                                        BlockedLayoutAttr b,
                                        std::string *error) {
  if (failed(checkShape(shape, b.getRank(), b, error)))
    return failure();
  DistBuilder lb(shape);
  ArrayRef<unsigned> size = b.getSizePerThread(),
                     threads = b.getThreadsPerWave(),
                     waves = b.getWavesPerCTA();
  for (unsigned d : b.getOrder()) {
    int64_t inLane = std::min<int64_t>(size[d], shape[d]);
    int64_t coverage = int64_t(size[d]) * threads[d] * waves[d];
    int64_t reps = std::max<int64_t>(1, shape[d] / coverage);
    lb.addRun(Reg, log2(inLane), d, 1);
    lb.addRun(Reg, log2(reps), d, coverage);
  }
  for (unsigned d : b.getOrder())
    lb.addRun(Lane, log2(threads[d]), d, size[d]);
  for (unsigned d : b.getOrder())
    lb.addRun(Wave, log2(waves[d]), d, int64_t(size[d]) * threads[d]);
  return lb.finish(error);
}

FailureOr<LinearLayout> sliceToLinear(ArrayRef<int64_t> shape,
                                      SliceLayoutAttr s, std::string *error) {
  if (s.getDim() > shape.size())
    return fail(error, "slice dimension " + Twine(s.getDim()) +
                           " out of range for a tensor of rank " +
                           Twine(shape.size()));
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + s.getDim(), 1);
  FailureOr<LinearLayout> parent =
      toLinearLayout(parentShape, s.getParent(), error);
  if (failed(parent))
    return failure();
  SmallVector<std::string> ins, outs;
  for (const auto &d : parent->getInDims())
    ins.push_back(d.name);
  for (unsigned d = 0; d < parentShape.size(); ++d)
    if (d != s.getDim())
      outs.push_back(tensorDimName(d));
  LinearLayout l = parent->sublayout(ins, outs);
  for (unsigned d = s.getDim() + 1; d < parentShape.size(); ++d)
    l = l.renameOutDim(tensorDimName(d), tensorDimName(d - 1));
  return l;
}

//===----------------------------------------------------------------------===//
// Matrix instructions: repeats and waves
//===----------------------------------------------------------------------===//

/// A run of wave-id bits: `count` waves along tensor dim `dim`, or a
/// broadcast over `count` waves when `dim` is negative.
struct WaveRun {
  int dim;
  unsigned count;
};

/// After one instruction tile of `tile` elements per dim has been placed,
/// adds the register repeats of the tile inside each wave's block (row-major
/// over the tiles: the last dim fastest) and the wave bits (`waves`, low
/// bits first). Each wave's block is the tile times its repeats.
void addRepeatsAndWaves(DistBuilder &lb, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> tile, ArrayRef<WaveRun> waves) {
  SmallVector<int64_t> wavesAlong(shape.size(), 1), block(tile);
  for (const WaveRun &w : waves)
    if (w.dim >= 0)
      wavesAlong[w.dim] *= w.count;
  for (int d = shape.size() - 1; d >= 0; --d) {
    int64_t reps = std::max<int64_t>(1, shape[d] / (tile[d] * wavesAlong[d]));
    lb.addRun(Reg, log2(reps), d, tile[d]);
    block[d] = tile[d] * reps;
  }
  for (const WaveRun &w : waves) {
    if (w.dim < 0) {
      lb.addZeros(Wave, log2(w.count));
      continue;
    }
    lb.addRun(Wave, log2(w.count), w.dim, block[w.dim]);
    block[w.dim] *= w.count;
  }
}

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

constexpr unsigned kMfmaLanes = 64;

/// v_mfma_f32_NxNxK accumulator, with rows along `rowDim`: register bits 0-1
/// are rows 1, 2; the low lane bits are the N columns; the remaining lane
/// bits are rows 4, 8, ...; the remaining register bits the rows above.
void addMfmaAccTile(DistBuilder &lb, unsigned n, unsigned rowDim,
                    unsigned colDim) {
  unsigned laneColBits = log2(n), laneRowBits = log2(kMfmaLanes) - laneColBits;
  unsigned regBits = log2(int64_t(n) * n / kMfmaLanes);
  lb.addRun(Reg, 2, rowDim, 1);
  lb.addRun(Lane, laneColBits, colDim, 1);
  lb.addRun(Lane, laneRowBits, rowDim, 4);
  lb.addRun(Reg, regBits - 2, rowDim, int64_t(4) << laneRowBits);
}

/// MFMA operand: a lane holds kWidth consecutive K elements of one row
/// (A) or column (B); lanes cover the non-K dim first, then K groups.
void addMfmaOperandTile(DistBuilder &lb, unsigned n, unsigned kWidth,
                        unsigned nonKDim, unsigned kDim) {
  lb.addRun(Reg, log2(kWidth), kDim, 1);
  lb.addRun(Lane, log2(n), nonKDim, 1);
  lb.addRun(Lane, log2(kMfmaLanes / n), kDim, kWidth);
}

/// An f8f6f4 operand: two runs of 16 K elements per lane, K/2 apart (the
/// second in registers 16-31).
void addMfmaF8F6F4OperandTile(DistBuilder &lb, unsigned n, unsigned k,
                              unsigned nonKDim, unsigned kDim) {
  addMfmaOperandTile(lb, n, 16, nonKDim, kDim);
  lb.add(Reg, kDim, k / 2);
}

std::string shapeStr(ArrayRef<unsigned> instr) {
  return std::to_string(instr[0]) + "x" + std::to_string(instr[1]) + "x" +
         std::to_string(instr[2]);
}

/// The instruction facts an mfma layout relies on.
LogicalResult checkMfma(MfmaLayoutAttr m, std::string *error) {
  ArrayRef<unsigned> instr = m.getInstrShape();
  if (instr.size() != 3 || instr[0] != instr[1])
    return fail(error, "mfma layouts need instrShape [M, N, K] with M == N");
  if (isMfmaF8F6F4Shape(instr) && m.getVersion() != 4)
    return fail(error, "mfma " + shapeStr(instr) + " (v_mfma_f32_" +
                           shapeStr(instr) +
                           "_f8f6f4) exists on CDNA4 only: it needs "
                           "version = 4, got " +
                           Twine(m.getVersion()));
  return success();
}

FailureOr<LinearLayout> mfmaToLinear(ArrayRef<int64_t> shape, MfmaLayoutAttr m,
                                     std::string *error) {
  if (failed(checkShape(shape, 2, m, error)) || failed(checkMfma(m, error)))
    return failure();
  unsigned n = m.getInstrShape()[0];
  DistBuilder lb(shape);
  bool t = m.getTransposed();
  addMfmaAccTile(lb, n, t ? 1 : 0, t ? 0 : 1);
  ArrayRef<unsigned> w = m.getWavesPerCTA();
  addRepeatsAndWaves(lb, shape, {n, n}, {WaveRun{1, w[1]}, WaveRun{0, w[0]}});
  return lb.finish(error);
}

FailureOr<LinearLayout> mfmaOperandToLinear(ArrayRef<int64_t> shape,
                                            DotOperandLayoutAttr op,
                                            MfmaLayoutAttr m,
                                            std::string *error) {
  if (failed(checkShape(shape, 2, op, error)) || failed(checkMfma(m, error)))
    return failure();
  ArrayRef<unsigned> instr = m.getInstrShape();
  bool isA = op.getOpIdx() == 0;
  unsigned n = isA ? instr[0] : instr[1];
  unsigned native = mfmaNativeKWidth(instr);
  if (op.getKWidth() < native)
    return fail(error, "mfma " + shapeStr(instr) +
                           " operands need kWidth >= " + Twine(native) +
                           " (consecutive K elements per lane), got " +
                           Twine(op.getKWidth()));
  unsigned kDim = isA ? 1 : 0, nonKDim = isA ? 0 : 1;
  int64_t kGroup = int64_t(op.getKWidth()) * (kMfmaLanes / n);
  DistBuilder lb(shape);
  if (isMfmaF8F6F4Shape(instr) && op.getKWidth() == native) {
    // The hardware's tile, both runs of a lane next to each other in its
    // registers: one instruction's operand is 32 consecutive registers.
    addMfmaF8F6F4OperandTile(lb, n, instr[2], nonKDim, kDim);
    kGroup = instr[2];
  } else {
    addMfmaOperandTile(lb, n, op.getKWidth(), nonKDim, kDim);
  }
  SmallVector<int64_t> tile(2);
  tile[kDim] = kGroup;
  tile[nonKDim] = n;
  ArrayRef<unsigned> w = m.getWavesPerCTA();
  addRepeatsAndWaves(
      lb, shape, tile,
      {WaveRun{isA ? -1 : 1, w[1]}, WaveRun{isA ? 0 : -1, w[0]}});
  return lb.finish(error);
}

//===----------------------------------------------------------------------===//
// mma.sync and wgmma
//===----------------------------------------------------------------------===//

/// The m16n8 accumulator of one warp (rows along dim 0): register bit 0 is
/// column 1, register bit 1 row 8; lane bits 0-1 are columns 2, 4 and lane
/// bits 2-4 rows 1, 2, 4. wgmma's m64nN accumulator is the same per 8
/// columns, with further register bits for the next 8-column groups.
void addNvAccTile(DistBuilder &lb, unsigned n) {
  lb.add(Reg, 1, 1);
  lb.add(Reg, 0, 8);
  lb.addRun(Reg, log2(n / 8), 1, 8);
  lb.addRun(Lane, 2, 1, 2);
  lb.addRun(Lane, 3, 0, 1);
}

FailureOr<LinearLayout> nvMmaToLinear(ArrayRef<int64_t> shape,
                                      NvMmaLayoutAttr m, std::string *error) {
  if (failed(checkShape(shape, 2, m, error)))
    return failure();
  ArrayRef<unsigned> instr = m.getInstrShape(), w = m.getWavesPerCTA();
  if (!llvm::isPowerOf2_32(instr[1]))
    return fail(error, "wgmma N = " + Twine(instr[1]) +
                           " is not a power of two; its accumulator is not a "
                           "linear layout");
  DistBuilder lb(shape);
  addNvAccTile(lb, instr[1]);
  if (m.getVersion() == 2) {
    addRepeatsAndWaves(lb, shape, {16, 8},
                       {WaveRun{1, w[1]}, WaveRun{0, w[0]}});
    return lb.finish(error);
  }
  if (w[0] % 4 != 0)
    return fail(error, "wgmma layouts need wavesPerCTA[0] (warps along M) "
                       "to be a multiple of 4, one warpgroup per 64 rows; "
                       "got " +
                           Twine(w[0]));
  lb.addRun(Wave, 2, 0, 16); // warp within the warpgroup
  addRepeatsAndWaves(lb, shape, {64, instr[1]},
                     {WaveRun{1, w[1]}, WaveRun{0, w[0] / 4}});
  return lb.finish(error);
}

/// mma.sync m16n8 operand fragments with `kw` elements per 32-bit register
/// (K = 8 * kw). A [16, K]: register bits below kw are K 1.., lane bits 0-1
/// K kw and 2kw, the next register bit row 8, the next K 4kw; lane bits 2-4
/// rows 1, 2, 4. B [K, 8]: the same K bits without the row bit; lane bits
/// 2-4 are the columns.
void addMmaSyncOperandTile(DistBuilder &lb, bool isA, unsigned kw) {
  unsigned kDim = isA ? 1 : 0, nonKDim = isA ? 0 : 1;
  lb.addRun(Reg, log2(kw), kDim, 1);
  lb.addRun(Lane, 2, kDim, kw);
  if (isA)
    lb.add(Reg, nonKDim, 8);
  lb.add(Reg, kDim, 4 * kw);
  lb.addRun(Lane, 3, nonKDim, 1);
}

FailureOr<LinearLayout> nvOperandToLinear(ArrayRef<int64_t> shape,
                                          DotOperandLayoutAttr op,
                                          NvMmaLayoutAttr m,
                                          std::string *error) {
  if (failed(checkShape(shape, 2, op, error)))
    return failure();
  if (m.getVersion() != 2)
    return fail(error, "wgmma operands are read from shared memory through "
                       "matrix descriptors; a dot_operand of a version 3 "
                       "#tile.nv_mma has no register layout");
  ArrayRef<unsigned> instr = m.getInstrShape(), w = m.getWavesPerCTA();
  unsigned kw = op.getKWidth();
  if (instr[2] != 16 && instr[2] != 32)
    return fail(error, "mma.sync operand layouts cover K = 16 (16-bit) and "
                       "K = 32 (8-bit) fragments, got K = " +
                           Twine(instr[2]));
  if (kw * 8 != instr[2])
    return fail(error, "mma.sync m16n8k" + Twine(instr[2]) + " operands hold " +
                           Twine(instr[2] / 8) +
                           " elements per 32-bit register; kWidth must be " +
                           Twine(instr[2] / 8) + ", got " + Twine(kw));
  bool isA = op.getOpIdx() == 0;
  DistBuilder lb(shape);
  addMmaSyncOperandTile(lb, isA, kw);
  SmallVector<int64_t> tile = isA ? SmallVector<int64_t>{16, instr[2]}
                                  : SmallVector<int64_t>{instr[2], 8};
  addRepeatsAndWaves(
      lb, shape, tile,
      {WaveRun{isA ? -1 : 1, w[1]}, WaveRun{isA ? 0 : -1, w[0]}});
  return lb.finish(error);
}

FailureOr<LinearLayout> dotOperandToLinear(ArrayRef<int64_t> shape,
                                           DotOperandLayoutAttr op,
                                           std::string *error) {
  if (auto m = dyn_cast<MfmaLayoutAttr>(op.getParent()))
    return mfmaOperandToLinear(shape, op, m, error);
  if (auto m = dyn_cast<NvMmaLayoutAttr>(op.getParent()))
    return nvOperandToLinear(shape, op, m, error);
  return fail(error, "dot_operand parent must be #tile.mfma or #tile.nv_mma");
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

FailureOr<LinearLayout> linearToLinear(ArrayRef<int64_t> shape,
                                       LinearEncodingAttr l,
                                       std::string *error) {
  if (failed(checkShape(shape, l.getRank(), l, error)))
    return failure();
  // Coordinates wrap modulo the shape (a slice re-inserts a unit dim).
  DistBuilder lb(shape);
  for (unsigned in = 0; in < 3; ++in)
    for (ArrayRef<int32_t> basis : l.getBases(in)) {
      int d = -1;
      for (auto [i, c] : llvm::enumerate(basis))
        if (c)
          d = d < 0 ? int(i) : -2;
      if (d == -2) { // a combination of coordinates
        lb.addBasis(In(in), basis);
        continue;
      }
      if (d < 0)
        lb.addZeros(In(in), 1);
      else
        lb.add(In(in), d, basis[d]);
    }
  return lb.finish(error);
}

//===----------------------------------------------------------------------===//
// shared
//===----------------------------------------------------------------------===//

FailureOr<LinearLayout> sharedToLinear(ArrayRef<int64_t> shape,
                                       SharedLayoutAttr s, std::string *error) {
  ArrayRef<unsigned> order = s.getOrder();
  if (s.getMaxPhase() == 0) {
    if (error)
      *error = "the swizzle of this shared layout is not chosen yet "
               "(perPhase = maxPhase = 0; convert-tile-to-simt chooses it)";
    return failure();
  }
  if (failed(checkShape(shape, order.size(), s, error)))
    return failure();
  LinearLayout::InDim offset{kOffsetDim.str(), {}};
  SmallVector<LinearLayout::OutDim> outs;
  for (auto [d, n] : llvm::enumerate(shape))
    outs.push_back({tensorDimName(d), int32_t(n)});
  auto bit = [&](unsigned d, int64_t coord) {
    LinearLayout::Basis b(shape.size(), 0);
    b[d] = int32_t(coord);
    return b;
  };
  unsigned col = order[0];
  int64_t cols = shape[col];
  int64_t vec = std::min<int64_t>(s.getVec(), cols);
  for (int64_t c = 1; c < cols; c *= 2)
    offset.bases.push_back(bit(col, c));
  if (order.size() > 1) {
    unsigned row = order[1];
    unsigned phaseShift = log2(s.getPerPhase());
    unsigned phaseBits = log2(s.getMaxPhase());
    for (unsigned j = 0; (int64_t(1) << j) < shape[row]; ++j) {
      LinearLayout::Basis b = bit(row, int64_t(1) << j);
      // Row bit j is phase bit j - log2(perPhase); it flips a column group.
      if (j >= phaseShift && j - phaseShift < phaseBits)
        b[col] = int32_t((vec << (j - phaseShift)) & (cols - 1));
      offset.bases.push_back(b);
    }
  }
  // 1-D tiles have no dimensions past the row (drop_begin must not pass
  // the end).
  for (unsigned d : llvm::drop_begin(order, std::min<size_t>(2, order.size())))
    for (int64_t c = 1; c < shape[d]; c *= 2)
      offset.bases.push_back(bit(d, c));
  return LinearLayout::get({offset}, outs, error);
}

} // namespace

static const MfmaShape *findShape(ArrayRef<unsigned> instrShape) {
  if (instrShape.size() != 3)
    return nullptr;
  return findMfmaShape(instrShape[0], instrShape[1], instrShape[2]);
}

bool tessel::tile::isMfmaF8F6F4Shape(ArrayRef<unsigned> instrShape) {
  const MfmaShape *s = findShape(instrShape);
  return s && s->operand == MfmaOperandKind::F8F6F4;
}

unsigned tessel::tile::mfmaNativeKWidth(ArrayRef<unsigned> instrShape) {
  if (const MfmaShape *s = findShape(instrShape))
    return s->kRun();
  return instrShape[2] * instrShape[0] / kMfmaLanes;
}

FailureOr<LinearLayout>
tessel::tile::mfmaInstrLayout(ArrayRef<unsigned> instrShape, MfmaMatrix which,
                              std::string *error) {
  if (!findShape(instrShape)) {
    std::string dims;
    for (unsigned v : instrShape)
      dims += (dims.empty() ? "" : "x") + std::to_string(v);
    return fail(error, "no MFMA instruction of shape " + dims +
                           " (known: 16x16x32, 32x32x16, 16x16x16, 32x32x8, "
                           "16x16x128, 32x32x64)");
  }
  int64_t n = instrShape[0], k = instrShape[2];
  switch (which) {
  case MfmaMatrix::D: {
    int64_t shape[] = {n, n}; // DistBuilder keeps a reference
    DistBuilder lb(shape);
    addMfmaAccTile(lb, n, 0, 1);
    return lb.finish(error);
  }
  case MfmaMatrix::A:
  case MfmaMatrix::B: {
    bool isA = which == MfmaMatrix::A;
    unsigned kDim = isA ? 1 : 0, nonKDim = isA ? 0 : 1;
    SmallVector<int64_t> shape =
        isA ? SmallVector<int64_t>{n, k} : SmallVector<int64_t>{k, n};
    DistBuilder lb(shape);
    if (isMfmaF8F6F4Shape(instrShape))
      addMfmaF8F6F4OperandTile(lb, n, k, nonKDim, kDim);
    else
      addMfmaOperandTile(lb, n, mfmaNativeKWidth(instrShape), nonKDim, kDim);
    return lb.finish(error);
  }
  }
  llvm_unreachable("unknown MfmaMatrix");
}

FailureOr<LinearLayout> tessel::tile::toLinearLayout(ArrayRef<int64_t> shape,
                                                     Attribute encoding,
                                                     std::string *error) {
  if (!encoding)
    return fail(error, "tensor has no layout encoding");
  return llvm::TypeSwitch<Attribute, FailureOr<LinearLayout>>(encoding)
      .Case(
          [&](BlockedLayoutAttr a) { return blockedToLinear(shape, a, error); })
      .Case([&](SliceLayoutAttr a) { return sliceToLinear(shape, a, error); })
      .Case([&](MfmaLayoutAttr a) { return mfmaToLinear(shape, a, error); })
      .Case([&](NvMmaLayoutAttr a) { return nvMmaToLinear(shape, a, error); })
      .Case([&](DotOperandLayoutAttr a) {
        return dotOperandToLinear(shape, a, error);
      })
      .Case([&](SharedLayoutAttr a) { return sharedToLinear(shape, a, error); })
      .Case(
          [&](LinearEncodingAttr a) { return linearToLinear(shape, a, error); })
      .Default([&](Attribute a) -> FailureOr<LinearLayout> {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << a;
        return fail(error, "no linear layout for encoding " + s);
      });
}
