//===- Interp.cpp - Instruction handlers and wave scheduler ---------------===//
//
// Pure per-lane ops write all lanes of their (fresh SSA) destination slots
// regardless of the exec mask: a value defined under a mask can only be
// observed by lanes of that mask, so this is safe and keeps the lane loops
// branch-free. Ops with side effects or faults (memory, division, yields into
// loop-carried registers) honour the exec mask.
//
//===----------------------------------------------------------------------===//
#include "Float.h"
#include "Program.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>

namespace tessel::emu::detail {

struct Workgroup {
  uint32_t id[3] = {0, 0, 0};
  std::vector<uint8_t> lds, ldsInit;
  std::vector<Wave> waves;
  std::vector<std::vector<uint64_t>> regs;
  std::vector<std::vector<MRef>> mrefs;
  bool active = false;
};

using Clock = std::chrono::steady_clock;

/// Back-edges between two reads of the clock: a tight emulated loop takes
/// well over 1 us per back-edge, so the watchdog reacts within milliseconds
/// while the clock costs nothing measurable.
constexpr uint64_t kClockInterval = 4096;

struct LaunchState {
  const Kernel *K;
  LaunchConfig cfg;
  uint64_t loopIters = 0;
  /// loopIters value at which backEdge() calls the watchdog next.
  uint64_t nextCheck = 0;
  Clock::time_point start;
  /// The resident workgroups and the grid's progress, for the watchdog's
  /// report.
  const std::vector<std::unique_ptr<Workgroup>> *slots = nullptr;
  uint64_t numWG = 0, nextWG = 0;
  std::string error;

  void scheduleCheck() {
    nextCheck = loopIters + kClockInterval;
    if (cfg.maxLoopIters)
      nextCheck = std::min(nextCheck, cfg.maxLoopIters + 1);
  }
  double elapsedSeconds() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  bool pastDeadline() const {
    return cfg.timeoutS > 0 && elapsedSeconds() > cfg.timeoutS;
  }
  std::string watchdogMessage(const char *where) const;
  std::string runningWorkgroups() const;
};

std::string LaunchState::watchdogMessage(const char *where) const {
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.2f", elapsedSeconds());
  std::ostringstream os;
  os << "the watchdog stopped the launch" << where << " after " << elapsed
     << " s (limit " << cfg.timeoutS
     << " s; set LaunchOptions::timeoutSeconds or TESSEL_EMU_TIMEOUT_S, 0 = "
        "no limit): endless loop or spin-wait? "
     << runningWorkgroups();
  return os.str();
}

// Lists the resident workgroups that have not finished and where their
// waves are: a spinning wave at its loop, the others typically at a barrier.
std::string LaunchState::runningWorkgroups() const {
  constexpr unsigned kMaxListed = 8;
  std::string out = "Workgroups still running:";
  unsigned listed = 0, more = 0;
  for (const auto &G : *slots) {
    if (!G || !G->active)
      continue;
    if (listed == kMaxListed) {
      ++more;
      continue;
    }
    out += (listed++ ? "; (" : " (") + std::to_string(G->id[0]) + "," +
           std::to_string(G->id[1]) + "," + std::to_string(G->id[2]) + ")";
    std::vector<uint32_t> where; // distinct locs of the unfinished waves
    for (const Wave &W : G->waves) {
      if (W.status == Status::Done)
        continue;
      uint32_t pc = W.status == Status::Barrier ? W.barrierPc : W.pc;
      uint32_t loc = K->code[std::min<size_t>(pc, K->code.size() - 1)].loc;
      if (std::find(where.begin(), where.end(), loc) == where.end())
        where.push_back(loc);
    }
    for (size_t i = 0; i < where.size(); ++i)
      out += (i ? ", " : " at ") + K->locs[where[i]];
  }
  if (more)
    out += "; and " + std::to_string(more) + " more";
  if (nextWG < numWG)
    out += "; " + std::to_string(numWG - nextWG) + " of " +
           std::to_string(numWG) + " workgroups not started";
  return out;
}

void Wave::fail(const Inst &I, const std::string &msg) {
  if (status == Status::Error)
    return;
  std::ostringstream os;
  os << K->locs[I.loc] << ": " << msg << " (workgroup (" << wg->id[0] << ","
     << wg->id[1] << "," << wg->id[2] << "), wave " << waveIdx << ")";
  L->error = os.str();
  status = Status::Error;
}

namespace {

inline uint64_t maskOf(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
inline int64_t sext(uint64_t x, unsigned w) {
  if (w >= 64)
    return (int64_t)x;
  unsigned s = 64 - w;
  return (int64_t)(x << s) >> s;
}
inline unsigned firstLane(uint64_t m) { return (unsigned)__builtin_ctzll(m); }

std::string laneStr(Wave &W, unsigned lane) {
  return "lane " + std::to_string(lane) + ", thread " +
         std::to_string(W.waveIdx * W.K->waveSize + lane);
}

// ---- float format traits --------------------------------------------------
template <FK F> struct Fmt {
  using C = float;
  static C dec(uint64_t b) { return (float)decodeMini(b, miniFormat(F)); }
  static uint64_t enc(double v) { return encodeMini(v, miniFormat(F), false); }
  static uint64_t encSat(double v) {
    return encodeMini(v, miniFormat(F), true);
  }
};
template <> struct Fmt<FK::F32> {
  using C = float;
  static C dec(uint64_t b) { return bitsToF32(b); }
  static uint64_t enc(double v) { return f32ToBits((float)v); }
  static uint64_t encF(float v) { return f32ToBits(v); }
  static uint64_t encSat(double v) { return enc(v); }
};
template <> struct Fmt<FK::F64> {
  using C = double;
  static C dec(uint64_t b) { return bitsToF64(b); }
  static uint64_t enc(double v) { return f64ToBits(v); }
  static uint64_t encSat(double v) { return enc(v); }
};
template <> struct Fmt<FK::BF16> {
  using C = float;
  static C dec(uint64_t b) { return bitsToF32((b & 0xffff) << 16); }
  static uint64_t enc(double v) {
    return encodeMini(v, miniFormat(FK::BF16), false);
  }
  static uint64_t encSat(double v) { return enc(v); }
};
// Fast decode tables for the 8-bit formats.
template <FK F> struct Table8 {
  float v[256];
  Table8() {
    for (int i = 0; i < 256; ++i)
      v[i] = (float)decodeMini(i, miniFormat(F));
  }
};
template <FK F> inline float dec8(uint64_t b) {
  static const Table8<F> t;
  return t.v[b & 0xff];
}
/// The fp8 formats differ only in their tables and encodings.
template <FK F> struct Fmt8 {
  using C = float;
  static C dec(uint64_t b) { return dec8<F>(b); }
  static uint64_t enc(double v) { return encodeMini(v, miniFormat(F), true); }
  static uint64_t encSat(double v) { return enc(v); }
};
template <> struct Fmt<FK::E4M3FN> : Fmt8<FK::E4M3FN> {};
template <> struct Fmt<FK::E4M3FNUZ> : Fmt8<FK::E4M3FNUZ> {};
template <> struct Fmt<FK::E5M2> : Fmt8<FK::E5M2> {};
template <> struct Fmt<FK::E5M2FNUZ> : Fmt8<FK::E5M2FNUZ> {};

template <class T> inline uint64_t encC(typename T::C v) { return T::enc(v); }
template <> inline uint64_t encC<Fmt<FK::F32>>(float v) { return f32ToBits(v); }

#define DISPATCH_FK(f, TEMPLATE)                                               \
  switch (f) {                                                                 \
  case FK::F16:                                                                \
    return TEMPLATE(FK::F16);                                                  \
  case FK::BF16:                                                               \
    return TEMPLATE(FK::BF16);                                                 \
  case FK::F32:                                                                \
    return TEMPLATE(FK::F32);                                                  \
  case FK::F64:                                                                \
    return TEMPLATE(FK::F64);                                                  \
  case FK::E4M3FN:                                                             \
    return TEMPLATE(FK::E4M3FN);                                               \
  case FK::E4M3FNUZ:                                                           \
    return TEMPLATE(FK::E4M3FNUZ);                                             \
  case FK::E5M2:                                                               \
    return TEMPLATE(FK::E5M2);                                                 \
  case FK::E5M2FNUZ:                                                           \
    return TEMPLATE(FK::E5M2FNUZ);                                             \
  }                                                                            \
  return nullptr;

// ---- integer ops ------------------------------------------------------------
template <Op O> inline uint64_t intOp(uint64_t x, uint64_t y, unsigned w) {
  switch (O) {
  case Op::AddI:
    return x + y;
  case Op::SubI:
    return x - y;
  case Op::MulI:
    return x * y;
  case Op::AndI:
    return x & y;
  case Op::OrI:
    return x | y;
  case Op::XOrI:
    return x ^ y;
  case Op::ShLI:
    return y >= w ? 0 : x << y;
  case Op::ShRUI:
    return y >= w ? 0 : x >> y;
  case Op::ShRSI: {
    int64_t s = sext(x, w);
    return (uint64_t)(y >= w ? (s < 0 ? -1 : 0) : s >> y);
  }
  case Op::MaxSI:
    return sext(x, w) > sext(y, w) ? x : y;
  case Op::MinSI:
    return sext(x, w) < sext(y, w) ? x : y;
  case Op::MaxUI:
    return x > y ? x : y;
  case Op::MinUI:
    return x < y ? x : y;
  case Op::MulHiUI: {
    unsigned __int128 p = (unsigned __int128)x * y;
    return (uint64_t)(p >> w);
  }
  case Op::MulHiSI: {
    __int128 p = (__int128)sext(x, w) * sext(y, w);
    return (uint64_t)(p >> w);
  }
  default:
    return 0;
  }
}

template <Op O> void intBin(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b);
  const unsigned w = I.w;
  const uint64_t m = maskOf(w);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = intOp<O>(a[i], b[i], w) & m;
}

// Division: faults on a zero divisor in an active lane.
template <Op O> void intDiv(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b);
  const unsigned w = I.w;
  const uint64_t m = maskOf(w);
  for (uint32_t e = 0; e < I.n; ++e)
    for (unsigned l = 0; l < kLanes; ++l) {
      size_t i = e * kLanes + l;
      uint64_t x = a[i] & m, y = b[i] & m;
      if (y == 0) {
        if ((W.exec >> l) & 1) {
          W.fail(I, "integer division by zero (" + laneStr(W, l) + ")");
          return;
        }
        d[i] = 0;
        continue;
      }
      int64_t sx = sext(x, w), sy = sext(y, w);
      bool ovf = sy == -1 && sx == sext(1ull << (w - 1), w);
      uint64_t r;
      switch (O) {
      case Op::DivUI:
        r = x / y;
        break;
      case Op::RemUI:
        r = x % y;
        break;
      case Op::CeilDivUI:
        r = x / y + (x % y != 0);
        break;
      case Op::DivSI:
        r = ovf ? x : (uint64_t)(sx / sy);
        break;
      case Op::RemSI:
        r = ovf ? 0 : (uint64_t)(sx % sy);
        break;
      case Op::CeilDivSI: {
        if (ovf) {
          r = x;
          break;
        }
        int64_t q = sx / sy, rm = sx % sy;
        if (rm != 0 && ((rm > 0) == (sy > 0)))
          ++q;
        r = (uint64_t)q;
        break;
      }
      case Op::FloorDivSI: {
        if (ovf) {
          r = x;
          break;
        }
        int64_t q = sx / sy, rm = sx % sy;
        if (rm != 0 && ((rm < 0) != (sy < 0)))
          --q;
        r = (uint64_t)q;
        break;
      }
      default:
        r = 0;
      }
      d[i] = r & m;
    }
}

// ---- float ops --------------------------------------------------------------
template <class C> inline C fmaximum(C x, C y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<C>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x; // +0 > -0
  return x > y ? x : y;
}
template <class C> inline C fminimum(C x, C y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<C>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
template <class C> inline C fmaxnum(C x, C y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return fmaximum(x, y);
}
template <class C> inline C fminnum(C x, C y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return fminimum(x, y);
}

template <Op O, class C> inline C fltOp(C x, C y) {
  switch (O) {
  case Op::AddF:
    return x + y;
  case Op::SubF:
    return x - y;
  case Op::MulF:
    return x * y;
  case Op::DivF:
    return x / y;
  case Op::RemF:
    return std::fmod(x, y);
  case Op::MaximumF:
    return fmaximum(x, y);
  case Op::MinimumF:
    return fminimum(x, y);
  case Op::MaxNumF:
    return fmaxnum(x, y);
  case Op::MinNumF:
    return fminnum(x, y);
  case Op::CopySign:
    return std::copysign(x, y);
  case Op::PowF:
    return std::pow(x, y);
  default:
    return 0;
  }
}

template <Op O, FK F> void fltBin(Wave &W, const Inst &I) {
  using T = Fmt<F>;
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = encC<T>(fltOp<O, typename T::C>(T::dec(a[i]), T::dec(b[i])));
}

template <Op O, class C> inline C fltUn(C x) {
  switch (O) {
  case Op::NegF:
    return -x;
  case Op::AbsF:
    return std::fabs(x);
  case Op::Exp:
    return (C)std::exp((double)x);
  case Op::Exp2:
    return (C)std::exp2((double)x);
  case Op::Log:
    return (C)std::log((double)x);
  case Op::Log2:
    return (C)std::log2((double)x);
  case Op::Sqrt:
    return std::sqrt(x);
  case Op::Rsqrt:
    return (C)(1.0 / std::sqrt((double)x));
  case Op::Tanh:
    return (C)std::tanh((double)x);
  case Op::Ceil:
    return std::ceil(x);
  case Op::Floor:
    return std::floor(x);
  case Op::Round:
    return std::round(x);
  case Op::RoundEven:
    return std::nearbyint(x);
  case Op::Trunc:
    return std::trunc(x);
  case Op::Sin:
    return (C)std::sin((double)x);
  case Op::Cos:
    return (C)std::cos((double)x);
  case Op::Erf:
    return (C)std::erf((double)x);
  case Op::Log1p:
    return (C)std::log1p((double)x);
  case Op::Expm1:
    return (C)std::expm1((double)x);
  default:
    return 0;
  }
}

template <Op O, FK F> void fltUnary(Wave &W, const Inst &I) {
  using T = Fmt<F>;
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = encC<T>(fltUn<O, typename T::C>(T::dec(a[i])));
}

template <FK F> void fltFma(Wave &W, const Inst &I) {
  using T = Fmt<F>;
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b), *c = W.slot(I.c);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = encC<T>(std::fma(T::dec(a[i]), T::dec(b[i]), T::dec(c[i])));
}

#if defined(__x86_64__)
#define TESSEL_EMU_X86_FMA 1
// f32 fma on hosts with FMA instructions: same single rounding as fmaf, but
// vectorizable.
__attribute__((target("fma"))) void fltFmaF32Fast(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b), *c = W.slot(I.c);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    uint32_t ua = (uint32_t)a[i], ub = (uint32_t)b[i], uc = (uint32_t)c[i];
    float fa, fb, fc;
    std::memcpy(&fa, &ua, 4);
    std::memcpy(&fb, &ub, 4);
    std::memcpy(&fc, &uc, 4);
    float r = __builtin_fmaf(fa, fb, fc);
    uint32_t ur;
    std::memcpy(&ur, &r, 4);
    d[i] = ur;
  }
}
#endif

