//===- MemoryTest.cpp - bounds checks, LDS, buffers, atomics --------------===//
#include "TestUtil.h"

#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

const std::string kBuf = "memref<?xi32, #gpu.address_space<global>>";

TEST(EmulatorMemory, GlobalReadOutOfBoundsHasLocation) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c1 = arith.constant 1 : index
    %i = arith.addi %t, %c1 : index
    %v = memref.load %A[%i] : memref<?xi32, #gpu.address_space<global>> loc("oob.mlir":12:7)
    memref.store %v, %A[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%A: " + kBuf, body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(64, 0);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(A.data(), 64)}));
  EXPECT_NE(e.find("oob.mlir:12:7"), std::string::npos) << e;
  EXPECT_NE(e.find("'memref.load'"), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds load"), std::string::npos) << e;
  EXPECT_NE(e.find("[64]"), std::string::npos) << e; // index 64
  EXPECT_NE(e.find("lane 63"), std::string::npos) << e;
}

TEST(EmulatorMemory, GlobalWriteOutOfBoundsHasLocation) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %i = arith.muli %t, %c2 : index
    %v = arith.constant dense<1> : vector<2xi32>
    vector.store %v, %A[%i] : memref<?xi32, #gpu.address_space<global>>, vector<2xi32> loc("oob.mlir":20:3)
  )";
  auto m = load(kernel("%A: " + kBuf, body));
  ASSERT_TRUE(m);
  // 127 elements: the last lane's 2-element store straddles the end.
  std::vector<int32_t> A(128, 0);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(A.data(), 127)}));
  EXPECT_NE(e.find("oob.mlir:20:3"), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds store"), std::string::npos) << e;
  EXPECT_EQ(A[127], 0) << "nothing written past the bound";
}

// SIMT IR printed with debug info carries the lowering's locations as they
// are: the fault names the file:line:col inside fused, call-site and name
// locations, and an op without one (constants the lowering creates) is named
// by its nearest enclosing op that has one.
TEST(EmulatorMemory, FaultLocationLooksThroughLocationWrappers) {
  const std::pair<const char *, const char *> cases[] = {
      {R"(loc(fused["a.mlir":3:4, "b.mlir":5:6]))", "a.mlir:3:4"},
      {R"(loc(fused<"tile">["f.mlir":6:7]))", "f.mlir:6:7"},
      {R"(loc(callsite("inner.mlir":7:8 at "outer.mlir":9:10)))",
       "inner.mlir:7:8"},
      {R"(loc("tile.store"("n.mlir":11:12)))", "n.mlir:11:12"},
      {"loc(unknown)", "if.mlir:2:3"},
  };
  for (auto [loc, want] : cases) {
    std::string body = R"(
      %t = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %i = arith.addi %t, %c1 : index
      %z = arith.constant 0 : i32
      %c0 = arith.constant 0 : index
      %all = arith.cmpi uge, %t, %c0 : index
      scf.if %all {
        memref.store %z, %A[%i] : memref<?xi32, #gpu.address_space<global>> )" +
                       std::string(loc) + R"(
      } loc("if.mlir":2:3)
    )";
    auto m = load(kernel("%A: " + kBuf, body));
    ASSERT_TRUE(m) << loc;
    std::vector<int32_t> A(64, 0);
    std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                        {KernelArg::buffer(A.data(), 64)}));
    EXPECT_EQ(e.rfind(std::string(want) + ": 'memref.store': out-of-bounds", 0),
              0u)
        << loc << ": " << e;
  }
}

TEST(EmulatorMemory, UnknownOpRejectedAtLoad) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %r = rocdl.permlanex16 %ti, %ti, %ti, %ti, false, false : i32, i32 loc("u.mlir":3:4)
  )";
  std::string e = loadError(kernel("%A: " + kBuf, body));
  EXPECT_NE(e.find("u.mlir:3:4"), std::string::npos) << e;
  EXPECT_NE(e.find("rocdl.permlanex16"), std::string::npos) << e;
  EXPECT_NE(e.find("not supported"), std::string::npos) << e;
}

TEST(EmulatorMemory, UnsupportedFormRejectedAtLoad) {
  std::string body = R"(
    %v = arith.constant 1.0 : f32
    %m = arith.constant dense<0.0> : vector<16xf32>
    %r = amdgpu.mfma 32x32x2 %v * %v + %m blgp = none : f32, f32, vector<16xf32>
  )";
  std::string e = loadError(kernel("%A: " + kBuf, body));
  EXPECT_NE(e.find("'amdgpu.mfma'"), std::string::npos) << e;
  EXPECT_NE(e.find("unsupported mfma"), std::string::npos) << e;
}

