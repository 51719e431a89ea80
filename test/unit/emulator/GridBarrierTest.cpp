//===- GridBarrierTest.cpp - tile.grid_barrier on co-resident grids -------===//
//
// Lowers tile kernels whose programs exchange data across the grid through
// tile.grid_barrier and runs them on the emulator for gfx942, gfx950 and
// sm_90. Every program writes its own slice, crosses the barrier and reads
// its neighbour's: without the barrier the emulator finishes a workgroup
// before the next one starts, so the reads would see the initial fill.
// The expected values follow from the kernels' definitions; the barrier's
// word must have its low bits back at 0 and its top bit flipped once per
// barrier crossed, and the words around it must be untouched.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include <cstdint>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

#define ASSERT_LAUNCHES(expr)                                                  \
  do {                                                                         \
    std::string err_ = errOf(expr);                                            \
    ASSERT_TRUE(err_.empty()) << err_;                                         \
  } while (0)

constexpr int kElems = 128;   // elements per program
constexpr int64_t kWsOff = 2; // the barrier's word is ws[2]

/// The barrier word after `barriers` barriers from `from`.
int32_t afterBarriers(int32_t from, int barriers) {
  return barriers % 2 ? int32_t(uint32_t(from) ^ 0x80000000u) : from;
}

// Program p (linear over a 2-D grid) writes data[p*128 + r] = p*1000 + r,
// crosses the barrier, and copies its right neighbour's slice (program
// (p + 1) % n) to out. With `twice`, it then waits again, overwrites its
// slice with what it read plus 1, waits a third time and copies the
// neighbour's slice again, so out holds program (p + 2) % n's tags plus 1.
std::string exchangeKernel(bool twice) {
  std::string s = R"(
tile.kernel @exchange(%data: !tile.ptr<i32>, %out: !tile.ptr<i32>, %ws: !tile.ptr<i32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %p0 = tile.program_id 0 : i32
  %p1 = tile.program_id 1 : i32
  %n0 = tile.num_programs 0 : i32
  %n1 = tile.num_programs 1 : i32
  %row = arith.muli %p1, %n0 : i32
  %p = arith.addi %p0, %row : i32
  %n = arith.muli %n0, %n1 : i32
  %c128 = arith.constant 128 : i32
  %c1000 = arith.constant 1000 : i32
  %one = arith.constant 1 : i32
  %woff = arith.constant 2 : i64
  %r = tile.range 0 to 128 : tensor<128xi32>
  %base = arith.muli %p, %c128 : i32
  %bs = tile.splat %base : i32 -> tensor<128xi32>
  %i = arith.addi %bs, %r : tensor<128xi32>
  %tag = arith.muli %p, %c1000 : i32
  %tags = tile.splat %tag : i32 -> tensor<128xi32>
  %v = arith.addi %tags, %r : tensor<128xi32>
  tile.store %v, %data[%i] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.grid_barrier %ws[%woff] : !tile.ptr<i32>, i64
  %q1 = arith.addi %p, %one : i32
  %q = arith.remui %q1, %n : i32
  %qb = arith.muli %q, %c128 : i32
  %qs = tile.splat %qb : i32 -> tensor<128xi32>
  %j = arith.addi %qs, %r : tensor<128xi32>
  %w = tile.load %data[%j] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
)";
  if (twice)
    s += R"(
  tile.grid_barrier %ws[%woff] : !tile.ptr<i32>, i64
  %ones = tile.splat %one : i32 -> tensor<128xi32>
  %w1 = arith.addi %w, %ones : tensor<128xi32>
  tile.store %w1, %data[%i] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.grid_barrier %ws[%woff] : !tile.ptr<i32>, i64
  %w2 = tile.load %data[%j] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  tile.store %w2, %out[%i] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
)";
  else
    s += R"(
  tile.store %w, %out[%i] : tensor<128xi32>, !tile.ptr<i32>, tensor<128xi32>
  tile.return
}
)";
  return s;
}

const char *const kTargets[] = {"gfx942", "gfx950", "sm_90"};

struct Buffers {
  std::vector<int32_t> data, out, ws;
  explicit Buffers(int programs)
      : data(programs * kElems, -1), out(programs * kElems, -1),
        ws(kWsOff + 2, 0) {
    ws[0] = ws[1] = ws[kWsOff + 1] = 77; // guards around the barrier's word
  }
  std::vector<KernelArg> args() {
    return {KernelArg::buffer(data.data(), (int64_t)data.size()),
            KernelArg::buffer(out.data(), (int64_t)out.size()),
            KernelArg::buffer(ws.data(), (int64_t)ws.size())};
  }
};

// out of program p holds program (p + hops) % n's tags plus `plus`.
void expectNeighbours(const Buffers &b, int programs, int hops, int plus) {
  for (int p = 0; p < programs; ++p)
    for (int r = 0; r < kElems; ++r) {
      int q = (p + hops) % programs;
      ASSERT_EQ(b.out[p * kElems + r], q * 1000 + r + plus)
          << "program " << p << ", element " << r;
    }
}

TEST(GridBarrier, ProgramsSeeEachOthersWrites) {
  for (const char *t : kTargets) {
    SCOPED_TRACE(t);
    LoweredKernel k = lowerOneKernel(exchangeKernel(false), t);
    ASSERT_TRUE(k.emu);
    Buffers b(6);
    ASSERT_LAUNCHES(k.emu->launchArgs(k.name, {3, 2, 1}, k.block, b.args()));
    expectNeighbours(b, 6, 1, 0);
    EXPECT_EQ(b.ws[kWsOff], afterBarriers(0, 1)) << "one barrier, one flip";
    EXPECT_EQ(b.ws[0], 77);
    EXPECT_EQ(b.ws[1], 77);
    EXPECT_EQ(b.ws[kWsOff + 1], 77);
  }
}