template <Op O> void intUn(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const unsigned w = I.w;
  const uint64_t m = maskOf(w);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    uint64_t x = a[i] & m, r = 0;
    switch (O) {
    case Op::AbsI: {
      int64_t s = sext(x, w);
      r = (uint64_t)(s < 0 ? -s : s);
      break;
    }
    case Op::CtPop:
      r = __builtin_popcountll(x);
      break;
    case Op::CtLz:
      r = x ? __builtin_clzll(x) - (64 - w) : w;
      break;
    case Op::CtTz:
      r = x ? __builtin_ctzll(x) : w;
      break;
    default:
      break;
    }
    d[i] = r & m;
  }
}

void selectImpl(Wave &W, const Inst &I) {
  // i0 != 0: condition is a vector (one i1 per element).
  uint64_t *d = W.slot(I.d);
  const uint64_t *c = W.slot(I.a), *x = W.slot(I.b), *y = W.slot(I.c);
  const uint32_t N = I.n * kLanes;
  if (I.i0) {
    for (uint32_t i = 0; i < N; ++i)
      d[i] = (c[i] & 1) ? x[i] : y[i];
  } else {
    for (uint32_t i = 0; i < N; ++i)
      d[i] = (c[i % kLanes] & 1) ? x[i] : y[i];
  }
}

// Comparison through a 4-bit truth table: bit0 lt, bit1 eq, bit2 gt, bit3
// unordered (computed by the compiler from the predicate).
void cmpIImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b);
  const unsigned w = I.w;
  const uint64_t m = maskOf(w);
  const uint64_t tt = (uint64_t)I.i0;
  const bool sgn = I.i1 != 0;
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    unsigned code;
    if (sgn) {
      int64_t x = sext(a[i], w), y = sext(b[i], w);
      code = x < y ? 0 : (x == y ? 1 : 2);
    } else {
      uint64_t x = a[i] & m, y = b[i] & m;
      code = x < y ? 0 : (x == y ? 1 : 2);
    }
    d[i] = (tt >> code) & 1;
  }
}

template <FK F> void cmpFImpl(Wave &W, const Inst &I) {
  using T = Fmt<F>;
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a), *b = W.slot(I.b);
  const uint64_t tt = (uint64_t)I.i0;
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    auto x = T::dec(a[i]), y = T::dec(b[i]);
    unsigned code =
        (std::isnan(x) || std::isnan(y)) ? 3 : (x < y ? 0 : (x == y ? 1 : 2));
    d[i] = (tt >> code) & 1;
  }
}

void extSIImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint64_t m = maskOf((unsigned)I.i0);
  const unsigned w = I.w;
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = (uint64_t)sext(a[i], w) & m;
}
void extUIImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint64_t m = maskOf(I.w);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = a[i] & m;
}
void truncIImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint64_t m = maskOf((unsigned)I.i0);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = a[i] & m;
}

template <FK From, FK To> void convFFImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i)
    d[i] = Fmt<To>::encSat((double)Fmt<From>::dec(a[i]));
}
template <FK From> Handler convFrom(FK to) {
#define CONV_T(T) convFFImpl<From, T>
  DISPATCH_FK(to, CONV_T)
#undef CONV_T
}

template <FK F, bool Signed> void fpToIImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const unsigned w = (unsigned)I.i0;
  const uint64_t m = maskOf(w);
  const double lo = Signed ? -std::ldexp(1.0, w - 1) : 0.0;
  const double hi =
      Signed ? std::ldexp(1.0, w - 1) - 1 : std::ldexp(1.0, w) - 1;
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    double v = (double)Fmt<F>::dec(a[i]);
    // Hardware conversions saturate and map NaN to 0.
    uint64_t r;
    if (std::isnan(v))
      r = 0;
    else if (v <= lo)
      r = Signed ? (uint64_t)(int64_t)lo : 0;
    else if (v >= hi)
      r = Signed ? (uint64_t)(w >= 64 ? INT64_MAX : (int64_t)hi)
                 : (w >= 64 ? ~0ull : (uint64_t)hi);
    else
      r = Signed ? (uint64_t)(int64_t)std::trunc(v) : (uint64_t)std::trunc(v);
    d[i] = r & m;
  }
}

template <FK F, bool Signed> void iToFPImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const unsigned w = I.w;
  const uint32_t N = I.n * kLanes;
  for (uint32_t i = 0; i < N; ++i) {
    if (F == FK::F32) {
      float f = Signed ? (float)sext(a[i], w) : (float)(a[i] & maskOf(w));
      d[i] = f32ToBits(f);
    } else {
      double v = Signed ? (double)sext(a[i], w) : (double)(a[i] & maskOf(w));
      d[i] = Fmt<F>::encSat(v);
    }
  }
}

void copyImpl(Wave &W, const Inst &I) {
  std::memcpy(W.slot(I.d), W.slot(I.a), sizeof(uint64_t) * I.n * kLanes);
}
void maskedCopyImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const uint64_t *a = W.slot(I.a);
  const uint64_t ex = W.exec;
  for (uint32_t e = 0; e < I.n; ++e)
    for (unsigned l = 0; l < kLanes; ++l)
      if ((ex >> l) & 1)
        d[e * kLanes + l] = a[e * kLanes + l];
}
void gatherImpl(Wave &W, const Inst &I) {
  const int64_t *src = W.K->aux.data() + I.x;
  for (uint32_t e = 0; e < I.n; ++e)
    std::memcpy(W.slot(I.d + e), W.slot((uint32_t)src[e]),
                sizeof(uint64_t) * kLanes);
}
void broadcastImpl(Wave &W, const Inst &I) {
  for (uint32_t e = 0; e < I.n; ++e)
    std::memcpy(W.slot(I.d + e), W.slot(I.a), sizeof(uint64_t) * kLanes);
}
void bitcastVecImpl(Wave &W, const Inst &I) {
  const int64_t *aux = W.K->aux.data() + I.x;
  unsigned sn = (unsigned)aux[0], sw = (unsigned)aux[1], dn = (unsigned)aux[2],
           dw = (unsigned)aux[3];
  const uint64_t *a = W.slot(I.a);
  uint64_t *d = W.slot(I.d);
  if (sw % 8 == 0 && dw % 8 == 0) {
    // Byte-aligned element widths: repack bytes (little endian).
    const unsigned sb = sw / 8, db = dw / 8;
    for (unsigned l = 0; l < kLanes; ++l) {
      uint8_t buf[512];
      for (unsigned e = 0; e < sn; ++e)
        std::memcpy(buf + e * sb, &a[e * kLanes + l], sb);
      for (unsigned e = 0; e < dn; ++e) {
        uint64_t v = 0;
        std::memcpy(&v, buf + e * db, db);
        d[e * kLanes + l] = v;
      }
    }
    return;
  }
  for (unsigned l = 0; l < kLanes; ++l) {
    // Little-endian concatenation of the source elements.
    uint8_t buf[512] = {0};
    unsigned bit = 0;
    for (unsigned e = 0; e < sn; ++e) {
      uint64_t v = a[e * kLanes + l];
      for (unsigned k = 0; k < sw; ++k, ++bit)
        if ((v >> k) & 1)
          buf[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    }
    bit = 0;
    for (unsigned e = 0; e < dn; ++e) {
      uint64_t v = 0;
      for (unsigned k = 0; k < dw; ++k, ++bit)
        if ((buf[bit >> 3] >> (bit & 7)) & 1)
          v |= 1ull << k;
      d[e * kLanes + l] = v;
    }
  }
}
void extractDynImpl(Wave &W, const Inst &I) {
  // a: vector of i0 groups of n slots; b: index.
  const uint64_t *idx = W.slot(I.b);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint64_t p = idx[l];
    if (p >= (uint64_t)I.i0) {
      if ((W.exec >> l) & 1) {
        W.fail(I, "dynamic vector position " + std::to_string((int64_t)p) +
                      " out of range [0, " + std::to_string(I.i0) + ") (" +
                      laneStr(W, l) + ")");
        return;
      }
      p = 0;
    }
    for (uint32_t e = 0; e < I.n; ++e)
      W.slot(I.d + e)[l] = W.slot(I.a + (uint32_t)p * I.n + e)[l];
  }
}
void insertDynImpl(Wave &W, const Inst &I) {
  // d <- a (i0 groups of n), then group at index b <- c.
  std::memcpy(W.slot(I.d), W.slot(I.a), sizeof(uint64_t) * kLanes * I.n * I.i0);
  const uint64_t *idx = W.slot(I.b);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint64_t p = idx[l];
    if (p >= (uint64_t)I.i0) {
      if ((W.exec >> l) & 1) {
        W.fail(I, "dynamic vector position " + std::to_string((int64_t)p) +
                      " out of range (" + laneStr(W, l) + ")");
        return;
      }
      continue;
    }
    for (uint32_t e = 0; e < I.n; ++e)
      W.slot(I.d + (uint32_t)p * I.n + e)[l] = W.slot(I.c + e)[l];
  }
}