TEST(EmulatorMemory, LdsOverTargetLimitRejected) {
  std::string e = loadError(kernel(
      "%A: " + kBuf, "", 64, "gfx942",
      "workgroup(%L : memref<20000xf32, #gpu.address_space<workgroup>>)"));
  EXPECT_NE(e.find("80000 bytes of LDS"), std::string::npos) << e;
  // gfx950 has 160 KiB.
  EXPECT_EQ(
      loadError(kernel(
          "%A: " + kBuf, "", 64, "gfx950",
          "workgroup(%L : memref<20000xf32, #gpu.address_space<workgroup>>)")),
      "");
}

// Raw buffer ops: out-of-range lanes read 0 and their stores are dropped,
// including negative offsets and sgprOffset.
TEST(EmulatorMemory, RawBufferOutOfRange) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c8 = arith.constant 8 : i32
    %i = arith.subi %ti, %c8 : i32
    %v = amdgpu.raw_buffer_load %A[%i] sgprOffset %c8 : memref<?xi32, #gpu.address_space<global>>, i32 -> i32
    %c100 = arith.constant 100 : i32
    %w = arith.addi %v, %c100 : i32
    %j = arith.addi %ti, %c8 : i32
    amdgpu.raw_buffer_store %w -> %B[%j] : i32 -> memref<?xi32, #gpu.address_space<global>>, i32
    %z = arith.constant 0 : i32
    %neg = arith.subi %z, %c8 : i32
    %x = amdgpu.raw_buffer_load %A[%neg] : memref<?xi32, #gpu.address_space<global>>, i32 -> i32
    amdgpu.raw_buffer_store %x -> %C[%ti] : i32 -> memref<?xi32, #gpu.address_space<global>>, i32
  )";
  auto m =
      load(kernel("%A: " + kBuf + ", %B: " + kBuf + ", %C: " + kBuf, body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(64), B(80, -1), C(64, -1);
  for (int i = 0; i < 64; ++i)
    A[i] = i * 3;
  // A has 40 valid elements, B 60.
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 40),
                           KernelArg::buffer(B.data(), 60),
                           KernelArg::buffer(C.data(), 64)}));
  for (int t = 0; t < 64; ++t) {
    int expect = t < 40 ? t * 3 + 100 : 100; // OOB load gives 0
    if (t + 8 < 60) {
      EXPECT_EQ(B[t + 8], expect) << t;
    }
    EXPECT_EQ(C[t], 0) << "negative offset is out of range";
  }
  for (int i = 60; i < 80; ++i)
    EXPECT_EQ(B[i], -1) << "store beyond num_records dropped";
}

const std::string kBytes = "memref<?xi8, #gpu.address_space<global>>";

// A 16-byte raw buffer load through a buffer cut at `n` bytes
// (memref.reinterpret_cast): each dword is in range only when its four bytes
// lie below num_records, so the dword that straddles n reads 0 as a whole
// (CDNA3/CDNA4 range checking of dword x2/x3/x4 loads).
TEST(EmulatorMemory, RawBufferLoadChecksEachDword) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c16 = arith.constant 16 : i32
    %off = arith.muli %ti, %c16 : i32
    %ni = arith.index_cast %n : i32 to index
    %cut = memref.reinterpret_cast %A to offset: [0], sizes: [%ni], strides: [1] : )" +
                     kBytes + " to " + kBytes + R"(
    %v = amdgpu.raw_buffer_load %cut[%off] : )" +
                     kBytes + R"(, i32 -> vector<16xi8>
    %o = arith.index_cast %off : i32 to index
    vector.store %v, %B[%o] : )" +
                     kBytes + R"(, vector<16xi8>
  )";
  auto m =
      load(kernel("%A: " + kBytes + ", %B: " + kBytes + ", %n: i32", body));
  ASSERT_TRUE(m);
  for (int32_t n : {1024, 1000, 1001, 1003, 0, 5}) {
    std::vector<uint8_t> A(1024), B(1024, 0xEE);
    for (int i = 0; i < 1024; ++i)
      A[i] = uint8_t(i * 7 + 1);
    EXPECT_OK(
        m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                      {KernelArg::buffer(A.data(), 1024),
                       KernelArg::buffer(B.data(), 1024), KernelArg::i32(n)}));
    for (int i = 0; i < 1024; ++i) {
      bool dwordIn = (i / 4) * 4 + 4 <= n;
      ASSERT_EQ(B[i], dwordIn ? A[i] : 0) << "n = " << n << ", byte " << i;
    }
  }
}

