//===- MatchSyncTest.cpp - nvvm.match.sync any on the emulator ------------===//
//
// Every lane of a wave32 (sm_90) kernel votes with a value it loads and
// stores the mask match.sync any returns; the expected mask of lane l is
// computed here from the definition: bit j is set when lane j is in l's
// member mask and loaded the same value. Covers random values with
// repeats, all equal, all distinct, 64-bit values that differ only in
// their high half, a member mask of the lanes of a divergent branch, and
// the masks the hardware cannot run (a lane outside its own mask, a mask
// naming a lane that is not active).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstdint>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

constexpr int kThreads = 64; // two warps
constexpr int32_t kUnwritten = 0x5a5a5a5a;

std::string memref(const std::string &elem) {
  return "memref<?x" + elem + ", #gpu.address_space<global>>";
}

/// out[t] = match.sync any (%mask, in[t]) for the threads where `guard`
/// (IR defining the i1 %g from %ti, or "" for all threads) holds; `mask`
/// is IR defining the i32 %mask.
std::string matchKernel(const std::string &elem, const std::string &mask,
                        const std::string &guard = "") {
  std::string body = "    %t = gpu.thread_id x\n"
                     "    %ti = arith.index_cast %t : index to i32\n" +
                     mask;
  std::string vote = "    %v = memref.load %V[%t] : " + memref(elem) + "\n";
  vote += "    %r = nvvm.match.sync any %mask, %v : " + elem + " -> i32\n";
  vote += "    memref.store %r, %O[%t] : " + memref("i32") + "\n";
  if (guard.empty())
    return body + vote;
  return body + guard + "    scf.if %g {\n" + vote + "    }\n";
}

/// IR defining %mask as the constant `bits`.
std::string constMask(uint32_t bits) {
  return "    %mask = arith.constant " + std::to_string((int32_t)bits) +
         " : i32\n";
}

/// IR defining %g: the thread is even.
const std::string kEvenThreads = "    %c2 = arith.constant 2 : i32\n"
                                 "    %par = arith.remui %ti, %c2 : i32\n"
                                 "    %c0 = arith.constant 0 : i32\n"
                                 "    %g = arith.cmpi eq, %par, %c0 : i32\n";

std::unique_ptr<Module> loadMatch(const std::string &elem,
                                  const std::string &body) {
  return load(kernel("%V: " + memref(elem) + ", %O: " + memref("i32"), body,
                     kThreads, "sm_90"));
}

/// The mask of lane `lane` of its warp: the lanes of `members` whose value
/// equals its own.
template <typename T>
uint32_t expectedMask(const std::vector<T> &v, int thread, uint32_t members) {
  int warp = thread / 32;
  uint32_t m = 0;
  for (int j = 0; j < 32; ++j)
    if (((members >> j) & 1) && v[warp * 32 + j] == v[thread])
      m |= 1u << j;
  return m;
}

template <typename T>
void runAndCheck(const std::string &elem, const std::vector<T> &values,
                 const std::string &body, uint32_t members,
                 bool (*active)(int)) {
  auto m = loadMatch(elem, body);
  ASSERT_TRUE(m);
  std::vector<T> v = values;
  std::vector<int32_t> out(kThreads, kUnwritten);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  for (int t = 0; t < kThreads; ++t) {
    if (!active(t)) {
      EXPECT_EQ(out[t], kUnwritten) << "thread " << t;
      continue;
    }
    EXPECT_EQ((uint32_t)out[t], expectedMask(values, t, members))
        << "thread " << t;
  }
}

bool everyThread(int) { return true; }
bool evenThread(int t) { return t % 2 == 0; }

TEST(MatchSync, RandomValuesWithRepeats) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int32_t> d(-3, 4);
  std::vector<int32_t> v(kThreads);
  for (int32_t &x : v)
    x = d(rng);
  runAndCheck("i32", v, matchKernel("i32", constMask(~0u)), 0xffffffffu,
              everyThread);
}

TEST(MatchSync, AllEqualMatchTheWholeWarp) {
  std::vector<int32_t> v(kThreads, 12345);
  auto m = loadMatch("i32", matchKernel("i32", constMask(~0u)));
  ASSERT_TRUE(m);
  std::vector<int32_t> out(kThreads, kUnwritten);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ((uint32_t)out[t], 0xffffffffu) << "thread " << t;
}

