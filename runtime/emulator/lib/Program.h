//===- Program.h - Compiled form of a SIMT kernel (internal) ------*- C++
//-*-===//
//
// A gpu.func is compiled once into a flat instruction list. Every SSA value
// lives in "slots": a slot is 64 lanes of 64-bit raw bits (a scalar takes one
// slot, a vector<N x T> N consecutive slots). Floats keep their own encoding
// in the low bits (f32 bits, bf16 bits, fp8 byte...), integers are stored
// zero-extended to 64 bits. Memref values are uniform and live in a separate
// per-wave descriptor table. Structured control flow is lowered to explicit
// jumps plus a per-wave exec-mask stack, so a wave can be suspended at any
// instruction (barriers, fair scheduling of spinning workgroups).
//
// This header has no MLIR dependency so the interpreter compiles quickly.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_EMULATOR_PROGRAM_H
#define TESSEL_EMULATOR_PROGRAM_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessel::emu::detail {

constexpr unsigned kLanes = 64; // slot stride; wave32 uses the low 32 lanes.

struct Wave;
struct Inst;
using Handler = void (*)(Wave &, const Inst &);

/// One compiled operation. Field meaning depends on the handler; slots are
/// register-file slot indices, `m*` fields are memref-table indices.
struct Inst {
  Handler fn = nullptr;
  uint32_t d = 0, a = 0, b = 0, c = 0; // slots (or memref indices)
  uint32_t n = 1;                      // elements processed per lane
  uint32_t w = 0;                      // bit width / format / kind code
  int64_t i0 = 0, i1 = 0, i2 = 0;      // immediates / jump targets
  uint32_t x = 0;                      // offset into Kernel::aux
  uint32_t loc = 0;                    // index into Kernel::locs
};

enum class Space : uint8_t { Global, LDS };

/// A memref value (uniform across the wave).
struct MRef {
  uint8_t *base = nullptr;
  uint8_t *init = nullptr; // LDS only: one byte per data byte, 1 = written.
  int64_t sizes[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0};
  int64_t numElems = 0; // product of sizes
  uint32_t rank = 0;
  uint32_t elemBytes = 0;
  Space space = Space::Global;
  uint32_t what = 0; // index into Kernel::bufferNames
  /// Bytes of the underlying allocation from `base`, where a cast
  /// (memref.reinterpret_cast) gave the memref other sizes; -1 = the sizes.
  int64_t allocBytes = -1;
  /// A fat raw buffer (amdgpu.fat_raw_buffer_cast): its num_records, which
  /// loads and stores through it are range-checked against as buffer
  /// instructions are; -1 = not a buffer.
  int64_t bufferBytes = -1;
  bool valid = false;
};

/// How one flattened kernel parameter (or group) is consumed.
struct ParamSpec {
  bool isMemRef = false;
  uint32_t target = 0; // slot or memref index
  uint32_t bytes = 0;  // scalar byte size
  uint32_t rank = 0;
  uint32_t elemBytes = 0;
  uint32_t argNo = 0;
};

struct LdsAlloc {
  uint32_t mref;
  uint64_t offset; // byte offset in the workgroup's LDS
  uint32_t rank, elemBytes;
  int64_t sizes[4];
  uint32_t what;
};

struct ConstInit {
  uint32_t slot;
  uint64_t bits;
};

struct Kernel {
  std::string name;
  unsigned waveSize = 64;
  bool hasKnownBlock = false;
  uint32_t knownBlock[3] = {1, 1, 1};
  /// The kernel synchronizes its grid (`tessel.grid_barrier`): every
  /// workgroup must be resident at once.
  bool gridBarrier = false;
  std::vector<Inst> code;
  uint32_t numSlots = 0;
  uint32_t numMRefs = 0;
  size_t numFlatParams = 0;
  std::vector<ParamSpec> params;
  std::vector<ConstInit> consts;
  std::vector<LdsAlloc> lds;
  uint64_t ldsBytes = 0;
  std::vector<std::string> locs;        // "file:line:col: 'op.name'"
  std::vector<std::string> bufferNames; // for error messages
  std::vector<int64_t> aux;
};

struct Workgroup;
struct LaunchState;

enum class Status : uint8_t { Running, Barrier, Yield, Done, Error };

/// Execution state of one wave.
struct Wave {
  uint64_t *R = nullptr; // numSlots * kLanes
  MRef *M = nullptr;     // numMRefs
  uint64_t exec = 0, full = 0;
  uint32_t pc = 0;
  Status status = Status::Running;
  std::vector<uint64_t> stack;
  const Kernel *K = nullptr;
  const Inst *code = nullptr;
  Workgroup *wg = nullptr;
  LaunchState *L = nullptr;
  uint32_t waveIdx = 0;
  uint32_t barrierPc = 0;
  int64_t budget = 0;
  uint64_t laneOps = 0;
  uint64_t *slot(uint32_t s) { return R + (size_t)s * kLanes; }
  void fail(const Inst &I, const std::string &msg);
};

/// Runs a launch; see Emulator.h for the contract.
struct LaunchConfig {
  uint32_t grid[3], block[3];
  unsigned maxResident;
  int64_t yieldBudget;
  uint64_t maxLoopIters;
  double timeoutS; // wall-clock limit of the launch; 0 = none
};

/// Returns an empty string on success, else the error message.
std::string runKernel(const Kernel &K, const LaunchConfig &cfg,
                      void *const *params, size_t numParams, uint64_t *laneOps);

// ---- Handler factory used by the compiler -------------------------------
enum class FK : uint8_t { // float formats
  F16,
  BF16,
  F32,
  F64,
  E4M3FN,
  E4M3FNUZ,
  E5M2,
  E5M2FNUZ
};

