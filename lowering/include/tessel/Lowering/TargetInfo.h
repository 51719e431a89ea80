//===- TargetInfo.h - Per-target facts behind one interface ------*- C++
//-*-===//
//
// Every fact that differs between gfx942, gfx950, sm_90a and sm_90 lives
// behind this interface. Shared lowering code asks a TargetInfo; it never
// branches on the architecture name itself.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_TARGETINFO_H
#define TESSEL_LOWERING_TARGETINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <memory>
#include <string>

namespace tessel {

enum class Vendor { AMD, NVIDIA };

/// Bits one cross-lane move (DPP, ds_swizzle, ds_bpermute, permlane, shfl)
/// carries per lane, on CDNA and Hopper alike.
inline constexpr unsigned kLaneMoveBits = 32;

/// Combining function of a cross-lane reduction or scan. Max and Min
/// compare integers as signed, UMax and UMin (integers only) as unsigned.
enum class CombineKind { Add, Max, Min, UMax, UMin };

/// Where a matrix instruction reads A and B.
enum class MatrixOperandSource {
  /// Lane registers, in the layouts of matrixOperandEncoding (MFMA,
  /// mma.sync).
  Registers,
  /// Shared memory through matrix descriptors (wgmma): the dot lowering
  /// stages the operands there in the canonical K-major layout
  /// (emitSharedMatrixDescriptor), and the instruction runs asynchronously
  /// over a group of `wavesPerInstr` waves.
  SharedMemory,
};

/// One matrix-multiply instruction of a wave (or a group of waves):
/// D[M, N] += A[M, K] * B[K, N] with f32 D.
struct MatrixInstr {
  unsigned m, n, k;
  /// Element type of A and B (the target's fp8 type, or bf16).
  mlir::Type operandType;
  /// K elements of one row of A (one column of B) one lane holds. On CDNA
  /// that is the length of the instruction's operand vectors; mma.sync
  /// spreads A's 16 rows over 8 lane groups, so its lanes hold two rows.
  unsigned kPerLane;
  /// f32 elements of D one lane holds.
  unsigned accPerLane;
  /// The ISA mnemonic ("v_mfma_f32_16x16x32_fp8_fp8").
  std::string mnemonic;
  MatrixOperandSource operandSource = MatrixOperandSource::Registers;
  /// Waves that execute one instruction together (4 for wgmma's
  /// warpgroup); the accumulator tile is spread over all of them.
  unsigned wavesPerInstr = 1;
};

class TargetInfo {
public:
  virtual ~TargetInfo() = default;

  /// Returns the TargetInfo for `name` ("gfx942", "gfx950", "sm_90a",
  /// "sm_90"), or null when the target is not supported.
  static std::unique_ptr<TargetInfo> create(llvm::StringRef name);
  /// The comma-separated list of supported target names, for diagnostics.
  static llvm::StringRef supportedTargets();

  /// Target name as the user spells it ("gfx942").
  virtual llvm::StringRef name() const = 0;
  virtual Vendor vendor() const = 0;
  /// LLVM target triple ("amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda").
  virtual llvm::StringRef triple() const = 0;
  /// The chip handed to the LLVM backend ("gfx942", "sm_90a").
  virtual llvm::StringRef chip() const = 0;
  /// True where the code object may use features that run on this exact
  /// architecture only (sm_90a: wgmma, setmaxnreg). Such code objects are
  /// separate from the portable ones of the same chip.
  virtual bool hasArchSpecificFeatures() const { return false; }
  /// LLVM target features ("+ptx84" for sm_90, "" on AMD).
  virtual llvm::StringRef features() const = 0;