TEST(MatchSync, AllDistinctMatchOnlyThemselves) {
  std::vector<int32_t> v(kThreads);
  for (int t = 0; t < kThreads; ++t)
    v[t] = t * 7919 - 100;
  auto m = loadMatch("i32", matchKernel("i32", constMask(~0u)));
  ASSERT_TRUE(m);
  std::vector<int32_t> out(kThreads, kUnwritten);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ((uint32_t)out[t], 1u << (t % 32)) << "thread " << t;
}

// Pairs of values equal in the low 32 bits and different in the high ones
// must not match: the whole 64-bit value is compared.
TEST(MatchSync, SixtyFourBitValuesCompareBothHalves) {
  std::vector<int64_t> v(kThreads);
  for (int t = 0; t < kThreads; ++t)
    v[t] = (int64_t(t % 3) << 32) | (t % 2);
  runAndCheck("i64", v, matchKernel("i64", constMask(~0u)), 0xffffffffu,
              everyThread);
}

// Only the even lanes run the vote, with the mask of the even lanes: odd
// lanes take no part and write nothing, even if their values are equal.
TEST(MatchSync, InactiveLanesStayOut) {
  std::vector<int32_t> v(kThreads);
  for (int t = 0; t < kThreads; ++t)
    v[t] = (t / 4) % 3;
  runAndCheck("i32", v,
              matchKernel("i32", constMask(0x55555555u), kEvenThreads),
              0x55555555u, evenThread);
}

// Each half of a warp votes among itself (lanes 0-15 with mask 0xffff,
// lanes 16-31 with 0xffff0000): equal values in the other half do not
// match.
TEST(MatchSync, EachLaneVotesWithinItsOwnMask) {
  std::string mask = "    %c16 = arith.constant 16 : i32\n"
                     "    %c31 = arith.constant 31 : i32\n"
                     "    %lane = arith.andi %ti, %c31 : i32\n"
                     "    %low = arith.cmpi ult, %lane, %c16 : i32\n"
                     "    %lowHalf = arith.constant 65535 : i32\n"
                     "    %highHalf = arith.constant -65536 : i32\n"
                     "    %mask = arith.select %low, %lowHalf, %highHalf : "
                     "i32\n";
  std::string body = matchKernel("i32", mask);
  std::vector<int32_t> v(kThreads);
  for (int t = 0; t < kThreads; ++t)
    v[t] = t % 4;
  auto m = loadMatch("i32", body);
  ASSERT_TRUE(m);
  std::vector<int32_t> out(kThreads, kUnwritten);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  for (int t = 0; t < kThreads; ++t) {
    uint32_t half = t % 32 < 16 ? 0xffffu : 0xffff0000u;
    EXPECT_EQ((uint32_t)out[t], expectedMask(v, t, half)) << "thread " << t;
  }
}

TEST(MatchSync, MaskNamingAnInactiveLaneIsAnError) {
  auto m = loadMatch("i32", matchKernel("i32", constMask(~0u), kEvenThreads));
  ASSERT_TRUE(m);
  std::vector<int32_t> v(kThreads, 1), out(kThreads, kUnwritten);
  std::string e =
      errOf(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  EXPECT_NE(e.find("names lane 1, which is not active"), std::string::npos)
      << e;
}

TEST(MatchSync, MaskLeavingOutTheLaneIsAnError) {
  auto m = loadMatch("i32", matchKernel("i32", constMask(1))); // lane 0 only
  ASSERT_TRUE(m);
  std::vector<int32_t> v(kThreads, 1), out(kThreads, kUnwritten);
  std::string e =
      errOf(m->launchArgs("k", {1, 1, 1}, {kThreads, 1, 1},
                          {KernelArg::buffer(v.data(), kThreads),
                           KernelArg::buffer(out.data(), kThreads)}));
  EXPECT_NE(e.find("leaves out the lane that runs it (lane 1,"),
            std::string::npos)
      << e;
}

TEST(MatchSync, MatchAllIsRejectedAtLoadTime) {
  std::string body = R"(
    %t = gpu.thread_id x
    %mask = arith.constant -1 : i32
    %v = memref.load %V[%t] : memref<?xi32, #gpu.address_space<global>>
    %r = nvvm.match.sync all %mask, %v : i32 -> !llvm.struct<(i32, i1)>
  )";
  std::string e =
      loadError(kernel("%V: " + memref("i32") + ", %O: " + memref("i32"), body,
                       kThreads, "sm_90"));
  EXPECT_NE(e.find("'nvvm.match.sync': unsupported result type"),
            std::string::npos)
      << e;
}

} // namespace