// Reductions: sequential from element 0; i0 = 1 + acc slot when present.
template <Op O, FK F> void reduceF(Wave &W, const Inst &I) {
  using T = Fmt<F>;
  using C = typename T::C;
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l) {
    C acc = T::dec(W.slot(I.a)[l]);
    uint32_t start = 1;
    if (I.i0) {
      acc = T::dec(W.slot((uint32_t)I.i0 - 1)[l]);
      start = 0;
    }
    for (uint32_t e = start; e < I.n; ++e) {
      C x = T::dec(W.slot(I.a + e)[l]);
      if (O == Op::AddF)
        acc = (C)(acc + x);
      else if (O == Op::MulF)
        acc = (C)(acc * x);
      else
        acc = fltOp<O, C>(acc, x);
      if (F != FK::F32 && F != FK::F64)
        acc = T::dec(T::enc(acc)); // round each step to the element type
    }
    d[l] = encC<T>(acc);
  }
}
template <Op O> void reduceI(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const unsigned w = I.w;
  const uint64_t m = maskOf(w);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint64_t acc = W.slot(I.a)[l];
    uint32_t start = 1;
    if (I.i0) {
      acc = W.slot((uint32_t)I.i0 - 1)[l];
      start = 0;
    }
    for (uint32_t e = start; e < I.n; ++e)
      acc = intOp<O>(acc, W.slot(I.a + e)[l], w) & m;
    d[l] = acc & m;
  }
}

void specialImpl(Wave &W, const Inst &I) {
  uint64_t *d = W.slot(I.d);
  const LaunchConfig &c = W.L->cfg;
  const unsigned ws = W.K->waveSize;
  auto s = (Special)I.i0;
  for (unsigned l = 0; l < kLanes; ++l) {
    uint64_t t = (uint64_t)W.waveIdx * ws + (l < ws ? l : 0);
    uint64_t v = 0;
    switch (s) {
    case Special::TidX:
      v = t % c.block[0];
      break;
    case Special::TidY:
      v = (t / c.block[0]) % c.block[1];
      break;
    case Special::TidZ:
      v = t / ((uint64_t)c.block[0] * c.block[1]);
      break;
    case Special::BidX:
      v = W.wg->id[0];
      break;
    case Special::BidY:
      v = W.wg->id[1];
      break;
    case Special::BidZ:
      v = W.wg->id[2];
      break;
    case Special::BDimX:
      v = c.block[0];
      break;
    case Special::BDimY:
      v = c.block[1];
      break;
    case Special::BDimZ:
      v = c.block[2];
      break;
    case Special::GDimX:
      v = c.grid[0];
      break;
    case Special::GDimY:
      v = c.grid[1];
      break;
    case Special::GDimZ:
      v = c.grid[2];
      break;
    case Special::LaneId:
      v = l;
      break;
    case Special::SubgroupSize:
      v = ws;
      break;
    case Special::SubgroupId:
      v = W.waveIdx;
      break;
    case Special::NumSubgroups:
      v = ((uint64_t)c.block[0] * c.block[1] * c.block[2] + ws - 1) / ws;
      break;
    }
    d[l] = v & maskOf(I.w);
  }
}

// ---- control flow
// ------------------------------------------------------------- if:
// IfBegin(a=cond, i0=else pc) then... IfElse(i0=end pc) else... IfEnd
void ifBeginImpl(Wave &W, const Inst &I) {
  const uint64_t *c = W.slot(I.a);
  uint64_t t = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    t |= (c[l] & 1) << l;
  uint64_t thenM = W.exec & t, elseM = W.exec & ~t;
  W.stack.push_back(W.exec);
  W.stack.push_back(elseM);
  if (thenM == 0)
    W.pc = (uint32_t)I.i0; // IfElse switches to the else mask
  else
    W.exec = thenM;
}
void ifElseImpl(Wave &W, const Inst &I) {
  W.exec = W.stack.back();
  if (W.exec == 0)
    W.pc = (uint32_t)I.i0;
}
void ifEndImpl(Wave &W, const Inst &) {
  W.stack.pop_back();
  W.exec = W.stack.back();
  W.stack.pop_back();
}
void loopPushImpl(Wave &W, const Inst &) { W.stack.push_back(W.exec); }
void loopPopImpl(Wave &W, const Inst &) {
  W.exec = W.stack.back();
  W.stack.pop_back();
}
void forHeadImpl(Wave &W, const Inst &I) {
  const uint64_t *iv = W.slot(I.a), *ub = W.slot(I.b);
  uint64_t live = 0;
  const unsigned w = I.w;
  if (I.i1) {
    const uint64_t m = maskOf(w);
    for (unsigned l = 0; l < kLanes; ++l)
      live |= (uint64_t)((iv[l] & m) < (ub[l] & m)) << l;
  } else {
    for (unsigned l = 0; l < kLanes; ++l)
      live |= (uint64_t)(sext(iv[l], w) < sext(ub[l], w)) << l;
  }
  W.exec &= live;
  if (W.exec == 0)
    W.pc = (uint32_t)I.i0;
}
// Called every kClockInterval back-edges (and at the iteration limit): ends
// the launch when it ran out of back-edges or of wall time.
__attribute__((noinline)) void checkLimits(Wave &W, const Inst &I) {
  LaunchState &L = *W.L;
  if (L.cfg.maxLoopIters && L.loopIters > L.cfg.maxLoopIters) {
    W.fail(I, "loop iteration limit exceeded (" +
                  std::to_string(L.cfg.maxLoopIters) +
                  " iterations): deadlock or endless spin-wait? " +
                  L.runningWorkgroups());
    return;
  }
  if (L.pastDeadline()) {
    W.fail(I, L.watchdogMessage(" in this loop"));
    return;
  }
  L.scheduleCheck();
}
inline void backEdge(Wave &W, const Inst &I, uint32_t target) {
  W.pc = target;
  if (__builtin_expect(++W.L->loopIters >= W.L->nextCheck, 0)) {
    checkLimits(W, I);
    if (W.status == Status::Error)
      return;
  }
  if (--W.budget <= 0)
    W.status = Status::Yield;
}
void forStepImpl(Wave &W, const Inst &I) {
  uint64_t *iv = W.slot(I.a);
  const uint64_t *st = W.slot(I.b);
  const uint64_t m = maskOf(I.w);
  const uint64_t ex = W.exec;
  for (unsigned l = 0; l < kLanes; ++l)
    if ((ex >> l) & 1)
      iv[l] = (iv[l] + st[l]) & m;
  backEdge(W, I, (uint32_t)I.i0);
}
void whileCondImpl(Wave &W, const Inst &I) {
  const uint64_t *c = W.slot(I.a);
  uint64_t t = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    t |= (c[l] & 1) << l;
  W.exec &= t;
  if (W.exec == 0)
    W.pc = (uint32_t)I.i0;
}
void jumpBackImpl(Wave &W, const Inst &I) { backEdge(W, I, (uint32_t)I.i0); }
void barrierImpl(Wave &W, const Inst &) {
  W.barrierPc = W.pc - 1;
  W.status = Status::Barrier;
}
void returnImpl(Wave &W, const Inst &) { W.status = Status::Done; }
void nopImpl(Wave &, const Inst &) {}

// ---- memory
// -------------------------------------------------------------------
const char *spaceName(Space s) { return s == Space::LDS ? "LDS" : "global"; }

// Computes the linear element index of `lane` for an access of `n` elements
// along the last dimension; reports an error and returns false when out of
// bounds.
bool linearIndex(Wave &W, const Inst &I, const MRef &M, unsigned lane,
                 uint32_t n, const char *what, int64_t &out) {
  const int64_t *aux = W.K->aux.data() + I.x;
  int64_t lin = 0;
  bool oob = false;
  int64_t idx[4] = {0, 0, 0, 0};
  for (uint32_t r = 0; r < M.rank; ++r) {
    idx[r] = (int64_t)W.slot((uint32_t)aux[r])[lane];
    int64_t hi = r + 1 == M.rank ? idx[r] + (int64_t)n : idx[r] + 1;
    if (idx[r] < 0 || hi > M.sizes[r])
      oob = true;
    lin += idx[r] * M.strides[r];
  }
  // A memref cut to a size past its allocation (reinterpret_cast).
  if (M.allocBytes >= 0 && (lin + (int64_t)n) * M.elemBytes > M.allocBytes)
    oob = true;
  if (!oob) {
    out = lin;
    return true;
  }
  std::ostringstream os;
  os << "out-of-bounds " << what << " of " << n << " element(s) at index [";
  for (uint32_t r = 0; r < M.rank; ++r)
    os << (r ? ", " : "") << idx[r];
  os << "] of " << spaceName(M.space) << " buffer " << W.K->bufferNames[M.what]
     << " with shape [";
  for (uint32_t r = 0; r < M.rank; ++r)
    os << (r ? ", " : "") << M.sizes[r];
  os << "] (" << laneStr(W, lane) << ")";
  W.fail(I, os.str());
  return false;
}

inline bool checkMRef(Wave &W, const Inst &I, const MRef &M) {
  if (!M.valid) {
    W.fail(I, "use of an undefined memref value");
    return false;
  }
  return true;
}

template <class T> inline bool load1D(Wave &W, const Inst &I, const MRef &M) {
  const uint64_t *idx = W.slot((uint32_t)W.K->aux[I.x]);
  const int64_t hi = M.sizes[0] - (int64_t)I.n;
  const T *base = (const T *)M.base;
  const uint64_t ex = W.exec;
  for (uint64_t m = ex; m; m &= m - 1) {
    int64_t i = (int64_t)idx[firstLane(m)];
    if (i < 0 || i > hi)
      return false;
  }
  if (ex == ~0ull) {
    for (uint32_t e = 0; e < I.n; ++e) {
      uint64_t *d = W.slot(I.d + e);
      for (unsigned l = 0; l < kLanes; ++l) {
        T v;
        std::memcpy(&v, base + idx[l] + e, sizeof(T));
        d[l] = v;
      }
    }
    return true;
  }
  for (uint32_t e = 0; e < I.n; ++e) {
    uint64_t *d = W.slot(I.d + e);
    for (uint64_t m = ex; m; m &= m - 1) {
      unsigned l = firstLane(m);
      T v;
      std::memcpy(&v, base + idx[l] + e, sizeof(T));
      d[l] = v;
    }
  }
  return true;
}
template <class T> inline bool store1D(Wave &W, const Inst &I, const MRef &M) {
  const uint64_t *idx = W.slot((uint32_t)W.K->aux[I.x]);
  const int64_t size = M.sizes[0], hi = size - (int64_t)I.n;
  T *base = (T *)M.base;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    int64_t i = (int64_t)idx[l];
    if (i < 0 || i > hi)
      return false;
    for (uint32_t e = 0; e < I.n; ++e) {
      T v = (T)W.R[(size_t)(I.b + e) * kLanes + l];
      std::memcpy(base + i + e, &v, sizeof(T));
    }
  }
  return true;
}
// Rank-1, unit-stride, global: the common case. Returns false to fall back to
// the general path (which also produces the error message).
template <bool Store>
inline bool fast1D(Wave &W, const Inst &I, const MRef &M) {
  if (M.rank != 1 || M.strides[0] != 1 || M.init || M.allocBytes >= 0 ||
      M.bufferBytes >= 0)
    return false;
  switch (M.elemBytes) {
  case 1:
    return Store ? store1D<uint8_t>(W, I, M) : load1D<uint8_t>(W, I, M);
  case 2:
    return Store ? store1D<uint16_t>(W, I, M) : load1D<uint16_t>(W, I, M);
  case 4:
    return Store ? store1D<uint32_t>(W, I, M) : load1D<uint32_t>(W, I, M);
  case 8:
    return Store ? store1D<uint64_t>(W, I, M) : load1D<uint64_t>(W, I, M);
  }
  return false;
}