  /// Lanes per wave (64 on CDNA, 32 on NVIDIA).
  virtual unsigned waveSize() const = 0;
  /// Widest per-lane global load/store in bytes.
  virtual unsigned maxVectorBytes() const = 0;
  /// Whether global loads can go through a buffer resource whose
  /// `num_records` the hardware checks: out-of-range dwords read 0, with no
  /// branch or select (AMD raw buffer loads). A load masked by
  /// `offsets < bound` then needs no per-element predication.
  virtual bool supportsBoundedBufferLoads() const { return false; }
  /// Maximum threads in a workgroup.
  virtual unsigned maxWorkgroupSize() const = 0;
  /// 32-bit registers one lane can hold: 512 on CDNA3/4 (256 arch VGPRs
  /// plus 256 AGPRs), 255 on sm_90. No tile value may need more.
  virtual unsigned registersPerLane() const = 0;
  /// Bytes of LDS / shared memory one workgroup may use: 64 KiB on gfx942,
  /// 160 KiB on gfx950, 48 KiB on sm_90 (Tessel's PTX declares static
  /// `.shared`; sm_90's 227 KiB need dynamic shared memory and a launch
  /// attribute the runtime does not set). The LDS allocator rejects kernels
  /// that need more.
  virtual unsigned ldsBytesPerWorkgroup() const = 0;
  /// Bytes the LDS banks serve together in one cycle (banks x 4 bytes):
  /// 128 on CDNA3/4 and on Hopper. Lanes whose accesses fall in different
  /// 4-byte banks of one such row proceed together; the layout-conversion
  /// swizzle is chosen against it.
  virtual unsigned ldsBankRowBytes() const = 0;
  /// Bytes of LDS a `tile.reduce` across lanes and waves may use to combine
  /// its partial results in shared memory instead of shuffling every result
  /// across the lanes along the axis (0: shuffle, then exchange the waves'
  /// results). Worth it where a shuffle costs what a shared-memory access
  /// does (both go through the memory pipe on NVIDIA), not where lanes
  /// combine in the vector ALU (DPP on AMD).
  virtual unsigned laneReduceScratchBytes() const { return 0; }

  /// Asynchronous copies from global memory to LDS
  /// (`tile.async_copy_global_to_local`). One lane's part of a copy: `elems`
  /// consecutive elements from `src[srcIdx]` (a global memref) to
  /// `dst[dstIdx]` (a workgroup memref of the same element type), both
  /// aligned to the copy's size; where the i1 `pred` is false (null: never)
  /// the destination is written with zeros. The default loads into
  /// registers and stores to LDS, so the copy is complete when the lane
  /// goes on (CDNA, where the emulator runs it as written).
  virtual void emitAsyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value src, mlir::Value srcIdx,
                             mlir::Value dst, mlir::Value dstIdx, int64_t elems,
                             mlir::Value pred) const;
  /// Closes the group of copies this lane issued since the last one. The
  /// default, for synchronous copies, emits nothing.
  virtual void emitAsyncCommitGroup(mlir::OpBuilder &b,
                                    mlir::Location loc) const {}
  /// Waits until at most `pending` groups of this lane's copies are in
  /// flight. The default, for synchronous copies, emits nothing. Either
  /// way the caller follows it with a workgroup barrier, which makes every
  /// lane's copied data visible to the others.
  virtual void emitAsyncWait(mlir::OpBuilder &b, mlir::Location loc,
                             unsigned pending) const {}

  // Completion barriers of asynchronous copies (tile.async_barrier_alloc):
  // `addr` is the shared-memory byte address (i32) of one 8-byte barrier.
  /// True when copies complete on barriers in shared memory (the barrier
  /// must be initialised, by one lane, before its first use).
  virtual bool hasAsyncCopyBarriers() const { return false; }
  /// Initialises the barrier at `addr` for `arrivals` arrivals per phase.
  virtual void emitAsyncBarrierInit(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value addr, unsigned arrivals) const {
  }
  /// This lane's arrival on the barrier at `addr`, counted once all the
  /// copies it issued before have landed. The default, for synchronous
  /// copies, emits nothing.
  virtual void emitAsyncBarrierArrive(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value addr) const {}
  /// Waits until the phase of parity `parity` (i32, 0 or 1) of the barrier
  /// at `addr` has completed, which makes the copies that arrived on it
  /// visible to this lane. The default, for synchronous copies, is a
  /// workgroup barrier.
  virtual void emitAsyncBarrierWait(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value addr, mlir::Value parity) const;