// Accesses narrower than a dword are one piece: in range when all their
// bytes are. Stores follow the same rule (out-of-range pieces dropped).
TEST(EmulatorMemory, RawBufferNarrowAccessIsOnePiece) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c2 = arith.constant 2 : i32
    %off = arith.muli %ti, %c2 : i32
    %ni = arith.index_cast %n : i32 to index
    %cut = memref.reinterpret_cast %A to offset: [0], sizes: [%ni], strides: [1] : )" +
                     kBytes + " to " + kBytes + R"(
    %v = amdgpu.raw_buffer_load %cut[%off] : )" +
                     kBytes + R"(, i32 -> vector<2xi8>
    %o = arith.index_cast %off : i32 to index
    vector.store %v, %B[%o] : )" +
                     kBytes + R"(, vector<2xi8>
    %cutB = memref.reinterpret_cast %C to offset: [0], sizes: [%ni], strides: [1] : )" +
                     kBytes + " to " + kBytes + R"(
    amdgpu.raw_buffer_store %v -> %cutB[%off] : vector<2xi8> -> )" +
                     kBytes +
                     R"(, i32
  )";
  auto m = load(kernel("%A: " + kBytes + ", %B: " + kBytes + ", %C: " + kBytes +
                           ", %n: i32",
                       body));
  ASSERT_TRUE(m);
  const int32_t n = 101;
  std::vector<uint8_t> A(128), B(128, 0xEE), C(128, 0xEE);
  for (int i = 0; i < 128; ++i)
    A[i] = uint8_t(i + 1);
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 128), KernelArg::buffer(B.data(), 128),
       KernelArg::buffer(C.data(), 128), KernelArg::i32(n)}));
  for (int i = 0; i < 128; ++i) {
    bool in = (i / 2) * 2 + 2 <= n; // bytes 100..101 straddle n = 101
    EXPECT_EQ(B[i], in ? A[i] : 0) << "byte " << i;
    EXPECT_EQ(C[i], in ? A[i] : 0xEE) << "byte " << i;
  }
}

// vector.load and vector.store through amdgpu.fat_raw_buffer_cast with
// validBytes = n: the same per-dword range check, num_records = n.
TEST(EmulatorMemory, FatRawBufferChecksEachDword) {
  const std::string kFat =
      "memref<?xi8, #amdgpu.address_space<fat_raw_buffer>>";
  std::string body = R"(
    %t = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %o = arith.muli %t, %c16 : index
    %n64 = arith.extui %n : i32 to i64
    %fa = amdgpu.fat_raw_buffer_cast %A validBytes(%n64) resetOffset : )" +
                     kBytes + " to " + kFat + R"(
    %v = vector.load %fa[%o] : )" +
                     kFat + R"(, vector<16xi8>
    vector.store %v, %B[%o] : )" +
                     kBytes + R"(, vector<16xi8>
    %fc = amdgpu.fat_raw_buffer_cast %C validBytes(%n64) resetOffset : )" +
                     kBytes + " to " + kFat + R"(
    %w = vector.load %B[%o] : )" +
                     kBytes + R"(, vector<16xi8>
    vector.store %w, %fc[%o] : )" +
                     kFat + R"(, vector<16xi8>
  )";
  auto m = load(kernel("%A: " + kBytes + ", %B: " + kBytes + ", %C: " + kBytes +
                           ", %n: i32",
                       body));
  ASSERT_TRUE(m);
  for (int32_t n : {1024, 1000, 1002, 0, 7}) {
    std::vector<uint8_t> A(1024), B(1024, 0xEE), C(1024, 0xEE);
    for (int i = 0; i < 1024; ++i)
      A[i] = uint8_t(i * 5 + 3);
    EXPECT_OK(m->launchArgs(
        "k", {1, 1, 1}, {64, 1, 1},
        {KernelArg::buffer(A.data(), 1024), KernelArg::buffer(B.data(), 1024),
         KernelArg::buffer(C.data(), 1024), KernelArg::i32(n)}));
    for (int i = 0; i < 1024; ++i) {
      bool dwordIn = (i / 4) * 4 + 4 <= n;
      ASSERT_EQ(B[i], dwordIn ? A[i] : 0) << "n = " << n << ", byte " << i;
      ASSERT_EQ(C[i], dwordIn ? A[i] : 0xEE) << "n = " << n << ", byte " << i;
    }
  }
}