void fatBufferAccess(Wave &W, const Inst &I, const MRef &M, bool store);
void loadImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  if (M.bufferBytes >= 0)
    return fatBufferAccess(W, I, M, /*store=*/false);
  if (fast1D<false>(W, I, M))
    return;
  const uint32_t eb = M.elemBytes;
  const int64_t es = M.rank ? M.strides[M.rank - 1] : 1;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    int64_t lin;
    if (!linearIndex(W, I, M, l, I.n, "load", lin))
      return;
    for (uint32_t e = 0; e < I.n; ++e) {
      int64_t off = (lin + e * es) * eb;
      if (M.init)
        for (uint32_t k = 0; k < eb; ++k)
          if (!M.init[off + k]) {
            W.fail(I, "read of never-written LDS at byte offset " +
                          std::to_string(off + k) + " of " +
                          W.K->bufferNames[M.what] + " (" + laneStr(W, l) +
                          ")");
            return;
          }
      uint64_t v = 0;
      std::memcpy(&v, M.base + off, eb);
      W.slot(I.d + e)[l] = v;
    }
  }
}
void storeImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  if (M.bufferBytes >= 0)
    return fatBufferAccess(W, I, M, /*store=*/true);
  if (fast1D<true>(W, I, M))
    return;
  const uint32_t eb = M.elemBytes;
  const int64_t es = M.rank ? M.strides[M.rank - 1] : 1;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    int64_t lin;
    if (!linearIndex(W, I, M, l, I.n, "store", lin))
      return;
    for (uint32_t e = 0; e < I.n; ++e) {
      int64_t off = (lin + e * es) * eb;
      uint64_t v = W.slot(I.b + e)[l];
      std::memcpy(M.base + off, &v, eb);
      if (M.init)
        std::memset(M.init + off, 1, eb);
    }
  }
}

enum AK : uint32_t {
  AK_AddF,
  AK_AddI,
  AK_Assign,
  AK_MaximumF,
  AK_MaxS,
  AK_MaxU,
  AK_MinimumF,
  AK_MinS,
  AK_MinU,
  AK_MulF,
  AK_MulI,
  AK_OrI,
  AK_AndI,
  AK_MaxNumF,
  AK_MinNumF,
  AK_XOrI
};

uint64_t applyAtomic(uint32_t kind, FK f, unsigned w, uint64_t cur,
                     uint64_t val) {
  auto F = [&](double x) { return encodeFromDouble(x, f, false); };
  auto D = [&](uint64_t b) { return decodeToDouble(b, f); };
  uint64_t m = maskOf(w);
  switch (kind) {
  case AK_AddF:
    return F(D(cur) + D(val));
  case AK_MulF:
    return F(D(cur) * D(val));
  case AK_MaximumF:
    return F(fmaximum(D(cur), D(val)));
  case AK_MinimumF:
    return F(fminimum(D(cur), D(val)));
  case AK_MaxNumF:
    return F(fmaxnum(D(cur), D(val)));
  case AK_MinNumF:
    return F(fminnum(D(cur), D(val)));
  case AK_AddI:
    return (cur + val) & m;
  case AK_MulI:
    return (cur * val) & m;
  case AK_Assign:
    return val & m;
  case AK_MaxS:
    return sext(cur, w) > sext(val, w) ? cur : val & m;
  case AK_MinS:
    return sext(cur, w) < sext(val, w) ? cur : val & m;
  case AK_MaxU:
    return (cur & m) > (val & m) ? cur : val & m;
  case AK_MinU:
    return (cur & m) < (val & m) ? cur : val & m;
  case AK_OrI:
    return (cur | val) & m;
  case AK_AndI:
    return (cur & val) & m;
  case AK_XOrI:
    return (cur ^ val) & m;
  }
  return cur;
}

bool checkInit(Wave &W, const Inst &I, const MRef &M, int64_t off,
               unsigned lane) {
  if (!M.init)
    return true;
  for (uint32_t k = 0; k < M.elemBytes; ++k)
    if (!M.init[off + k]) {
      W.fail(I, "read of never-written LDS at byte offset " +
                    std::to_string(off + k) + " of " +
                    W.K->bufferNames[M.what] + " (" + laneStr(W, lane) + ")");
      return false;
    }
  return true;
}

// Lanes perform their read-modify-write one after another, in lane order.
void atomicRmwImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  const uint32_t eb = M.elemBytes;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    int64_t lin;
    if (!linearIndex(W, I, M, l, 1, "atomic", lin))
      return;
    int64_t off = lin * eb;
    if (!checkInit(W, I, M, off, l))
      return;
    uint64_t cur = 0;
    std::memcpy(&cur, M.base + off, eb);
    uint64_t nv =
        applyAtomic(I.w, (FK)I.i0, (unsigned)I.i1, cur, W.slot(I.b)[l]);
    std::memcpy(M.base + off, &nv, eb);
    W.slot(I.d)[l] = cur;
  }
}

// ---- global memory through pointers (tile.grid_barrier's atomics)
void alignedPointerImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  std::fill_n(W.slot(I.d), kLanes, (uint64_t)(uintptr_t)M.base);
}
// The `bytes` at `addr`, if they lie inside one global buffer of the launch
// and are aligned to their size; else reports the error and returns null.
uint8_t *pointerTarget(Wave &W, const Inst &I, uint64_t addr, uint32_t bytes,
                       unsigned lane) {
  for (const ParamSpec &ps : W.K->params) {
    if (!ps.isMemRef)
      continue;
    const MRef &M = W.M[ps.target];
    uint64_t base = (uint64_t)(uintptr_t)M.base;
    uint64_t size = (uint64_t)M.numElems * M.elemBytes;
    if (M.valid && addr >= base && addr - base <= size &&
        size - (addr - base) >= bytes) {
      if (addr % bytes) {
        W.fail(I, "misaligned " + std::to_string(bytes) +
                      "-byte access through a pointer at byte " +
                      std::to_string(addr - base) + " of argument #" +
                      std::to_string(ps.argNo) + " (lane " +
                      std::to_string(lane) + ")");
        return nullptr;
      }
      return (uint8_t *)(uintptr_t)addr;
    }
  }
  std::ostringstream os;
  os << "out-of-bounds access through a pointer: " << bytes << " bytes at 0x"
     << std::hex << addr << std::dec << " lie in no buffer of the launch (lane "
     << lane << ")";
  W.fail(I, os.str());
  return nullptr;
}
void pointerLoadImpl(Wave &W, const Inst &I) {
  const uint64_t *addr = W.slot(I.a);
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    uint8_t *p = pointerTarget(W, I, addr[l], (uint32_t)I.i1, l);
    if (!p)
      return;
    uint64_t v = 0;
    std::memcpy(&v, p, (size_t)I.i1);
    W.slot(I.d)[l] = v;
  }
}
void pointerStoreImpl(Wave &W, const Inst &I) {
  const uint64_t *addr = W.slot(I.a), *val = W.slot(I.b);
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    uint8_t *p = pointerTarget(W, I, addr[l], (uint32_t)I.i1, l);
    if (!p)
      return;
    std::memcpy(p, &val[l], (size_t)I.i1);
  }
}
void pointerAtomicImpl(Wave &W, const Inst &I) {
  const uint64_t *addr = W.slot(I.a), *val = W.slot(I.b);
  const unsigned width = (unsigned)I.i1 * 8;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    uint8_t *p = pointerTarget(W, I, addr[l], (uint32_t)I.i1, l);
    if (!p)
      return;
    uint64_t cur = 0;
    std::memcpy(&cur, p, (size_t)I.i1);
    uint64_t nv = applyAtomic(I.w, FK::F32, width, cur, val[l]);
    std::memcpy(p, &nv, (size_t)I.i1);
    W.slot(I.d)[l] = cur;
  }
}
// A spin-wait's backoff: let the other workgroups run, whose writes the
// spinning one waits for.
void sleepImpl(Wave &W, const Inst &) { W.status = Status::Yield; }

// generic_atomic_rmw: GABegin (push exec, pending mask; run the body for the
// first pending lane) ... body ... GAEnd (store, next lane or finish).
void gaLoadLane(Wave &W, const Inst &I, unsigned l) {
  const MRef &M = W.M[I.a];
  int64_t lin;
  if (!linearIndex(W, I, M, l, 1, "atomic", lin))
    return;
  int64_t off = lin * M.elemBytes;
  if (!checkInit(W, I, M, off, l))
    return;
  uint64_t cur = 0;
  std::memcpy(&cur, M.base + off, M.elemBytes);
  W.slot(I.d)[l] = cur; // block argument
  W.slot(I.c)[l] = cur; // op result: the old value
  W.exec = 1ull << l;
}
void gAtomicBeginImpl(Wave &W, const Inst &I) {
  if (!checkMRef(W, I, W.M[I.a]))
    return;
  W.stack.push_back(W.exec);
  W.stack.push_back(W.exec); // pending lanes
  gaLoadLane(W, I, firstLane(W.exec));
}
void gAtomicEndImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  unsigned l = firstLane(W.exec);
  int64_t lin;
  if (!linearIndex(W, I, M, l, 1, "atomic", lin))
    return;
  uint64_t v = W.slot(I.b)[l];
  std::memcpy(M.base + lin * M.elemBytes, &v, M.elemBytes);
  if (M.init)
    std::memset(M.init + lin * M.elemBytes, 1, M.elemBytes);
  uint64_t &pending = W.stack.back();
  pending &= ~(1ull << l);
  if (pending) {
    Inst J = I;
    J.d = (uint32_t)I.i1; // block argument slot
    gaLoadLane(W, J, firstLane(pending));
    W.pc = (uint32_t)I.i0;
    return;
  }
  W.stack.pop_back();
  W.exec = W.stack.back();
  W.stack.pop_back();
}

void dimImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  uint32_t dim = (uint32_t)W.slot(I.b)[firstLane(W.exec)];
  if (I.i1)
    dim = (uint32_t)I.i0;
  if (dim >= M.rank) {
    W.fail(I, "memref.dim index " + std::to_string(dim) + " out of range");
    return;
  }
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l)
    d[l] = (uint64_t)M.sizes[dim];
}

