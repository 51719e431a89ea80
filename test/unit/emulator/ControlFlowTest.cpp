//===- ControlFlowTest.cpp - masks, barriers, scheduling ------------------===//
#include "TestUtil.h"

#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

// scf.if with results under a divergent condition: even lanes take `then`.
TEST(EmulatorControlFlow, DivergentIf) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c1 = arith.constant 1 : i32
    %c0 = arith.constant 0 : i32
    %odd = arith.andi %ti, %c1 : i32
    %even = arith.cmpi eq, %odd, %c0 : i32
    %r = scf.if %even -> (i32) {
      %x = arith.muli %ti, %ti : i32
      scf.yield %x : i32
    } else {
      %c100 = arith.constant 100 : i32
      %y = arith.subi %c100, %ti : i32
      scf.if %even {
        memref.store %c100, %O[%t] : memref<?xi32, #gpu.address_space<global>>
      }
      scf.yield %y : i32
    }
    %c64 = arith.constant 64 : index
    %i = arith.addi %t, %c64 : index
    memref.store %r, %O[%i] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(128, -7);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 128)}));
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(O[t], -7) << "the inner store runs under an empty mask";
    EXPECT_EQ(O[64 + t], t % 2 == 0 ? t * t : 100 - t);
  }
}

// scf.for whose trip count differs per lane: lanes that finish early keep
// their final iteration values while the others continue.
TEST(EmulatorControlFlow, DivergentForLoop) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %s:2 = scf.for %i = %c0 to %t step %c1 iter_args(%acc = %z, %cnt = %one) -> (i32, i32) {
      %ii = arith.index_cast %i : index to i32
      %a2 = arith.addi %acc, %ii : i32
      %c2 = arith.muli %cnt, %one : i32
      %c3 = arith.addi %c2, %one : i32
      scf.yield %a2, %c3 : i32, i32
    }
    %r = arith.muli %s#0, %s#1 : i32
    memref.store %r, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(O[t], (t * (t - 1) / 2) * (t + 1)) << t;
}

// Swapping iteration arguments must be a parallel copy.
TEST(EmulatorControlFlow, ForSwapIterArgs) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %a0 = arith.constant 1 : i32
    %b0 = arith.constant 2 : i32
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %a0, %b = %b0) -> (i32, i32) {
      scf.yield %b, %a : i32, i32
    }
    %x = arith.subi %r#0, %r#1 : i32
    memref.store %x, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  EXPECT_EQ(O[5], 1); // after 3 swaps: (2, 1)
}

// scf.while (Collatz steps) with per-lane exit iteration.
TEST(EmulatorControlFlow, DivergentWhile) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %one = arith.constant 1 : i32
    %n0 = arith.addi %ti, %one : i32
    %z = arith.constant 0 : i32
    %r:2 = scf.while (%n = %n0, %s = %z) : (i32, i32) -> (i32, i32) {
      %go = arith.cmpi ne, %n, %one : i32
      scf.condition(%go) %n, %s : i32, i32
    } do {
    ^bb0(%n: i32, %s: i32):
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %odd = arith.andi %n, %one : i32
      %isodd = arith.cmpi ne, %odd, %z : i32
      %h = arith.divui %n, %two : i32
      %m3 = arith.muli %n, %three : i32
      %m31 = arith.addi %m3, %one : i32
      %nn = arith.select %isodd, %m31, %h : i32
      %s1 = arith.addi %s, %one : i32
      scf.yield %nn, %s1 : i32, i32
    }
    memref.store %r#1, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  for (int t = 0; t < 64; ++t) {
    int n = t + 1, s = 0;
    while (n != 1) {
      n = n % 2 ? 3 * n + 1 : n / 2;
      ++s;
    }
    EXPECT_EQ(O[t], s) << t;
  }
}

// Four waves exchange data through LDS across a barrier: thread t writes
// lds[t], then reads lds[255 - t] (written by another wave).
TEST(EmulatorControlFlow, BarrierAcrossWavesWithLds) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c7 = arith.constant 7 : i32
    %v = arith.muli %ti, %c7 : i32
    memref.store %v, %L[%t] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c255 = arith.constant 255 : index
    %o = arith.subi %c255, %t : index
    %r = memref.load %L[%o] : memref<256xi32, #gpu.address_space<workgroup>>
    memref.store %r, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel(
      "%O: memref<?xi32, #gpu.address_space<global>>", body, 256, "gfx950",
      "workgroup(%L : memref<256xi32, #gpu.address_space<workgroup>>)"));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(512);
  EXPECT_OK(m->launchArgs("k", {2, 1, 1}, {256, 1, 1},
                          {KernelArg::buffer(O.data(), 512)}));
  for (int t = 0; t < 256; ++t)
    EXPECT_EQ(O[t], (255 - t) * 7);
}