// A bound past the allocation: a read inside num_records that leaves the
// buffer is an out-of-bounds error, not a silent read.
TEST(EmulatorMemory, RawBufferBoundPastAllocationIsCaught) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c16 = arith.constant 16 : i32
    %off = arith.muli %ti, %c16 : i32
    %ni = arith.index_cast %n : i32 to index
    %cut = memref.reinterpret_cast %A to offset: [0], sizes: [%ni], strides: [1] : )" +
                     kBytes + " to " + kBytes + R"(
    %v = amdgpu.raw_buffer_load %cut[%off] : )" +
                     kBytes + R"(, i32 -> vector<16xi8>
    %o = arith.index_cast %off : i32 to index
    vector.store %v, %B[%o] : )" +
                     kBytes + R"(, vector<16xi8>
  )";
  auto m =
      load(kernel("%A: " + kBytes + ", %B: " + kBytes + ", %n: i32", body));
  ASSERT_TRUE(m);
  std::vector<uint8_t> A(1024), B(1024);
  std::string e = errOf(
      m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                    {KernelArg::buffer(A.data(), 1000),
                     KernelArg::buffer(B.data(), 1024), KernelArg::i32(1024)}));
  EXPECT_NE(e.find("past the end of the 1000-byte buffer"), std::string::npos)
      << e;
}

// memref.atomic_rmw: 64 lanes add into one word, maxs, and the returned old
// values are a permutation of partial sums.
TEST(EmulatorMemory, AtomicRmw) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %old = memref.atomic_rmw addi %ti, %A[%c0] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
    %m = memref.atomic_rmw maxs %ti, %A[%c1] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
    %f = arith.sitofp %ti : i32 to f32
    %of = memref.atomic_rmw addf %f, %F[%c0] : (f32, memref<?xf32, #gpu.address_space<global>>) -> f32
    %c2 = arith.constant 2 : index
    %i = arith.addi %t, %c2 : index
    memref.store %old, %A[%i] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel(
      "%A: " + kBuf + ", %F: memref<?xf32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(66, 0);
  A[1] = -5;
  std::vector<float> F(1, 0.5f);
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 66), KernelArg::buffer(F.data(), 1)}));
  EXPECT_EQ(A[0], 63 * 64 / 2);
  EXPECT_EQ(A[1], 63);
  EXPECT_EQ(F[0], 0.5f + 63 * 64 / 2);
  // Lanes perform their read-modify-write in lane order.
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(A[2 + t], t * (t - 1) / 2) << t;
}

TEST(EmulatorMemory, GenericAtomicRmw) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c0 = arith.constant 0 : index
    %r = memref.generic_atomic_rmw %A[%c0] : memref<?xi32, #gpu.address_space<global>> {
    ^bb0(%cur: i32):
      %c3 = arith.constant 3 : i32
      %m = arith.muli %cur, %c3 : i32
      %n = arith.addi %m, %ti : i32
      memref.atomic_yield %n : i32
    }
    %c1 = arith.constant 1 : index
    %i = arith.addi %t, %c1 : index
    memref.store %r, %A[%i] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%A: " + kBuf, body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(65, 0);
  A[0] = 1;
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 65)}));
  // Lanes apply in lane order: x = 3x + t.
  uint32_t x = 1;
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ((uint32_t)A[1 + t], x) << t;
    x = x * 3 + t;
  }
  EXPECT_EQ((uint32_t)A[0], x);
}

// LDS through memref.alloca and memref.view, plus LDS bounds checks.
TEST(EmulatorMemory, LdsAllocaViewAndBounds) {
  std::string body = R"(
    %t = gpu.thread_id x
    %raw = memref.alloca() : memref<1024xi8, #gpu.address_space<workgroup>>
    %c256 = arith.constant 256 : index
    %f = memref.view %raw[%c256][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %t : index to i32
    %x = arith.sitofp %ti : i32 to f32
    memref.store %x, %f[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    %c63 = arith.constant 63 : index
    %o = arith.subi %c63, %t : index
    %y = memref.load %f[%o] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %O[%t] : memref<?xf32, #gpu.address_space<global>>
    %d = memref.dim %O, %c0 : memref<?xf32, #gpu.address_space<global>>
    %c1 = arith.constant 1 : index
    %last = arith.subi %d, %c1 : index
    %isl = arith.cmpi eq, %t, %c0 : index
    scf.if %isl {
      %bad = arith.constant 64 : index
      %z = memref.load %f[%bad] : memref<64xf32, #gpu.address_space<workgroup>> loc("lds.mlir":30:5)
      memref.store %z, %O[%last] : memref<?xf32, #gpu.address_space<global>>
    }
  )";
  body = "%c0 = arith.constant 0 : index\n" + body;
  auto m = load(kernel("%O: memref<?xf32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<float> O(64, -1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(O.data(), 64)}));
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(O[t], 63 - t);
  EXPECT_NE(e.find("lds.mlir:30:5"), std::string::npos) << e;
  EXPECT_NE(e.find("LDS buffer"), std::string::npos) << e;
}

} // namespace