  // Grid-wide synchronisation (tile.grid_barrier).
  /// The LLVM syncscope that spans every workgroup of a launch on one
  /// device: "agent" on AMDGPU, "device" on NVPTX (which rejects "agent").
  virtual llvm::StringRef deviceSyncScope() const = 0;
  /// One pause of a spin-wait on memory that another workgroup writes
  /// (s_sleep on AMD, nanosleep on NVIDIA), so that the spinning wave
  /// leaves the memory system and its SIMD to the others.
  virtual void emitSpinBackoff(mlir::OpBuilder &b,
                               mlir::Location loc) const = 0;

  /// The fp8 e4m3 storage type of this target: f8E4M3FNUZ on gfx942 (max
  /// 240), f8E4M3FN on gfx950 and sm_90 (max 448).
  virtual mlir::Type fp8Type(mlir::MLIRContext *ctx) const = 0;
  virtual double fp8Max() const = 0;

  /// Every matrix instruction a `tile.dot` may lower to, in order of
  /// preference. Empty where a target lowers no dots.
  virtual llvm::SmallVector<MatrixInstr>
  matrixInstrs(mlir::MLIRContext *ctx) const = 0;

  /// The preferred instruction for a dot of A [M, K] (element type `a`) by
  /// B [K, N] (`b`) accumulating into `acc`: the first of matrixInstrs()
  /// whose operand type is `a` and `b`, whose accumulator is `acc`, and
  /// whose M, N and K divide the dot's and, when `numWaves` is not 0, whose
  /// wavesPerInstr divides `numWaves`. Fails with the reason in `why`.
  llvm::FailureOr<MatrixInstr> selectMatrixInstr(mlir::Type a, mlir::Type b,
                                                 mlir::Type acc, int64_t m,
                                                 int64_t n, int64_t k,
                                                 std::string *why,
                                                 unsigned numWaves = 0) const;

  /// The accumulator encoding of `instr` tiled over `wavesM` x `wavesN`
  /// groups of instr.wavesPerInstr waves (`#tile.mfma` on CDNA, version-2
  /// `#tile.nv_mma` for mma.sync, version 3 for wgmma). `transposed` asks
  /// for consecutive N elements per lane; encodings without a transposed
  /// form (mma.sync, wgmma) ignore it. Null where the target has no matrix
  /// instructions.
  virtual mlir::Attribute matrixAccEncoding(mlir::MLIRContext *ctx,
                                            const MatrixInstr &instr,
                                            unsigned wavesM, unsigned wavesN,
                                            bool transposed) const {
    return {};
  }
  /// The encoding operand `opIdx` (0 = A, 1 = B) must have to feed the
  /// instruction of accumulator encoding `acc` directly from registers;
  /// null for instructions that read shared memory (any register layout is
  /// staged there). `dotK` is the dot's K (0: unknown): where it allows, a
  /// target may give each lane a longer run of consecutive K than one
  /// instruction reads (up to one widest vector access), shared by A and B;
  /// the dot lowering splits such a run over several instructions, which
  /// then multiply a K permutation common to both operands (the same dot).
  virtual mlir::Attribute matrixOperandEncoding(mlir::Attribute acc,
                                                unsigned opIdx,
                                                const MatrixInstr &instr,
                                                int64_t dotK = 0) const {
    return {};
  }
  /// The instruction whose accumulator encoding is `acc`, for operands of
  /// `operandType`; fails with the reason in `why`.
  virtual llvm::FailureOr<MatrixInstr> matrixInstrOf(mlir::Attribute acc,
                                                     mlir::Type operandType,
                                                     std::string *why) const;
  /// Converts all of a lane's registers of one dot operand (a vector in the
  /// operand encoding's slot order) to the element type emitMatrixInstr
  /// reads, element by element, so slots keep their positions. Called once
  /// per dot and operand: each converted register then feeds every
  /// instruction along the other dimension. The identity unless the
  /// instruction reads another type than `instr.operandType` (Hopper's fp8
  /// dots run as f16 mma.sync).
  virtual mlir::Value emitMatrixOperandConversion(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  const MatrixInstr &instr,
                                                  mlir::Value operand) const {
    return operand;
  }
  /// Emits `acc + a * b` for one instruction whose accumulator has
  /// encoding `accEncoding`: `a` and `b` hold the operand elements of one
  /// instruction tile (after emitMatrixOperandConversion), `acc` a vector of
  /// accPerLane f32, each in the register order of that encoding restricted
  /// to one instruction tile.
  virtual mlir::Value emitMatrixInstr(mlir::OpBuilder &b, mlir::Location loc,
                                      const MatrixInstr &instr,
                                      mlir::Attribute accEncoding,
                                      mlir::Value a, mlir::Value bv,
                                      mlir::Value acc) const;