enum class Op : uint16_t {
  // int binary
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  CeilDivSI,
  CeilDivUI,
  FloorDivSI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRSI,
  ShRUI,
  MaxSI,
  MaxUI,
  MinSI,
  MinUI,
  MulHiSI,
  MulHiUI,
  // float binary
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  CopySign,
  PowF,
  // float unary
  NegF,
  AbsF,
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Tanh,
  Ceil,
  Floor,
  Round,
  RoundEven,
  Trunc,
  Sin,
  Cos,
  Erf,
  Log1p,
  Expm1,
  // int unary
  AbsI,
  CtPop,
  CtLz,
  CtTz,
  // ternary
  FmaF,
  Select,
};

Handler intBinary(Op op);
Handler floatBinary(Op op, FK f);
Handler floatUnary(Op op, FK f);
Handler intUnary(Op op);
Handler floatFma(FK f);
Handler selectH();
Handler cmpI();     // w = width, i0 = predicate
Handler cmpF(FK f); // i0 = predicate
Handler extSI();    // w = src width, i0 = dst width
Handler extUI();
Handler truncI();               // i0 = dst width
Handler convFF(FK from, FK to); // extf/truncf
Handler fpToSI(FK f);           // i0 = dst width
Handler fpToUI(FK f);
Handler siToFP(FK f); // w = src width
Handler uiToFP(FK f);
Handler copyH(); // n elements
Handler maskedCopyH();
Handler gatherH();     // aux[x + j] = source slot of element j
Handler broadcastH();  // a scalar -> n
Handler bitcastVecH(); // aux: srcN, srcW, dstN, dstW
Handler extractDynH(); // a vector (i0 elems), b index slot, n = sub size
Handler insertDynH();  // d <- copy a (i0 elems), set elem at b from c
Handler reduceH(Op op, FK f, bool isFloat); // w width, i0 acc slot+1 or 0
Handler specialH();                         // i0 = which
// control flow
Handler ifBeginH();
Handler ifElseH();
Handler ifEndH();
Handler loopPushH();
Handler forHeadH();   // a iv, b ub, w width, i0 exit pc, i1 unsigned
Handler forStepH();   // a iv, b step, w width, i0 head pc
Handler whileCondH(); // a cond, i0 exit pc
Handler jumpBackH();  // i0 target
Handler loopPopH();
Handler barrierH();
Handler returnH();
Handler nopH();
// memory
Handler loadH();         // a mref, x aux indices(rank), d dst, n elems
Handler storeH();        // a mref, x aux, b value slot, n
Handler atomicRmwH();    // a mref, x aux, b value, w kind, i0 fmt/width
Handler gAtomicBeginH(); // a mref, x aux, d block arg slot, i0 end pc, c result
Handler gAtomicEndH();   // a mref, x aux, b yield slot, i0 body pc, c result
Handler dimH();          // a mref, i0 dim
Handler viewH();         // a src mref, b shift slot, d dst mref, aux sizes
Handler aliasMRefH();    // d <- a
Handler reinterpretH();  // d <- a with size b (or static i0 when i1 = 1)
Handler fatBufferH();    // d <- a as a fat raw buffer, validBytes b if i1
Handler
bufLoadH(); // a mref, x aux idx(rank), b sgpr slot or -1 (i1), i0 idxOffset, n
Handler bufStoreH();
Handler bufAtomicH(); // w kind
// global memory through !llvm.ptr<1> (addresses in i64 slots)
Handler alignedPointerH(); // d <- base address of mref a
Handler pointerLoadH();    // a address slot, d dst, i1 bytes
Handler pointerStoreH();   // a address slot, b value, i1 bytes
Handler pointerAtomicH();  // a address, b value, d old, w kind, i1 bytes
Handler sleepH();          // a backoff: the workgroup gives its turn away
// cross-lane
Handler dppH();         // i0 kind, i1 arg, w row|bank<<4|bc<<8
Handler swizzleBitsH(); // i0 and, i1 or, i2 xor
Handler dsSwizzleH();   // b offset slot
Handler dsBpermuteH();  // a index, b src
Handler readlaneH();    // a src, b lane (n)
Handler readFirstLaneH();
Handler ballotH();
Handler mbcntH(bool hi);
Handler permlaneSwapH(); // i0 row length, w fetchInactive|boundCtrl<<1
Handler gpuShuffleH(); // i0 mode; a val, b offset, c width, d result, d+n valid
Handler nvvmShflH();   // a val, b offset, c mask_and_clamp, i0 kind
Handler nvvmVoteH();   // a member mask, b pred, i0 kind
Handler nvvmMatchAnyH(); // a member mask, b value of w bits
Handler mfmaH();       // aux: M,N,K, fmtA, fmtB, lenA, lenB, lenC
Handler
packedTruncH(FK f); // a srcA, b srcB or (uint32)-1, c existing or -1, i0 word
Handler extPackedH(FK f); // a src (n elems i1), i0 index, n result count

enum class Special : uint8_t {
  TidX,
  TidY,
  TidZ,
  BidX,
  BidY,
  BidZ,
  BDimX,
  BDimY,
  BDimZ,
  GDimX,
  GDimY,
  GDimZ,
  LaneId,
  SubgroupSize,
  SubgroupId,
  NumSubgroups
};

// Float format helpers (shared with the compiler for constants).
uint64_t encodeFromDouble(double v, FK f, bool saturate);
double decodeToDouble(uint64_t bits, FK f);

} // namespace tessel::emu::detail

#endif // TESSEL_EMULATOR_PROGRAM_H