// memref.view: d = view of a at byte shift b (uniform) with the result shape
// in aux: [rank, elemBytes, then per dim: static size or -1 - slot].
void viewImpl(Wave &W, const Inst &I) {
  const MRef &S = W.M[I.a];
  if (!checkMRef(W, I, S))
    return;
  unsigned fl = firstLane(W.exec);
  int64_t shift = (int64_t)W.slot(I.b)[fl];
  const int64_t *aux = W.K->aux.data() + I.x;
  MRef R;
  R.rank = (uint32_t)aux[0];
  R.elemBytes = (uint32_t)aux[1];
  int64_t total = 1;
  for (uint32_t r = 0; r < R.rank; ++r) {
    int64_t s = aux[2 + r];
    R.sizes[r] = s >= 0 ? s : (int64_t)W.slot((uint32_t)(-1 - s))[fl];
    total *= R.sizes[r];
  }
  int64_t st = 1;
  for (int r = (int)R.rank - 1; r >= 0; --r) {
    R.strides[r] = st;
    st *= R.sizes[r];
  }
  R.numElems = total;
  int64_t srcBytes = S.numElems * S.elemBytes;
  if (shift < 0 || shift + total * R.elemBytes > srcBytes) {
    W.fail(I, "memref.view of " + std::to_string(total * R.elemBytes) +
                  " bytes at byte shift " + std::to_string(shift) +
                  " exceeds the " + std::to_string(srcBytes) +
                  "-byte source buffer " + W.K->bufferNames[S.what]);
    return;
  }
  R.base = S.base + shift;
  R.init = S.init ? S.init + shift : nullptr;
  R.space = S.space;
  R.what = S.what;
  R.valid = true;
  W.M[I.d] = R;
}
void aliasMRefImpl(Wave &W, const Inst &I) { W.M[I.d] = W.M[I.a]; }

// memref.reinterpret_cast of a rank-1 memref to offset 0, stride 1 and a
// size from slot b (or the static i0 when i1 = 1): the same allocation under
// another size. The size may pass the allocation's end (a buffer bound);
// allocBytes keeps that end, which every access is still checked against.
void reinterpretImpl(Wave &W, const Inst &I) {
  const MRef &S = W.M[I.a];
  if (!checkMRef(W, I, S))
    return;
  int64_t size = I.i1 ? I.i0 : (int64_t)W.slot(I.b)[firstLane(W.exec)];
  if (size < 0) {
    W.fail(I, "memref.reinterpret_cast to the negative size " +
                  std::to_string(size));
    return;
  }
  MRef R = S;
  R.allocBytes =
      S.allocBytes >= 0 ? S.allocBytes : S.numElems * (int64_t)S.elemBytes;
  R.rank = 1;
  R.sizes[0] = size;
  R.strides[0] = 1;
  R.numElems = size;
  W.M[I.d] = R;
}

// Raw buffer ops: byte offset = (linear index + indexOffset + sgprOffset) *
// elemBytes, and num_records is the memref's size in bytes. The range check
// follows the CDNA3/CDNA4 ISA (buffer range checking, raw buffers): an access
// of fewer than 4 bytes is one piece; a wider one (dword x2/x3/x4) is checked
// dword by dword. A piece is in range when all its bytes lie in [0,
// num_records); out-of-range pieces read 0 and are not written, so a dword
// that straddles num_records is out of range as a whole. Atomics are checked
// as one element. An in-range piece outside the underlying allocation is an
// out-of-bounds error, as for any other access.
struct BufAddr {
  int64_t off;
  int64_t numRecords;
};
BufAddr bufAddr(Wave &W, const Inst &I, const MRef &M, unsigned l) {
  const int64_t *aux = W.K->aux.data() + I.x;
  int64_t lin = 0, records = 0;
  for (uint32_t r = 0; r < M.rank; ++r) {
    lin += sext(W.slot((uint32_t)aux[r])[l], 32) * M.strides[r];
    records = std::max(records, M.sizes[r] * M.strides[r]);
  }
  if (M.rank == 0)
    records = 1;
  lin += I.i0;
  if (I.i1)
    lin += sext(W.slot(I.b)[firstLane(W.exec)], 32);
  return {lin * (int64_t)M.elemBytes, records * (int64_t)M.elemBytes};
}
constexpr int64_t kMaxBufferAccessBytes = 64;
// Calls fn(byte position in the access, byte offset in the buffer, length)
// for each in-range piece of an access of `total` bytes; returns false after
// reporting an in-range piece that leaves the allocation.
template <class Fn>
bool forEachBufferPiece(Wave &W, const Inst &I, const MRef &M, unsigned l,
                        const BufAddr &A, int64_t total, const char *what,
                        Fn fn) {
  const int64_t piece = total < 4 ? total : 4;
  const int64_t alloc = M.allocBytes >= 0 ? M.allocBytes : A.numRecords;
  for (int64_t p = 0; p < total; p += piece) {
    int64_t len = std::min(piece, total - p), off = A.off + p;
    if (off < 0 || off + len > A.numRecords)
      continue;
    if (off + len > alloc) {
      W.fail(I, std::string("raw buffer ") + what + " of bytes [" +
                    std::to_string(off) + ", " + std::to_string(off + len) +
                    "), inside num_records = " + std::to_string(A.numRecords) +
                    " but past the end of the " + std::to_string(alloc) +
                    "-byte buffer " + W.K->bufferNames[M.what] + " (" +
                    laneStr(W, l) + ")");
      return false;
    }
    fn(p, off, len);
  }
  return true;
}
bool checkBufferWidth(Wave &W, const Inst &I, int64_t total) {
  if (total <= kMaxBufferAccessBytes)
    return true;
  W.fail(I, "raw buffer access of " + std::to_string(total) +
                " bytes; at most " + std::to_string(kMaxBufferAccessBytes) +
                " are supported");
  return false;
}
// One lane's raw buffer access of `total` bytes at A: a store packs slots
// [slot, slot + n) into bytes and writes the in-range pieces; a load reads
// them (out-of-range pieces stay 0) and unpacks into those slots. False
// when the access faulted (the wave has failed).
bool bufferLaneAccess(Wave &W, const Inst &I, const MRef &M, unsigned l,
                      BufAddr A, int64_t total, bool store, uint32_t slot) {
  const uint32_t eb = M.elemBytes;
  uint8_t bytes[kMaxBufferAccessBytes] = {};
  if (store) {
    for (uint32_t e = 0; e < I.n; ++e) {
      uint64_t v = W.slot(slot + e)[l];
      std::memcpy(bytes + (size_t)e * eb, &v, eb);
    }
    return forEachBufferPiece(W, I, M, l, A, total, "store",
                              [&](int64_t p, int64_t off, int64_t len) {
                                std::memcpy(M.base + off, bytes + p, len);
                              });
  }
  if (!forEachBufferPiece(W, I, M, l, A, total, "load",
                          [&](int64_t p, int64_t off, int64_t len) {
                            std::memcpy(bytes + p, M.base + off, len);
                          }))
    return false;
  for (uint32_t e = 0; e < I.n; ++e) {
    uint64_t v = 0;
    std::memcpy(&v, bytes + (size_t)e * eb, eb);
    W.slot(slot + e)[l] = v;
  }
  return true;
}
// raw_buffer_load / raw_buffer_store: value slots d (load) or c (store).
void bufAccessImpl(Wave &W, const Inst &I, bool store) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  const int64_t total = (int64_t)I.n * M.elemBytes;
  if (!checkBufferWidth(W, I, total))
    return;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    if (!bufferLaneAccess(W, I, M, l, bufAddr(W, I, M, l), total, store,
                          store ? I.c : I.d))
      return;
  }
}
void bufLoadImpl(Wave &W, const Inst &I) { bufAccessImpl(W, I, false); }
void bufStoreImpl(Wave &W, const Inst &I) { bufAccessImpl(W, I, true); }
// amdgpu.fat_raw_buffer_cast: the same allocation, accessed as a buffer
// whose num_records is validBytes (slot b when i1; its low 32 bits, as the
// descriptor holds them), else the source's size in bytes.
void fatBufferImpl(Wave &W, const Inst &I) {
  const MRef &S = W.M[I.a];
  if (!checkMRef(W, I, S))
    return;
  MRef R = S;
  R.allocBytes =
      S.allocBytes >= 0 ? S.allocBytes : S.numElems * (int64_t)S.elemBytes;
  R.bufferBytes =
      I.i1 ? (int64_t)(W.slot(I.b)[firstLane(W.exec)] & 0xffffffffull)
           : S.numElems * (int64_t)S.elemBytes;
  W.M[I.d] = R;
}
// memref/vector loads and stores through a fat raw buffer: the raw buffer
// range check above, on byte offset = linear index * elemBytes.
void fatBufferAccess(Wave &W, const Inst &I, const MRef &M, bool store) {
  const int64_t total = (int64_t)I.n * M.elemBytes;
  if (!checkBufferWidth(W, I, total))
    return;
  const int64_t *aux = W.K->aux.data() + I.x;
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    int64_t lin = 0;
    for (uint32_t r = 0; r < M.rank; ++r)
      lin += (int64_t)W.slot((uint32_t)aux[r])[l] * M.strides[r];
    BufAddr A{lin * (int64_t)M.elemBytes, M.bufferBytes};
    if (!bufferLaneAccess(W, I, M, l, A, total, store, store ? I.b : I.d))
      return;
  }
}
// w: atomic kind (AK_*, or 100 for cmpswap with compare value in slot I.i2);
// result (old value) in d when present.
void bufAtomicImpl(Wave &W, const Inst &I) {
  const MRef &M = W.M[I.a];
  if (!checkMRef(W, I, M))
    return;
  const uint32_t eb = M.elemBytes;
  const int64_t *aux = W.K->aux.data() + I.x;
  FK f = (FK)aux[M.rank];
  unsigned width = (unsigned)aux[M.rank + 1];
  for (uint64_t ex = W.exec; ex; ex &= ex - 1) {
    unsigned l = firstLane(ex);
    BufAddr A = bufAddr(W, I, M, l);
    uint64_t old = 0;
    if (A.off >= 0 && A.off + eb <= A.numRecords) {
      std::memcpy(&old, M.base + A.off, eb);
      uint64_t val = W.slot(I.c)[l], nv;
      if (I.w == 100)
        nv =
            (old & maskOf(width)) == (W.slot((uint32_t)I.i2)[l] & maskOf(width))
                ? val
                : old;
      else
        nv = applyAtomic(I.w, f, width, old, val);
      std::memcpy(M.base + A.off, &nv, eb);
    }
    if (I.d != ~0u)
      W.slot(I.d)[l] = old;
  }
}