  // Instructions with MatrixOperandSource::SharedMemory. The dot lowering
  // stores A ([M, K]) and B (as [N, K]) in shared memory, K-major: rows of
  // `swizzleBytes` bytes (32, 64 or 128) in groups of 8 rows, each 16-byte
  // chunk c of row r stored at chunk c XOR (address bits 7.. of the row),
  // so the pattern repeats every 8 * swizzleBytes bytes; a K extent wider
  // than `swizzleBytes` is split into column blocks of all rows each.

  /// The 64-bit descriptor of an operand tile whose first row starts at
  /// shared-memory byte address `addr` (i32, aligned to the swizzle
  /// pattern but for the K offset inside a row), with 8-row groups
  /// `groupBytes` apart.
  virtual mlir::Value emitSharedMatrixDescriptor(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::Value addr,
                                                 unsigned swizzleBytes,
                                                 int64_t groupBytes) const {
    return {};
  }
  /// Makes this lane's earlier generic stores to shared memory visible to
  /// the matrix instruction's reads (a proxy fence); a workgroup barrier
  /// follows it.
  virtual void emitSharedMatrixOperandsWritten(mlir::OpBuilder &b,
                                               mlir::Location loc) const {}
  /// Orders the accumulator's register writes before the first
  /// instruction of a dot.
  virtual void emitSharedMatrixBegin(mlir::OpBuilder &b,
                                     mlir::Location loc) const {}
  /// Emits `acc + sum of A_i * B_i` with one instruction per (descA_i,
  /// descB_i) of `steps`, in order: `acc` and the result are vectors of
  /// accPerLane f32 in the instruction's register order (the accumulator
  /// stays in the instruction's own registers between the steps).
  virtual mlir::Value emitSharedMatrixInstrs(
      mlir::OpBuilder &b, mlir::Location loc, const MatrixInstr &instr,
      llvm::ArrayRef<std::pair<mlir::Value, mlir::Value>> steps,
      mlir::Value acc) const {
    return {};
  }
  /// Commits the instructions issued since emitSharedMatrixBegin as one
  /// group and, unless `async`, waits until they have written their
  /// accumulators.
  virtual void emitSharedMatrixEnd(mlir::OpBuilder &b, mlir::Location loc,
                                   bool async) const {}
  /// Waits until at most `pending` groups of asynchronous matrix
  /// instructions are in flight and returns `values` (vectors of f32) as
  /// values that no read can move above the wait. The default, where the
  /// instructions complete in order, returns them.
  virtual llvm::SmallVector<mlir::Value>
  emitMatrixWait(mlir::OpBuilder &b, mlir::Location loc, unsigned pending,
                 mlir::ValueRange values) const {
    return llvm::SmallVector<mlir::Value>(values);
  }

  /// Whether the lane-group reductions, scans and shuffles below take
  /// scalars of type `t`: integers and floats of one or two lane moves'
  /// width (64-bit values cross lanes as two 32-bit halves).
  bool crossesLanes(mlir::Type t) const;

  /// Emits a reduction of the scalar `v` (crossesLanes) across groups of
  /// lanes. The group is the set of lanes whose lane id differs only in bits
  /// [firstBit, firstBit + numBits). Every lane of a group ends with the
  /// group's combined value.
  virtual mlir::Value emitLaneGroupReduce(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value v,
                                          CombineKind kind, unsigned firstBit,
                                          unsigned numBits) const = 0;

