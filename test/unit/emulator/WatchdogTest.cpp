//===- WatchdogTest.cpp - the wall-clock limit of a launch ----------------===//
#include "TestUtil.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Every workgroup spins on a flag nobody sets. The loop is at spin.mlir:4:5.
const char *kSpinBody = R"(
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i32
    scf.while : () -> () {
      %r = memref.atomic_rmw addi %z, %F[%c0] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32 loc("spin.mlir":5:12)
      %w = arith.cmpi eq, %r, %z : i32
      scf.condition(%w)
    } do {
      scf.yield
    } loc("spin.mlir":4:5)
  )";

// Sets or clears TESSEL_EMU_TIMEOUT_S for one test.
struct ScopedTimeoutEnv {
  explicit ScopedTimeoutEnv(const char *v) {
    setenv("TESSEL_EMU_TIMEOUT_S", v, 1);
  }
  ~ScopedTimeoutEnv() { unsetenv("TESSEL_EMU_TIMEOUT_S"); }
};

std::unique_ptr<Module> spinModule() {
  return load(
      kernel("%F: memref<?xi32, #gpu.address_space<global>>", kSpinBody));
}

// A spin-wait that never ends is stopped about when the limit passes, with
// the loop's location, the resident workgroups and the ones never started.
// The iteration limit is off, so only the clock can stop it.
TEST(EmulatorWatchdog, StopsAnEndlessSpinWait) {
  auto m = spinModule();
  ASSERT_TRUE(m);
  std::vector<int32_t> F(1, 0);
  LaunchOptions o;
  o.timeoutSeconds = 1;
  o.maxLoopIterations = 0;
  o.maxResidentWorkgroups = 2;
  Clock::time_point t0 = Clock::now();
  std::string e = errOf(m->launchArgs("k", {4, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(F.data(), 1)}, o));
  double s = secondsSince(t0);
  EXPECT_GE(s, 1.0);
  EXPECT_LT(s, 5.0) << "the watchdog reacted late";
  EXPECT_EQ(e.rfind("spin.mlir:4:5: 'scf.while': ", 0), 0u) << e;
  EXPECT_NE(e.find("watchdog stopped the launch"), std::string::npos) << e;
  EXPECT_NE(e.find("limit 1 s"), std::string::npos) << e;
  EXPECT_NE(e.find("TESSEL_EMU_TIMEOUT_S"), std::string::npos) << e;
  // Both resident workgroups, each at the atomic of its spin loop.
  EXPECT_NE(e.find("Workgroups still running: (0,0,0) at spin.mlir:5:12: "
                   "'memref.atomic_rmw'; (1,0,0) at spin.mlir:5:12"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("2 of 4 workgroups not started"), std::string::npos) << e;
}

// Without the option, TESSEL_EMU_TIMEOUT_S sets the limit (this is how the
// runtime's emu device, which launches with default options, gets it).
TEST(EmulatorWatchdog, TakesTheLimitFromTheEnvironment) {
  ScopedTimeoutEnv env("0.5");
  auto m = spinModule();
  ASSERT_TRUE(m);
  std::vector<int32_t> F(1, 0);
  LaunchOptions o;
  o.maxLoopIterations = 0;
  Clock::time_point t0 = Clock::now();
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(F.data(), 1)}, o));
  EXPECT_LT(secondsSince(t0), 4.5);
  EXPECT_NE(e.find("limit 0.5 s"), std::string::npos) << e;
  EXPECT_NE(e.find("spin.mlir:4:5"), std::string::npos) << e;
}

TEST(EmulatorWatchdog, RejectsABadEnvironmentValue) {
  auto m = spinModule();
  ASSERT_TRUE(m);
  std::vector<int32_t> F(1, 1); // the loop would end at once
  for (const char *bad : {"abc", "-1", "2s", "inf", "nan"}) {
    ScopedTimeoutEnv env(bad);
    std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                        {KernelArg::buffer(F.data(), 1)}));
    EXPECT_EQ(e, std::string("TESSEL_EMU_TIMEOUT_S: expected a number of "
                             "seconds >= 0 (0 = no limit), got '") +
                     bad + "'");
    // The launch option takes precedence over the environment.
    LaunchOptions o;
    o.timeoutSeconds = 10;
    EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                            {KernelArg::buffer(F.data(), 1)}, o));
  }
}

// A grid too large to finish in time is stopped between workgroups even
// without loops.
TEST(EmulatorWatchdog, StopsAnOversizedGrid) {
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", ""));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(1);
  LaunchOptions o;
  o.timeoutSeconds = 0.5;
  Clock::time_point t0 = Clock::now();
  std::string e = errOf(m->launchArgs("k", {1u << 30, 64, 1}, {64, 1, 1},
                                      {KernelArg::buffer(O.data(), 1)}, o));
  EXPECT_LT(secondsSince(t0), 4.5);
  EXPECT_EQ(e.rfind("kernel 'k': the watchdog stopped the launch", 0), 0u) << e;
  EXPECT_NE(e.find("workgroups not started"), std::string::npos) << e;
}

// A kernel that runs longer than the limits of the tests above, with
// millions of back-edges (many reads of the clock), runs to its end under the
// default limit and computes the right result.
TEST(EmulatorWatchdog, LetsALongKernelFinish) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
      %x = arith.xori %i, %ti : i32
      %a = arith.addi %acc, %x : i32
      scf.yield %a : i32
    }
    memref.store %s, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(
      kernel("%O: memref<?xi32, #gpu.address_space<global>>, %n: i32", body));
  ASSERT_TRUE(m);
  const int32_t n = 1 << 19;
  const unsigned wgs = 8;
  std::vector<int32_t> O(64);
  LaunchOptions o;
  o.maxResidentWorkgroups = 1; // the workgroups overwrite O one by one
  Clock::time_point t0 = Clock::now();
  EXPECT_OK(m->launchArgs("k", {wgs, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64), KernelArg::i32(n)},
                          o));
  // About 1 s on the development machine: longer than the limits above.
  std::printf("long kernel: %.2f s\n", secondsSince(t0));
  for (int t = 0; t < 64; ++t) {
    uint32_t want = 0;
    for (int32_t i = 0; i < n; ++i)
      want += (uint32_t)(i ^ t);
    EXPECT_EQ((uint32_t)O[t], want) << "lane " << t;
  }
}

} // namespace