// ---- cross-lane
// --------------------------------------------------------------- DPP (CDNA3
// ISA, "Data Parallel Processing"): rows of 16 lanes, banks of 4 lanes within a
// row. row_mask/bank_mask disable the write of whole rows/banks (the lane keeps
// `old`). A source lane outside the row/wave or inactive gives 0 with
// bound_ctrl, else the lane keeps `old`.
int dppSource(int kind, int64_t arg, unsigned l, unsigned ws) {
  int row = (int)(l >> 4), r = (int)(l & 15);
  switch (kind) {
  case 0: // quad_perm
    return (int)((l & ~3u) | ((arg >> (2 * (l & 3))) & 3));
  case 1: // row_shl
    return r + arg < 16 ? (int)(l + arg) : -1;
  case 2: // row_shr
    return r - arg >= 0 ? (int)(l - arg) : -1;
  case 3: // row_ror
    return row * 16 + (int)((r - arg + 16) & 15);
  case 4: // wave_shl: lane l reads lane l+1
    return l + 1 < ws ? (int)l + 1 : -1;
  case 5: // wave_shr: lane l reads lane l-1
    return l >= 1 ? (int)l - 1 : -1;
  case 6: // wave_ror
    return (int)((l + ws - 1) % ws);
  case 7: // wave_rol
    return (int)((l + 1) % ws);
  case 8: // row_mirror
    return row * 16 + 15 - r;
  case 9: // row_half_mirror
    return (int)(l & ~7u) + 7 - (int)(l & 7);
  case 10: // row_bcast:15, lane 15 of the previous row
    return row >= 1 ? row * 16 - 1 : -1;
  case 11: // row_bcast:31, lane 31 to rows 2 and 3
    return row >= 2 ? 31 : -1;
  }
  return -1;
}
void dppImpl(Wave &W, const Inst &I) {
  const unsigned rowMask = I.w & 0xf, bankMask = (I.w >> 4) & 0xf;
  const bool boundCtrl = (I.w >> 8) & 1;
  const unsigned ws = W.K->waveSize;
  const uint64_t ex = W.exec;
  for (uint32_t e = 0; e < I.n; ++e) {
    const uint64_t *old = W.slot(I.a + e), *src = W.slot(I.b + e);
    uint64_t *d = W.slot(I.d + e);
    for (unsigned l = 0; l < kLanes; ++l) {
      if (l >= ws || !((rowMask >> (l >> 4)) & 1) ||
          !((bankMask >> ((l >> 2) & 3)) & 1)) {
        d[l] = old[l];
        continue;
      }
      int s = dppSource((int)I.i0, I.i1, l, ws);
      if (s >= 0 && (unsigned)s < ws && ((ex >> s) & 1))
        d[l] = src[s];
      else
        d[l] = boundCtrl ? 0 : old[l];
    }
  }
}
// ds_swizzle bit mode within groups of 32 lanes: src = ((l & and) | or) ^ xor.
inline unsigned swizzleSrc(unsigned l, unsigned andM, unsigned orM,
                           unsigned xorM) {
  return (l & ~31u) | ((((l & 31) & andM) | orM) ^ xorM);
}
void swizzleBitsImpl(Wave &W, const Inst &I) {
  const uint64_t ex = W.exec;
  for (uint32_t e = 0; e < I.n; ++e) {
    const uint64_t *a = W.slot(I.a + e);
    uint64_t *d = W.slot(I.d + e);
    for (unsigned l = 0; l < kLanes; ++l) {
      unsigned s = swizzleSrc(l, (unsigned)I.i0 & 31, (unsigned)I.i1 & 31,
                              (unsigned)I.i2 & 31);
      d[l] = ((ex >> s) & 1) ? a[s] : 0;
    }
  }
}
void dsSwizzleImpl(Wave &W, const Inst &I) {
  const uint64_t ex = W.exec;
  unsigned off = (unsigned)W.slot(I.b)[firstLane(ex)] & 0xffff;
  const uint64_t *a = W.slot(I.a);
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l) {
    unsigned s;
    if (off & 0x8000) // quad-permute mode
      s = (l & ~3u) | ((off >> (2 * (l & 3))) & 3);
    else
      s = swizzleSrc(l, off & 31, (off >> 5) & 31, (off >> 10) & 31);
    d[l] = ((ex >> s) & 1) ? a[s] : 0;
  }
}
void dsBpermuteImpl(Wave &W, const Inst &I) {
  const uint64_t ex = W.exec;
  const unsigned ws = W.K->waveSize;
  const uint64_t *idx = W.slot(I.a), *src = W.slot(I.b);
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l) {
    unsigned s = (unsigned)(idx[l] >> 2) & (ws - 1);
    d[l] = ((ex >> s) & 1) ? src[s] : 0;
  }
}
void readlaneImpl(Wave &W, const Inst &I) {
  unsigned s = (unsigned)W.slot(I.b)[firstLane(W.exec)] & (W.K->waveSize - 1);
  for (uint32_t e = 0; e < I.n; ++e) {
    uint64_t v = W.slot(I.a + e)[s];
    uint64_t *d = W.slot(I.d + e);
    for (unsigned l = 0; l < kLanes; ++l)
      d[l] = v;
  }
}
void readFirstLaneImpl(Wave &W, const Inst &I) {
  unsigned s = firstLane(W.exec);
  for (uint32_t e = 0; e < I.n; ++e) {
    uint64_t v = W.slot(I.a + e)[s];
    uint64_t *d = W.slot(I.d + e);
    for (unsigned l = 0; l < kLanes; ++l)
      d[l] = v;
  }
}
void ballotImpl(Wave &W, const Inst &I) {
  const uint64_t *p = W.slot(I.a);
  uint64_t b = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    b |= (p[l] & 1) << l;
  b &= W.exec & maskOf(I.w);
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l)
    d[l] = b;
}
template <bool Hi> void mbcntImpl(Wave &W, const Inst &I) {
  const uint64_t *m = W.slot(I.a), *base = W.slot(I.b);
  uint64_t *d = W.slot(I.d);
  for (unsigned l = 0; l < kLanes; ++l) {
    uint64_t mask = m[l] & 0xffffffffull, below;
    if (!Hi)
      below = l >= 32 ? 0xffffffffull : ((1ull << l) - 1);
    else
      below = l <= 32 ? 0 : ((1ull << (l - 32)) - 1);
    d[l] = (base[l] + __builtin_popcountll(mask & below)) & 0xffffffffull;
  }
}
void permlaneSwapImpl(Wave &W, const Inst &I) {
  const bool fetchInactive = I.w & 1, boundCtrl = (I.w >> 1) & 1;
  const uint64_t ex = W.exec;
  for (uint32_t e = 0; e < I.n; ++e) {
    const uint64_t *a = W.slot(I.a + e);
    uint64_t *d = W.slot(I.d + e);
    for (unsigned l = 0; l < kLanes; ++l) {
      unsigned s = l ^ (unsigned)I.i0;
      if (fetchInactive || ((ex >> s) & 1))
        d[l] = a[s];
      else
        d[l] = boundCtrl ? 0 : a[l];
    }
  }
}
// gpu.shuffle: i0 mode (0 xor, 1 up, 2 down, 3 idx); result d (n elems), valid
// flag in slot c2 = I.i1.
void gpuShuffleImpl(Wave &W, const Inst &I) {
  const uint64_t *off = W.slot(I.b), *wid = W.slot(I.c);
  const uint64_t ex = W.exec;
  unsigned fl = firstLane(ex);
  unsigned width = (unsigned)wid[fl];
  if (width == 0 || width > W.K->waveSize) {
    W.fail(I, "gpu.shuffle width " + std::to_string(width) + " is invalid");
    return;
  }
  uint64_t *valid = W.slot((uint32_t)I.i1);
  for (unsigned l = 0; l < W.K->waveSize; ++l) {
    unsigned o = (unsigned)off[l];
    unsigned lo = (l / width) * width;
    int64_t s;
    switch (I.i0) {
    case 0:
      s = l ^ o;
      break;
    case 1:
      s = (int64_t)l - o;
      break;
    case 2:
      s = (int64_t)l + o;
      break;
    default:
      s = lo + o;
      break;
    }
    bool ok = s >= lo && s < lo + width && ((ex >> s) & 1);
    valid[l] = ok;
    for (uint32_t e = 0; e < I.n; ++e)
      W.slot(I.d + e)[l] = W.slot(I.a + e)[ok ? s : l];
  }
}

// nvvm.shfl.sync (PTX shfl.sync): c packs the clamp value (bits 4:0) and the
// segment mask (bits 12:8). An out-of-segment source returns the lane's own
// value; reading a lane that is not active is undefined in PTX, so it is an
// error here.
void nvvmShflImpl(Wave &W, const Inst &I) {
  const uint64_t *val = W.slot(I.a), *off = W.slot(I.b), *mc = W.slot(I.c);
  uint64_t *d = W.slot(I.d);
  const uint64_t ex = W.exec;
  for (uint64_t m = ex; m; m &= m - 1) {
    unsigned lane = firstLane(m);
    unsigned b = (unsigned)off[lane] & 31, cval = (unsigned)mc[lane] & 31,
             seg = ((unsigned)mc[lane] >> 8) & 31;
    unsigned maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg;
    int j;
    bool ok;
    switch (I.i0) {
    case 1:
      j = (int)lane - (int)b;
      ok = j >= (int)maxLane;
      break; // up
    case 2:
      j = (int)(lane + b);
      ok = j <= (int)maxLane;
      break; // down
    case 0:
      j = (int)(lane ^ b);
      ok = j <= (int)maxLane;
      break; // bfly
    default:
      j = (int)(minLane | (b & ~seg));
      ok = j <= (int)maxLane;
      break;
    }
    if (!ok)
      j = (int)lane;
    if (!((ex >> j) & 1)) {
      W.fail(I, "shfl.sync reads inactive lane " + std::to_string(j) + " (" +
                    laneStr(W, lane) + ")");
      return;
    }
    d[lane] = val[j];
  }
}
// nvvm.vote.sync: i0 = 0 any, 1 all, 2 ballot, 3 uni, over the active lanes
// of the member mask.
void nvvmVoteImpl(Wave &W, const Inst &I) {
  const uint64_t *mask = W.slot(I.a), *p = W.slot(I.b);
  uint64_t *d = W.slot(I.d);
  uint64_t members = W.exec & (mask[firstLane(W.exec)] & 0xffffffffull);
  uint64_t t = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    t |= (p[l] & 1) << l;
  t &= members;
  uint64_t r;
  switch (I.i0) {
  case 0:
    r = t != 0;
    break;
  case 1:
    r = t == members;
    break;
  case 2:
    r = t;
    break;
  default:
    r = t == 0 || t == members;
    break;
  }
  for (unsigned l = 0; l < kLanes; ++l)
    d[l] = r;
}

// nvvm.match.sync any: each active lane gets the mask of the lanes of its
// member mask whose value (the low I.w bits) equals its own. The hardware
// makes a lane wait for every lane its mask names, so a mask that leaves
// the lane out or names a lane that is not active here is an error.
void nvvmMatchAnyImpl(Wave &W, const Inst &I) {
  const uint64_t *mask = W.slot(I.a), *val = W.slot(I.b);
  uint64_t *d = W.slot(I.d);
  const uint64_t ex = W.exec, bits = maskOf(I.w);
  for (uint64_t m = ex; m; m &= m - 1) {
    unsigned lane = firstLane(m);
    uint64_t members = mask[lane] & 0xffffffffull;
    if (!((members >> lane) & 1)) {
      W.fail(I, "match.sync member mask leaves out the lane that runs it (" +
                    laneStr(W, lane) + ")");
      return;
    }
    if (uint64_t idle = members & ~ex) {
      W.fail(I, "match.sync member mask names lane " +
                    std::to_string(firstLane(idle)) +
                    ", which is not active here (" + laneStr(W, lane) + ")");
      return;
    }
    uint64_t peers = 0;
    for (uint64_t k = members; k; k &= k - 1) {
      unsigned o = firstLane(k);
      if (((val[o] ^ val[lane]) & bits) == 0)
        peers |= 1ull << o;
    }
    d[lane] = peers;
  }
}

// MFMA, register layouts from AMD's Matrix Instruction Calculator (CDNA3)
// and, for gfx950's f8f6f4 instructions (32 fp8 elements per lane), AMD's
// CDNA4 register maps (runtime/emulator/README.md names both):
//   A[i][k]: lane = M * (k / lenA) + i, vector element k % lenA
//            f8f6f4: lane = M * ((k % (K/2)) / 16) + i,
//                    element 16 * (k / (K/2)) + k % 16
//   B[k][j]: the same with N and j
//   D[i][j] (M = 16): lane = 16 * (i / 4) + j, element i % 4
//   D[i][j] (M = 32): lane = 32 * ((i / 4) % 2) + j, element 4 * (i / 8) + i %
//   4
// Products are exact in double; the sum is rounded to f32 once.
struct MfmaOperandLoc {
  unsigned lane, el;
};
inline MfmaOperandLoc mfmaOperandLoc(int rows, int K, int len, int i, int k) {
  if (len == 32) { // f8f6f4: two runs of 16 per lane, K/2 apart
    int half = K / 2;
    return {unsigned(rows * ((k % half) / 16) + i),
            unsigned(16 * (k / half) + k % 16)};
  }
  return {unsigned(rows * (k / len) + i), unsigned(k % len)};
}