  /// Emits an inclusive scan of the scalar `v` (crossesLanes) within groups
  /// of lanes: the lanes whose id differs only in bits [firstBit, firstBit +
  /// numBits), in the order of that bit field. Lane j of a group gets the
  /// combination of lanes 0..j of its group.
  virtual mlir::Value
  emitLaneGroupInclusiveScan(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v, CombineKind kind, unsigned firstBit,
                             unsigned numBits) const = 0;

  /// Reads the scalar `v` (crossesLanes) from lane `srcLane` (an i32 that
  /// may differ between lanes) of the wave.
  virtual mlir::Value emitLaneShuffle(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value v,
                                      mlir::Value srcLane) const = 0;

  /// Whether SIMT IR has a vote for divergent code (emitActiveBallot and
  /// emitReadFirstActiveLane), with which the lanes of a wave that update
  /// the same shared-memory word combine before the atomic. Without it,
  /// callers update lane by lane.
  virtual bool hasActiveBallot() const { return false; }

  /// The mask (one bit per lane of the wave, as i64) of the active lanes
  /// whose i1 `pred` holds. Only called where hasActiveBallot().
  virtual mlir::Value emitActiveBallot(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value pred) const {
    return {};
  }

  /// The 32-bit scalar `v` of the lowest active lane, in every lane. Only
  /// called where hasActiveBallot().
  virtual mlir::Value emitReadFirstActiveLane(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::Value v) const {
    return {};
  }

  /// Whether SIMT IR has a match-any vote (emitMatchAny): one instruction
  /// gives each lane the mask of the lanes holding its value, so the lanes
  /// of a wave that update one shared-memory word combine without a loop.
  /// Preferred over the active-ballot loop where both exist.
  virtual bool hasMatchAny() const { return false; }

  /// The mask (bit l for lane l, as i64) of the lanes of `members` whose
  /// 32-bit scalar `v` equals this lane's. `members` is an i64 lane mask
  /// that holds this lane; every lane it names must execute this call
  /// together. Only called where hasMatchAny().
  virtual mlir::Value emitMatchAny(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value v, mlir::Value members) const {
    return {};
  }

  /// The mask (bit l for lane l, as i64) of the lanes of the wave whose i1
  /// `pred` holds, in every lane. Every lane of the wave must be active.
  virtual mlir::Value emitWaveBallot(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value pred) const = 0;

  /// The i32 count of the bits of the i64 lane mask `mask` that belong to
  /// lanes below this one (`lane`, its i32 id), plus the i32 `base`.
  virtual mlir::Value emitCountBelow(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value mask, mlir::Value lane,
                                     mlir::Value base) const = 0;
};

/// The instruction of `instrs` whose [M, N, K] is `shape` and whose operands
/// are `operandType`. Fails with "no FAMILY of TARGET has shape MxNxK with T
/// operands" in `why` (FAMILY: "MFMA", "mma.sync", ...).
llvm::FailureOr<MatrixInstr> findMatrixInstr(llvm::ArrayRef<MatrixInstr> instrs,
                                             llvm::ArrayRef<unsigned> shape,
                                             mlir::Type operandType,
                                             llvm::StringRef family,
                                             llvm::StringRef target,
                                             std::string *why);

/// Emits `kind(x, y)` for integer or float scalars or vectors (max/min are
/// signed for integers and NaN-propagating for floats; umax/umin take
/// integers only).
mlir::Value emitCombine(mlir::OpBuilder &b, mlir::Location loc,
                        CombineKind kind, mlir::Value x, mlir::Value y);

/// The identity of `kind` for scalar type `t`: 0, -inf / INT_MIN, +inf /
/// INT_MAX, 0 (umax), UINT_MAX (umin).
mlir::Value emitIdentity(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                         CombineKind kind);

/// The lane id as i32.
mlir::Value emitLaneId(mlir::OpBuilder &b, mlir::Location loc);

/// Bits [firstBit, firstBit + numBits) of the i32 `lane`: a lane's position
/// in its group for lane-group reductions and scans.
mlir::Value emitLaneBitField(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value lane, unsigned firstBit,
                             unsigned numBits);

} // namespace tessel

#endif // TESSEL_LOWERING_TARGETINFO_H