// The same exchange without the barrier reads slices not written yet: the
// test above checks something the barrier provides.
TEST(GridBarrier, WithoutTheBarrierTheExchangeFails) {
  std::string src = exchangeKernel(false);
  std::string barrier =
      "  tile.grid_barrier %ws[%woff] : !tile.ptr<i32>, i64\n";
  size_t at = src.find(barrier);
  ASSERT_NE(at, std::string::npos);
  src.erase(at, barrier.size());
  LoweredKernel k = lowerOneKernel(src, "gfx942");
  ASSERT_TRUE(k.emu);
  Buffers b(6);
  ASSERT_LAUNCHES(k.emu->launchArgs(k.name, {6, 1, 1}, k.block, b.args()));
  int stale = 0;
  for (int v : b.out)
    stale += v == -1;
  EXPECT_GT(stale, 0);
}

TEST(GridBarrier, BarriersInARow) {
  for (const char *t : kTargets) {
    SCOPED_TRACE(t);
    LoweredKernel k = lowerOneKernel(exchangeKernel(true), t);
    ASSERT_TRUE(k.emu);
    Buffers b(5);
    ASSERT_LAUNCHES(k.emu->launchArgs(k.name, {5, 1, 1}, k.block, b.args()));
    expectNeighbours(b, 5, 2, 1);
    EXPECT_EQ(b.ws[kWsOff], afterBarriers(0, 3));
    EXPECT_EQ(b.ws[kWsOff + 1], 77);
  }
}

// The workspace needs no reset: launch after launch (as graph replays do)
// start from the word the previous launch left, and each flips its top bit
// three times.
TEST(GridBarrier, RepeatedLaunchesReuseTheWorkspace) {
  for (const char *t : kTargets) {
    SCOPED_TRACE(t);
    LoweredKernel k = lowerOneKernel(exchangeKernel(true), t);
    ASSERT_TRUE(k.emu);
    Buffers b(4);
    b.ws[kWsOff] = INT32_MIN; // an odd number of barriers before
    for (int launch = 1; launch <= 3; ++launch) {
      std::fill(b.data.begin(), b.data.end(), -1);
      std::fill(b.out.begin(), b.out.end(), -1);
      ASSERT_LAUNCHES(k.emu->launchArgs(k.name, {4, 1, 1}, k.block, b.args()));
      expectNeighbours(b, 4, 2, 1);
      EXPECT_EQ(b.ws[kWsOff], afterBarriers(INT32_MIN, 3 * launch));
    }
  }
}

// A single program passes its barriers alone.
TEST(GridBarrier, OneProgram) {
  LoweredKernel k = lowerOneKernel(exchangeKernel(true), "gfx942");
  ASSERT_TRUE(k.emu);
  Buffers b(1);
  ASSERT_LAUNCHES(k.emu->launchArgs(k.name, {1, 1, 1}, k.block, b.args()));
  expectNeighbours(b, 1, 2, 1);
  EXPECT_EQ(b.ws[kWsOff], afterBarriers(0, 3));
}

// A grid larger than the emulated device holds at once would spin forever;
// the launch is refused up front, naming the sizes.
TEST(GridBarrier, GridLargerThanResidentCapacityIsRefused) {
  LoweredKernel k = lowerOneKernel(exchangeKernel(false), "gfx942");
  ASSERT_TRUE(k.emu);
  Buffers b(8);
  LaunchOptions o;
  o.maxResidentWorkgroups = 4;
  std::string e =
      errOf(k.emu->launchArgs(k.name, {8, 1, 1}, k.block, b.args(), o));
  EXPECT_NE(e.find("synchronizes its whole grid"), std::string::npos) << e;
  EXPECT_NE(e.find("8 workgroups, more than the 4"), std::string::npos) << e;
  EXPECT_EQ(b.ws[kWsOff], 0) << "nothing ran";
  // The default capacity, the emulator's declared one.
  const int cap = TESSEL_EMU_MAX_RESIDENT_WORKGROUPS;
  Buffers big(cap + 1);
  e = errOf(k.emu->launchArgs(k.name, {cap + 1u, 1, 1}, k.block, big.args()));
  EXPECT_NE(e.find(std::to_string(cap + 1) + " workgroups, more than the " +
                   std::to_string(cap)),
            std::string::npos)
      << e;
  Buffers fits(cap);
  ASSERT_LAUNCHES(
      k.emu->launchArgs(k.name, {(uint32_t)cap, 1, 1}, k.block, fits.args()));
  expectNeighbours(fits, cap, 1, 0);
}

// A workspace too small for the barrier's word is an out-of-bounds error at
// the barrier, not a write past the buffer.
TEST(GridBarrier, WorkspaceTooSmallIsAnError) {
  LoweredKernel k = lowerOneKernel(exchangeKernel(false), "gfx950");
  ASSERT_TRUE(k.emu);
  Buffers b(2);
  b.ws.resize(kWsOff); // no room for the word
  std::string e =
      errOf(k.emu->launchArgs(k.name, {2, 1, 1}, k.block, b.args()));
  EXPECT_NE(e.find("out-of-bounds access through a pointer"), std::string::npos)
      << e;
  EXPECT_NE(e.find("llvm.atomicrmw"), std::string::npos) << e;
}

} // namespace