// Without the barrier, wave 0 reads LDS that waves 1..3 have not written yet:
// the emulator runs each wave until it blocks, so this is caught as a read of
// never-written LDS.
TEST(EmulatorControlFlow, MissingBarrierIsCaught) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    memref.store %ti, %L[%t] : memref<256xi32, #gpu.address_space<workgroup>>
    %c255 = arith.constant 255 : index
    %o = arith.subi %c255, %t : index
    %r = memref.load %L[%o] : memref<256xi32, #gpu.address_space<workgroup>> loc("lds.mlir":9:10)
    memref.store %r, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel(
      "%O: memref<?xi32, #gpu.address_space<global>>", body, 256, "gfx942",
      "workgroup(%L : memref<256xi32, #gpu.address_space<workgroup>>)"));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(256);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {256, 1, 1},
                                      {KernelArg::buffer(O.data(), 256)}));
  EXPECT_NE(e.find("lds.mlir:9:10"), std::string::npos) << e;
  EXPECT_NE(e.find("never-written LDS"), std::string::npos) << e;
}

// A barrier inside a branch only some waves take deadlocks on hardware.
TEST(EmulatorControlFlow, BarrierDeadlockIsReported) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %first = arith.cmpi ult, %t, %c64 : index
    scf.if %first {
      gpu.barrier
    }
  )";
  auto m =
      load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body, 128));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {128, 1, 1},
                                      {KernelArg::buffer(O.data(), 1)}));
  EXPECT_NE(e.find("barrier deadlock"), std::string::npos) << e;
}

// Two workgroups: block 1 spins until block 0 publishes a flag; block 0
// first waits for block 1's "ready" flag. Needs interleaved workgroups.
TEST(EmulatorControlFlow, TwoWorkgroupSpinWait) {
  std::string body = R"(
    %b = gpu.block_id x
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %z = arith.constant 0 : i32
    %isb0 = arith.cmpi eq, %b, %c0 : index
    %lane0 = arith.cmpi eq, %t, %c0 : index
    scf.if %isb0 {
      // wait for ready (flag[1]) from block 1, then publish data and flag[0]
      scf.while : () -> () {
        %r = memref.load %F[%c1] : memref<?xi32, #gpu.address_space<global>>
        %w = arith.cmpi eq, %r, %z : i32
        scf.condition(%w)
      } do {
        scf.yield
      }
      %c42 = arith.constant 42 : i32
      memref.store %c42, %D[%t] : memref<?xi32, #gpu.address_space<global>>
      gpu.barrier
      scf.if %lane0 {
        %old = memref.atomic_rmw assign %one, %F[%c0] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
      }
    } else {
      scf.if %lane0 {
        memref.store %one, %F[%c1] : memref<?xi32, #gpu.address_space<global>>
      }
      scf.while : () -> () {
        %r = memref.load %F[%c0] : memref<?xi32, #gpu.address_space<global>>
        %w = arith.cmpi eq, %r, %z : i32
        scf.condition(%w)
      } do {
        scf.yield
      }
      %v = memref.load %D[%t] : memref<?xi32, #gpu.address_space<global>>
      %c64 = arith.constant 64 : index
      %i = arith.addi %t, %c64 : index
      %v1 = arith.addi %v, %one : i32
      memref.store %v1, %D[%i] : memref<?xi32, #gpu.address_space<global>>
    }
  )";
  auto m = load(kernel("%F: memref<?xi32, #gpu.address_space<global>>, "
                       "%D: memref<?xi32, #gpu.address_space<global>>",
                       body));
  ASSERT_TRUE(m);
  std::vector<int32_t> F(2, 0), D(128, 0);
  EXPECT_OK(m->launchArgs(
      "k", {2, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(F.data(), 2), KernelArg::buffer(D.data(), 128)}));
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(D[t], 42);
    EXPECT_EQ(D[64 + t], 43);
  }
  EXPECT_EQ(F[0], 1);
  EXPECT_EQ(F[1], 1);
}

// A spin-wait that can never finish is reported, not hung.
TEST(EmulatorControlFlow, EndlessSpinIsReported) {
  std::string body = R"(
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i32
    scf.while : () -> () {
      %r = memref.load %F[%c0] : memref<?xi32, #gpu.address_space<global>>
      %w = arith.cmpi eq, %r, %z : i32
      scf.condition(%w)
    } do {
      scf.yield
    }
  )";
  auto m = load(kernel("%F: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> F(1, 0);
  LaunchOptions o;
  o.maxLoopIterations = 100000;
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(F.data(), 1)}, o));
  EXPECT_NE(e.find("iteration limit"), std::string::npos) << e;
}

// wave32 for sm_90 modules: gpu.shuffle xor within a warp of 32 lanes.
TEST(EmulatorControlFlow, Wave32Shuffle) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %sz = gpu.subgroup_size : index
    %r, %ok = gpu.shuffle xor %ti, %c1, %c32 : i32
    %szi = arith.index_cast %sz : index to i32
    %x = arith.muli %r, %szi : i32
    memref.store %x, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body,
                       64, "sm_90"));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(O[t], (t ^ 1) * 32);
}

TEST(EmulatorControlFlow, BadLaunchShape) {
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", ""));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {128, 1, 1},
                                      {KernelArg::buffer(O.data(), 1)}));
  EXPECT_NE(e.find("bad launch shape"), std::string::npos) << e;
}

} // namespace