void mfmaImpl(Wave &W, const Inst &I) {
  const int64_t *aux = W.K->aux.data() + I.x;
  const int M = (int)aux[0], N = (int)aux[1], K = (int)aux[2];
  const FK fa = (FK)aux[3], fb = (FK)aux[4];
  const int lenA = (int)aux[5], lenB = (int)aux[6];
  // M * K and K * N are at most 2048 (16x16x128, 32x32x64).
  double A[2048], B[2048];
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      MfmaOperandLoc l = mfmaOperandLoc(M, K, lenA, i, k);
      A[i * K + k] = decodeToDouble(W.slot(I.a + l.el)[l.lane], fa);
    }
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      MfmaOperandLoc l = mfmaOperandLoc(N, K, lenB, j, k);
      B[k * N + j] = decodeToDouble(W.slot(I.b + l.el)[l.lane], fb);
    }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      unsigned lane, el;
      if (M == 16) {
        lane = 16 * (i / 4) + j;
        el = i % 4;
      } else {
        lane = 32 * ((i / 4) % 2) + j;
        el = 4 * (i / 8) + i % 4;
      }
      double acc = bitsToF32(W.slot(I.c + el)[lane]);
      for (int k = 0; k < K; ++k)
        acc += A[i * K + k] * B[k * N + j];
      W.slot(I.d + el)[lane] = f32ToBits((float)acc);
    }
}

template <FK F> void packedTruncImpl(Wave &W, const Inst &I) {
  // d: 4 fp8 slots. c: existing (or ~0u), word i0, a/b sources (b may be ~0u).
  for (unsigned e = 0; e < 4; ++e) {
    if (I.c != ~0u)
      std::memcpy(W.slot(I.d + e), W.slot(I.c + e), sizeof(uint64_t) * kLanes);
    else
      std::memset(W.slot(I.d + e), 0, sizeof(uint64_t) * kLanes);
  }
  uint64_t *lo = W.slot(I.d + 2 * (uint32_t)I.i0);
  uint64_t *hi = W.slot(I.d + 2 * (uint32_t)I.i0 + 1);
  const uint64_t *a = W.slot(I.a);
  for (unsigned l = 0; l < kLanes; ++l)
    lo[l] = Fmt<F>::encSat((double)bitsToF32(a[l]));
  if (I.b != ~0u) {
    const uint64_t *b = W.slot(I.b);
    for (unsigned l = 0; l < kLanes; ++l)
      hi[l] = Fmt<F>::encSat((double)bitsToF32(b[l]));
  }
}
template <FK F> void extPackedImpl(Wave &W, const Inst &I) {
  for (uint32_t r = 0; r < I.n; ++r) {
    const uint64_t *a = W.slot(I.a + (uint32_t)I.i0 + r);
    uint64_t *d = W.slot(I.d + r);
    for (unsigned l = 0; l < kLanes; ++l)
      d[l] = f32ToBits(Fmt<F>::dec(a[l]));
  }
}

} // namespace

// ---- factory
// ------------------------------------------------------------------
double decodeToDouble(uint64_t bits, FK f) {
  switch (f) {
  case FK::F32:
    return bitsToF32(bits);
  case FK::F64:
    return bitsToF64(bits);
  case FK::BF16:
    return bitsToF32((bits & 0xffff) << 16);
  case FK::E4M3FN:
    return dec8<FK::E4M3FN>(bits);
  case FK::E4M3FNUZ:
    return dec8<FK::E4M3FNUZ>(bits);
  default:
    return decodeMini(bits, miniFormat(f));
  }
}
uint64_t encodeFromDouble(double v, FK f, bool saturate) {
  switch (f) {
  case FK::F32:
    return f32ToBits((float)v);
  case FK::F64:
    return f64ToBits(v);
  default:
    return encodeMini(v, miniFormat(f), saturate);
  }
}

Handler intBinary(Op op) {
  switch (op) {
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return intBin<Op::X>;
    C(AddI)
    C(SubI)
    C(MulI)
    C(AndI)
    C(OrI)
    C(XOrI)
    C(ShLI)
    C(ShRSI)
    C(ShRUI) C(MaxSI) C(MaxUI) C(MinSI) C(MinUI) C(MulHiSI) C(MulHiUI)
#undef C
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return intDiv<Op::X>;
        C(DivSI) C(DivUI) C(RemSI) C(RemUI) C(CeilDivSI) C(CeilDivUI)
            C(FloorDivSI)
#undef C
                default : return nullptr;
  }
}
template <FK F> Handler floatBinaryT(Op op) {
  switch (op) {
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return fltBin<Op::X, F>;
    C(AddF)
    C(SubF)
    C(MulF)
    C(DivF)
    C(RemF)
    C(MaximumF)
    C(MinimumF)
    C(MaxNumF)
    C(MinNumF) C(CopySign) C(PowF)
#undef C
        default : return nullptr;
  }
}
Handler floatBinary(Op op, FK f) {
#define T(F) floatBinaryT<F>(op)
  DISPATCH_FK(f, T)
#undef T
}
template <FK F> Handler floatUnaryT(Op op) {
  switch (op) {
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return fltUnary<Op::X, F>;
    C(NegF)
    C(AbsF)
    C(Exp)
    C(Exp2)
    C(Log)
    C(Log2)
    C(Sqrt)
    C(Rsqrt)
    C(Tanh) C(Ceil) C(Floor) C(Round) C(RoundEven) C(Trunc) C(Sin) C(Cos) C(Erf)
        C(Log1p) C(Expm1)
#undef C
            default : return nullptr;
  }
}
Handler floatUnary(Op op, FK f){
#define T(F) floatUnaryT<F>(op)
    DISPATCH_FK(f, T)
#undef T
} Handler intUnary(Op op) {
  switch (op) {
  case Op::AbsI:
    return intUn<Op::AbsI>;
  case Op::CtPop:
    return intUn<Op::CtPop>;
  case Op::CtLz:
    return intUn<Op::CtLz>;
  case Op::CtTz:
    return intUn<Op::CtTz>;
  default:
    return nullptr;
  }
}
Handler floatFma(FK f) {
#ifdef TESSEL_EMU_X86_FMA
  if (f == FK::F32 && __builtin_cpu_supports("fma"))
    return fltFmaF32Fast;
#endif
#define T(F) fltFma<F>
  DISPATCH_FK(f, T)
#undef T
}
Handler selectH() { return selectImpl; }
Handler cmpI() { return cmpIImpl; }
Handler cmpF(FK f){
#define T(F) cmpFImpl<F>
    DISPATCH_FK(f, T)
#undef T
} Handler extSI() {
  return extSIImpl;
}
Handler extUI() { return extUIImpl; }
Handler truncI() { return truncIImpl; }
Handler convFF(FK from, FK to){
#define T(F) convFrom<F>(to)
    DISPATCH_FK(from, T)
#undef T
} Handler fpToSI(FK f){
#define T(F) fpToIImpl<F, true>
    DISPATCH_FK(f, T)
#undef T
} Handler fpToUI(FK f){
#define T(F) fpToIImpl<F, false>
    DISPATCH_FK(f, T)
#undef T
} Handler siToFP(FK f){
#define T(F) iToFPImpl<F, true>
    DISPATCH_FK(f, T)
#undef T
} Handler uiToFP(FK f){
#define T(F) iToFPImpl<F, false>
    DISPATCH_FK(f, T)
#undef T
} Handler copyH() {
  return copyImpl;
}
Handler maskedCopyH() { return maskedCopyImpl; }
Handler gatherH() { return gatherImpl; }
Handler broadcastH() { return broadcastImpl; }
Handler bitcastVecH() { return bitcastVecImpl; }
Handler extractDynH() { return extractDynImpl; }
Handler insertDynH() { return insertDynImpl; }
template <FK F> Handler reduceFT(Op op) {
  switch (op) {
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return reduceF<Op::X, F>;
    C(AddF)
    C(MulF)
    C(MaximumF)
    C(MinimumF)
    C(MaxNumF)
    C(MinNumF)
#undef C
  default:
    return nullptr;
  }
}
Handler reduceH(Op op, FK f, bool isFloat) {
  if (isFloat) {
#define T(F) reduceFT<F>(op)
    DISPATCH_FK(f, T)
#undef T
  }
  switch (op) {
#define C(X)                                                                   \
  case Op::X:                                                                  \
    return reduceI<Op::X>;
    C(AddI)
    C(MulI)
    C(AndI)
    C(OrI)
    C(XOrI)
    C(MaxSI)
    C(MaxUI)
    C(MinSI)
    C(MinUI)
#undef C
        default : return nullptr;
  }
}
Handler specialH() { return specialImpl; }
Handler ifBeginH() { return ifBeginImpl; }
Handler ifElseH() { return ifElseImpl; }
Handler ifEndH() { return ifEndImpl; }
Handler loopPushH() { return loopPushImpl; }
Handler forHeadH() { return forHeadImpl; }
Handler forStepH() { return forStepImpl; }
Handler whileCondH() { return whileCondImpl; }
Handler jumpBackH() { return jumpBackImpl; }
Handler loopPopH() { return loopPopImpl; }
Handler barrierH() { return barrierImpl; }
Handler returnH() { return returnImpl; }
Handler nopH() { return nopImpl; }
Handler loadH() { return loadImpl; }
Handler storeH() { return storeImpl; }
Handler atomicRmwH() { return atomicRmwImpl; }
Handler alignedPointerH() { return alignedPointerImpl; }
Handler pointerLoadH() { return pointerLoadImpl; }
Handler pointerStoreH() { return pointerStoreImpl; }
Handler pointerAtomicH() { return pointerAtomicImpl; }
Handler sleepH() { return sleepImpl; }
Handler gAtomicBeginH() { return gAtomicBeginImpl; }
Handler gAtomicEndH() { return gAtomicEndImpl; }
Handler dimH() { return dimImpl; }
Handler viewH() { return viewImpl; }
Handler aliasMRefH() { return aliasMRefImpl; }
Handler reinterpretH() { return reinterpretImpl; }
Handler fatBufferH() { return fatBufferImpl; }
Handler bufLoadH() { return bufLoadImpl; }
Handler bufStoreH() { return bufStoreImpl; }
Handler bufAtomicH() { return bufAtomicImpl; }
Handler dppH() { return dppImpl; }
Handler swizzleBitsH() { return swizzleBitsImpl; }
Handler dsSwizzleH() { return dsSwizzleImpl; }
Handler dsBpermuteH() { return dsBpermuteImpl; }
Handler readlaneH() { return readlaneImpl; }
Handler readFirstLaneH() { return readFirstLaneImpl; }
Handler ballotH() { return ballotImpl; }
Handler mbcntH(bool hi) { return hi ? mbcntImpl<true> : mbcntImpl<false>; }
Handler permlaneSwapH() { return permlaneSwapImpl; }
Handler gpuShuffleH() { return gpuShuffleImpl; }
Handler mfmaH() { return mfmaImpl; }
Handler nvvmShflH() { return nvvmShflImpl; }
Handler nvvmVoteH() { return nvvmVoteImpl; }
Handler nvvmMatchAnyH() { return nvvmMatchAnyImpl; }
Handler packedTruncH(FK f){
#define T(F) packedTruncImpl<F>
    DISPATCH_FK(f, T)
#undef T
} Handler extPackedH(FK f) {
#define T(F) extPackedImpl<F>
  DISPATCH_FK(f, T)
#undef T
}

// ---- scheduler
// ------------------------------------------------------------------
namespace {

void runWave(Wave &W) {
  const Inst *code = W.code;
  while (W.status == Status::Running) {
    const Inst &I = code[W.pc++];
    W.laneOps += (uint64_t)I.n * __builtin_popcountll(W.exec);
    I.fn(W, I);
  }
}

} // namespace

std::string runKernel(const Kernel &K, const LaunchConfig &cfg,
                      void *const *params, size_t numParams,
                      uint64_t *laneOps) {
  auto fmt = [](const char *m) { return std::string(m); };
  for (int i = 0; i < 3; ++i)
    if (cfg.grid[i] == 0 || cfg.block[i] == 0)
      return fmt("bad launch shape: grid and block dimensions must be >= 1");
  uint64_t threads = (uint64_t)cfg.block[0] * cfg.block[1] * cfg.block[2];
  if (threads > 1024)
    return "bad launch shape: " + std::to_string(threads) +
           " threads per workgroup (at most 1024)";
  if (K.hasKnownBlock)
    for (int i = 0; i < 3; ++i)
      if (cfg.block[i] != K.knownBlock[i])
        return "bad launch shape: kernel '" + K.name +
               "' has known_block_size " + std::to_string(K.knownBlock[0]) +
               "x" + std::to_string(K.knownBlock[1]) + "x" +
               std::to_string(K.knownBlock[2]) + " but was launched with " +
               std::to_string(cfg.block[0]) + "x" +
               std::to_string(cfg.block[1]) + "x" +
               std::to_string(cfg.block[2]);
  if (numParams != K.numFlatParams)
    return "kernel '" + K.name + "' takes " + std::to_string(K.numFlatParams) +
           " flattened parameters, got " + std::to_string(numParams);
  if (!params && numParams)
    return fmt("null parameter array");
  for (size_t i = 0; i < numParams; ++i)
    if (!params[i])
      return "parameter " + std::to_string(i) + " is a null pointer";

  // Decode parameters once: scalars and global memref descriptors.
  std::vector<MRef> argRefs(K.numMRefs);
  std::vector<std::pair<uint32_t, uint64_t>> argSlots;
  size_t p = 0;
  for (const ParamSpec &ps : K.params) {
    if (!ps.isMemRef) {
      uint64_t v = 0;
      std::memcpy(&v, params[p++], ps.bytes);
      argSlots.push_back({ps.target, v});
      continue;
    }
    MRef M;
    uint8_t *aligned;
    std::memcpy(&aligned, params[p + 1], sizeof(void *));
    int64_t offset;
    std::memcpy(&offset, params[p + 2], 8);
    M.rank = ps.rank;
    M.elemBytes = ps.elemBytes;
    M.numElems = 1;
    for (uint32_t r = 0; r < ps.rank; ++r) {
      std::memcpy(&M.sizes[r], params[p + 3 + r], 8);
      std::memcpy(&M.strides[r], params[p + 3 + ps.rank + r], 8);
      if (M.sizes[r] < 0)
        return "memref argument #" + std::to_string(ps.argNo) +
               " has a negative size";
      M.numElems *= M.sizes[r];
    }
    if (!aligned && M.numElems > 0)
      return "memref argument #" + std::to_string(ps.argNo) +
             " has a null data pointer";
    // Accesses are bounded by the sizes, so the strides must describe a
    // contiguous row-major buffer (Tessel always passes stride 1).
    int64_t expect = 1;
    for (int r = (int)ps.rank - 1; r >= 0; --r) {
      if (M.sizes[r] > 1 && M.strides[r] != expect)
        return "memref argument #" + std::to_string(ps.argNo) + " has stride " +
               std::to_string(M.strides[r]) + " in dimension " +
               std::to_string(r) + ", expected " + std::to_string(expect) +
               " (contiguous buffer)";
      M.strides[r] = expect;
      expect *= std::max<int64_t>(M.sizes[r], 1);
    }
    if (offset < 0)
      return "memref argument #" + std::to_string(ps.argNo) +
             " has a negative offset";
    M.base = aligned + offset * (int64_t)ps.elemBytes;
    M.space = Space::Global;
    M.what = ps.argNo;
    M.valid = true;
    argRefs[ps.target] = M;
    p += 3 + 2 * ps.rank;
  }

  LaunchState L;
  L.K = &K;
  L.cfg = cfg;
  L.start = Clock::now();
  L.scheduleCheck();
  const unsigned ws = K.waveSize;
  const unsigned numWaves = (unsigned)((threads + ws - 1) / ws);
  const uint64_t numWG = (uint64_t)cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  const uint64_t resident =
      std::max<uint64_t>(1, std::min<uint64_t>(cfg.maxResident, numWG));
  // A grid barrier deadlocks unless every workgroup is resident; say so
  // instead of spinning until the watchdog fires.
  if (K.gridBarrier && numWG > cfg.maxResident)
    return "kernel '" + K.name + "' synchronizes its whole grid " +
           "(tessel.grid_barrier) but the launch has " + std::to_string(numWG) +
           " workgroups, more than the " + std::to_string(cfg.maxResident) +
           " the emulated device holds at once " +
           "(LaunchOptions::maxResidentWorkgroups); size the grid by the " +
           "device's occupancy";
  std::vector<std::unique_ptr<Workgroup>> slots(resident);
  uint64_t &nextWG = L.nextWG, total = 0;
  L.slots = &slots;
  L.numWG = numWG;

  auto startWG = [&](Workgroup &G, uint64_t linear) {
    G.id[0] = (uint32_t)(linear % cfg.grid[0]);
    G.id[1] = (uint32_t)((linear / cfg.grid[0]) % cfg.grid[1]);
    G.id[2] = (uint32_t)(linear / ((uint64_t)cfg.grid[0] * cfg.grid[1]));
    G.active = true;
    // LDS contents carry over between workgroups of a slot, as on hardware;
    // the written-bits are reset so stale data cannot be read.
    G.lds.resize(K.ldsBytes);
    G.ldsInit.assign(K.ldsBytes, 0);
    if (G.waves.size() != numWaves) {
      G.waves.resize(numWaves);
      G.regs.resize(numWaves);
      G.mrefs.resize(numWaves);
    }
    for (unsigned w = 0; w < numWaves; ++w) {
      Wave &W = G.waves[w];
      // Registers are reused across the workgroups of a slot: every SSA
      // value is written before it is read, so only constants need setting,
      // and only once.
      bool fresh = G.regs[w].size() != (size_t)K.numSlots * kLanes;
      if (fresh)
        G.regs[w].assign((size_t)K.numSlots * kLanes, 0);
      G.mrefs[w] = argRefs;
      W.R = G.regs[w].data();
      W.M = G.mrefs[w].data();
      W.K = &K;
      W.code = K.code.data();
      W.wg = &G;
      W.L = &L;
      W.waveIdx = w;
      W.pc = 0;
      W.status = Status::Running;
      W.stack.clear();
      uint64_t lanes = std::min<uint64_t>(ws, threads - (uint64_t)w * ws);
      W.full = lanes >= 64 ? ~0ull : ((1ull << lanes) - 1);
      W.exec = W.full;
      if (fresh)
        for (const ConstInit &c : K.consts)
          std::fill_n(W.slot(c.slot), kLanes, c.bits);
      for (auto &[s, v] : argSlots)
        std::fill_n(W.slot(s), kLanes, v);
      for (const LdsAlloc &a : K.lds) {
        MRef M;
        M.base = G.lds.data() + a.offset;
        M.init = G.ldsInit.data() + a.offset;
        M.rank = a.rank;
        M.elemBytes = a.elemBytes;
        M.numElems = 1;
        for (uint32_t r = 0; r < a.rank; ++r) {
          M.sizes[r] = a.sizes[r];
          M.numElems *= a.sizes[r];
        }
        int64_t st = 1;
        for (int r = (int)a.rank - 1; r >= 0; --r) {
          M.strides[r] = st;
          st *= M.sizes[r];
        }
        M.space = Space::LDS;
        M.what = a.what;
        M.valid = true;
        W.M[a.mref] = M;
      }
    }
  };

  for (uint64_t s = 0; s < resident; ++s) {
    slots[s] = std::make_unique<Workgroup>();
    startWG(*slots[s], nextWG++);
  }
  uint64_t activeCount = resident;
  while (activeCount) {
    for (uint64_t s = 0; s < resident; ++s) {
      Workgroup &G = *slots[s];
      if (!G.active)
        continue;
      bool anyRan = true;
      while (anyRan) {
        anyRan = false;
        for (Wave &W : G.waves) {
          if (W.status == Status::Yield)
            W.status = Status::Running;
          if (W.status != Status::Running)
            continue;
          W.budget = cfg.yieldBudget;
          runWave(W);
          total += W.laneOps;
          W.laneOps = 0;
          if (W.status == Status::Error) {
            if (laneOps)
              *laneOps = total;
            return L.error;
          }
        }
        // Barrier resolution.
        unsigned atBar = 0, done = 0, yielded = 0;
        for (Wave &W : G.waves) {
          atBar += W.status == Status::Barrier;
          done += W.status == Status::Done;
          yielded += W.status == Status::Yield;
        }
        if (atBar && atBar + done == G.waves.size()) {
          if (done) {
            const Wave &B = *std::find_if(
                G.waves.begin(), G.waves.end(),
                [](const Wave &W) { return W.status == Status::Barrier; });
            if (laneOps)
              *laneOps = total;
            return K.locs[K.code[B.barrierPc].loc] +
                   ": barrier deadlock: wave " + std::to_string(B.waveIdx) +
                   " waits at this barrier but " + std::to_string(done) +
                   " wave(s) of workgroup (" + std::to_string(G.id[0]) + "," +
                   std::to_string(G.id[1]) + "," + std::to_string(G.id[2]) +
                   ") already returned";
          }
          uint32_t pc0 = G.waves[0].barrierPc;
          for (Wave &W : G.waves)
            if (W.barrierPc != pc0) {
              if (laneOps)
                *laneOps = total;
              return "barrier divergence in workgroup (" +
                     std::to_string(G.id[0]) + "," + std::to_string(G.id[1]) +
                     "," + std::to_string(G.id[2]) + "): wave 0 waits at " +
                     K.locs[K.code[pc0].loc] + " but wave " +
                     std::to_string(W.waveIdx) + " waits at " +
                     K.locs[K.code[W.barrierPc].loc];
            }
          for (Wave &W : G.waves)
            W.status = Status::Running;
          anyRan = true;
          continue;
        }
        // Waves that yielded (spinning loops) give the other workgroups a
        // turn; waves at a barrier wait for the yielded ones next round.
        if (yielded)
          break;
      }
      bool allDone =
          std::all_of(G.waves.begin(), G.waves.end(),
                      [](const Wave &W) { return W.status == Status::Done; });
      if (allDone) {
        // A grid too large to finish in time is stopped too, loops or not.
        if (nextWG < numWG && L.pastDeadline()) {
          if (laneOps)
            *laneOps = total;
          return "kernel '" + K.name +
                 "': " + L.watchdogMessage(" between workgroups");
        }
        if (nextWG < numWG)
          startWG(G, nextWG++);
        else {
          G.active = false;
          --activeCount;
        }
      }
    }
  }
  if (laneOps)
    *laneOps = total;
  return {};
}

} // namespace tessel::emu::detail
