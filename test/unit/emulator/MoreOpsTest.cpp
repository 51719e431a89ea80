//===- MoreOpsTest.cpp - further op forms and scheduling cases ------------===//
#include "TestUtil.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

const std::string kI32 = "memref<?xi32, #gpu.address_space<global>>";
const std::string kF32 = "memref<?xf32, #gpu.address_space<global>>";

// Tree reduction over 256 threads in LDS with a barrier inside a uniform
// loop, over more workgroups than are resident at once.
TEST(EmulatorMore, LdsTreeReductionManyWorkgroups) {
  std::string body = R"(
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %g = arith.addi %base, %t : index
    %x = memref.load %A[%g] : memref<?xi32, #gpu.address_space<global>>
    memref.store %x, %L[%t] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%half = %c128) -> (index) {
      %act = arith.cmpi ult, %t, %half : index
      scf.if %act {
        %o = arith.addi %t, %half : index
        %p = memref.load %L[%t] : memref<256xi32, #gpu.address_space<workgroup>>
        %q = memref.load %L[%o] : memref<256xi32, #gpu.address_space<workgroup>>
        %s = arith.addi %p, %q : i32
        memref.store %s, %L[%t] : memref<256xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %c2 = arith.constant 2 : index
      %h2 = arith.divui %half, %c2 : index
      scf.yield %h2 : index
    }
    %is0 = arith.cmpi eq, %t, %c0 : index
    scf.if %is0 {
      %v = memref.load %L[%c0] : memref<256xi32, #gpu.address_space<workgroup>>
      memref.store %v, %O[%b] : memref<?xi32, #gpu.address_space<global>>
    }
  )";
  auto m = load(
      kernel("%A: " + kI32 + ", %O: " + kI32, body, 256, "gfx942",
             "workgroup(%L : memref<256xi32, #gpu.address_space<workgroup>>)"));
  ASSERT_TRUE(m);
  const int nb = 150;
  std::vector<int32_t> A(nb * 256), O(nb, -1);
  for (size_t i = 0; i < A.size(); ++i)
    A[i] = (int32_t)(i * 7 % 1001);
  LaunchOptions o;
  o.maxResidentWorkgroups = 16;
  EXPECT_OK(m->launchArgs(
      "k", {nb, 1, 1}, {256, 1, 1},
      {KernelArg::buffer(A.data(), A.size()), KernelArg::buffer(O.data(), nb)},
      o));
  for (int b = 0; b < nb; ++b) {
    int64_t s = 0;
    for (int i = 0; i < 256; ++i)
      s += A[b * 256 + i];
    EXPECT_EQ(O[b], s) << b;
  }
}

TEST(EmulatorMore, BarrierDivergenceIsReported) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %first = arith.cmpi ult, %t, %c64 : index
    scf.if %first {
      gpu.barrier loc("bar.mlir":5:7)
    } else {
      gpu.barrier loc("bar.mlir":7:7)
    }
  )";
  auto m = load(kernel("%O: " + kI32, body, 128));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {128, 1, 1},
                                      {KernelArg::buffer(O.data(), 1)}));
  EXPECT_NE(e.find("barrier divergence"), std::string::npos) << e;
  EXPECT_NE(e.find("bar.mlir:5:7"), std::string::npos) << e;
  EXPECT_NE(e.find("bar.mlir:7:7"), std::string::npos) << e;
}

// bf16 arithmetic rounds each result to bf16 (RNE); float reductions follow
// the NaN rules of their kind; shape_cast, step, dynamic insert, vector
// select and 64-bit int<->float conversions.
TEST(EmulatorMore, MiscVectorAndFloatForms) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %one = arith.constant 1.0 : bf16
    %tiny = arith.constant 0.00390625 : bf16
    %s = arith.addf %one, %tiny : bf16
    %sb = arith.bitcast %s : bf16 to i16
    %sbe = arith.extui %sb : i16 to i32
    %nan = arith.constant 0x7FC00000 : f32
    %two = arith.constant 2.0 : f32
    %v = vector.from_elements %two, %nan, %two, %two : vector<4xf32>
    %mx = vector.reduction <maximumf>, %v : vector<4xf32> into f32
    %mn = vector.reduction <maxnumf>, %v : vector<4xf32> into f32
    %mxb = arith.bitcast %mx : f32 to i32
    %mnb = arith.bitcast %mn : f32 to i32
    %st = vector.step : vector<4xindex>
    %sc = vector.shape_cast %st : vector<4xindex> to vector<2x2xindex>
    %row = vector.extract %sc[1] : vector<2xindex> from vector<2x2xindex>
    %e1 = vector.extract %row[1] : index from vector<2xindex>
    %e1i = arith.index_cast %e1 : index to i32
    %c3 = arith.constant 3 : index
    %pos = arith.andi %t, %c3 : index
    %z = arith.constant dense<0> : vector<4xi32>
    %ins = vector.insert %ti, %z [%pos] : i32 into vector<4xi32>
    %sum = vector.reduction <add>, %ins : vector<4xi32> into i32
    %third = vector.extract %ins[2] : i32 from vector<4xi32>
    %big = arith.constant -4611686018427387905 : i64
    %bf = arith.sitofp %big : i64 to f32
    %bfb = arith.bitcast %bf : f32 to i32
    %m = arith.constant dense<[true, false, true, false]> : vector<4xi1>
    %a = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
    %b = arith.constant dense<[10, 20, 30, 40]> : vector<4xi32>
    %sel = arith.select %m, %a, %b : vector<4xi1>, vector<4xi32>
    %sr = vector.reduction <add>, %sel : vector<4xi32> into i32
    %r = vector.from_elements %sbe, %mxb, %mnb, %e1i, %sum, %third, %bfb, %sr : vector<8xi32>
    %c8 = arith.constant 8 : index
    %base = arith.muli %t, %c8 : index
    vector.store %r, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<8xi32>
  )";
  auto m = load(kernel("%O: " + kI32, body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(512);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 512)}));
  for (int t = 0; t < 64; ++t) {
    const int32_t *r = &O[t * 8];
    EXPECT_EQ(r[0], 0x3f80) << "1 + 2^-8 ties to even in bf16";
    EXPECT_TRUE(std::isnan(f32((uint32_t)r[1])));
    EXPECT_EQ(f32((uint32_t)r[2]), 2.0f);
    EXPECT_EQ(r[3], 3);
    EXPECT_EQ(r[4], t);
    EXPECT_EQ(r[5], (t & 3) == 2 ? t : 0);
    EXPECT_EQ(f32((uint32_t)r[6]), (float)-4611686018427387905LL);
    EXPECT_EQ(r[7], 1 + 20 + 3 + 40);
  }
}

// A vector raw buffer load straddling num_records: in-range elements load,
// the others read 0; buffer atomics: fadd and cmpswap.
TEST(EmulatorMore, RawBufferVectorAndAtomics) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %c4 = arith.constant 4 : i32
    %i = arith.muli %ti, %c4 : i32
    %v = amdgpu.raw_buffer_load %A[%i] : memref<?xf32, #gpu.address_space<global>>, i32 -> vector<4xf32>
    %c4x = arith.constant 4 : index
    %o = arith.muli %t, %c4x : index
    vector.store %v, %O[%o] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
    %z = arith.constant 0 : i32
    %one = arith.constant 1.0 : f32
    amdgpu.raw_buffer_atomic_fadd %one -> %S[%z] : f32 -> memref<?xf32, #gpu.address_space<global>>, i32
    %c7 = arith.constant 7 : i32
    %old = amdgpu.raw_buffer_atomic_cmpswap %ti, %z -> %C[%z] : i32 -> memref<?xi32, #gpu.address_space<global>>, i32
    %c1 = arith.constant 1 : i32
    %ot = arith.addi %ti, %c1 : i32
    amdgpu.raw_buffer_store %old -> %C[%ot] : i32 -> memref<?xi32, #gpu.address_space<global>>, i32
  )";
  auto m = load(kernel("%A: " + kF32 + ", %O: " + kF32 + ", %S: " + kF32 +
                           ", %C: " + kI32,
                       body));
  ASSERT_TRUE(m);
  std::vector<float> A(256), O(256, -1), S(1, 0.5f);
  std::vector<int32_t> C(65, 0);
  for (int i = 0; i < 256; ++i)
    A[i] = i + 0.25f;
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 130), KernelArg::buffer(O.data(), 256),
       KernelArg::buffer(S.data(), 1), KernelArg::buffer(C.data(), 65)}));
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(O[i], i < 130 ? i + 0.25f : 0.0f) << i;
  EXPECT_EQ(S[0], 64.5f);
  // Lanes go in order: lane 0 swaps 0 -> 0, lane 1 swaps 0 -> 1, later lanes
  // see 1 != 0 and leave it. Each lane returns the value it saw.
  EXPECT_EQ(C[1], 0);
  EXPECT_EQ(C[2], 0);
  for (int l = 2; l < 64; ++l)
    EXPECT_EQ(C[1 + l], 1) << l;
}

// vector.bitcast across element widths that are not whole bytes: element 0
// is the least significant bit.
TEST(EmulatorMore, SubByteBitcast) {
  std::string body = R"(
    %t = gpu.thread_id x
    %m = arith.constant dense<[true, false, true, true, false, false, false, true]> : vector<8xi1>
    %b = vector.bitcast %m : vector<8xi1> to vector<1xi8>
    %x = vector.extract %b[0] : i8 from vector<1xi8>
    %xi = arith.extui %x : i8 to i32
    %w = arith.constant dense<[305419896]> : vector<1xi32>
    %n = vector.bitcast %w : vector<1xi32> to vector<8xi4>
    %n1 = vector.extract %n[1] : i4 from vector<8xi4>
    %n1i = arith.extui %n1 : i4 to i32
    %r = arith.muli %xi, %n1i : i32
    memref.store %r, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: " + kI32, body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  // 0b10001101 = 141; 0x12345678 nibble 1 = 7.
  EXPECT_EQ(O[9], 141 * 7);
}

// nvvm.shfl.sync and nvvm.vote.sync in a wave32 (sm_90) module, following
// the PTX ISA's shfl.sync pseudo-code.
TEST(EmulatorMore, NvvmShflAndVote) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %full = arith.constant -1 : i32
    %mc = arith.constant 31 : i32
    %c16 = arith.constant 16 : i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %c2 = arith.constant 2 : i32
    %c1 = arith.constant 1 : i32
    %s1 = nvvm.shfl.sync bfly %full, %ti, %c16, %mc : i32 -> i32
    %a1 = arith.addi %ti, %s1 : i32
    %s2 = nvvm.shfl.sync bfly %full, %a1, %c8, %mc : i32 -> i32
    %a2 = arith.addi %a1, %s2 : i32
    %s3 = nvvm.shfl.sync bfly %full, %a2, %c4, %mc : i32 -> i32
    %a3 = arith.addi %a2, %s3 : i32
    %s4 = nvvm.shfl.sync bfly %full, %a3, %c2, %mc : i32 -> i32
    %a4 = arith.addi %a3, %s4 : i32
    %s5 = nvvm.shfl.sync bfly %full, %a4, %c1, %mc : i32 -> i32
    %sum = arith.addi %a4, %s5 : i32
    %dn = nvvm.shfl.sync down %full, %ti, %c1, %mc : i32 -> i32
    %seg8 = arith.constant 6175 : i32
    %ix = nvvm.shfl.sync idx %full, %ti, %c2, %seg8 : i32 -> i32
    %c3 = arith.constant 3 : i32
    %m3 = arith.remui %ti, %c3 : i32
    %z = arith.constant 0 : i32
    %p = arith.cmpi eq, %m3, %z : i32
    %bal = nvvm.vote.sync ballot %full, %p -> i32
    %r = vector.from_elements %sum, %dn, %ix, %bal : vector<4xi32>
    %c4x = arith.constant 4 : index
    %base = arith.muli %t, %c4x : index
    vector.store %r, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<4xi32>
  )";
  auto m = load(kernel("%O: " + kI32, body, 64, "sm_90"));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(256);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 256)}));
  for (int t = 0; t < 64; ++t) {
    int warp = t / 32, lane = t % 32;
    int sum = 0;
    uint32_t bal = 0;
    for (int j = 0; j < 32; ++j) {
      sum += warp * 32 + j;
      if ((warp * 32 + j) % 3 == 0)
        bal |= 1u << j;
    }
    EXPECT_EQ(O[t * 4 + 0], sum) << t;
    EXPECT_EQ(O[t * 4 + 1], lane == 31 ? t : t + 1) << t;
    EXPECT_EQ(O[t * 4 + 2], warp * 32 + (lane & 24) + 2) << t;
    EXPECT_EQ((uint32_t)O[t * 4 + 3], bal) << t;
  }
}

// Multi-dimensional LDS: each index is checked against its own dimension.
TEST(EmulatorMore, PerDimensionBoundsCheck) {
  std::string body = R"(
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c70 = arith.constant 70 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %L[%c0, %c70] : memref<64x64xf32, #gpu.address_space<workgroup>> loc("md.mlir":4:5)
  )";
  auto m = load(kernel(
      "%O: " + kF32, body, 64, "gfx942",
      "workgroup(%L : memref<64x64xf32, #gpu.address_space<workgroup>>)"));
  ASSERT_TRUE(m);
  std::vector<float> O(1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(O.data(), 1)}));
  EXPECT_NE(e.find("md.mlir:4:5"), std::string::npos) << e;
  EXPECT_NE(e.find("[0, 70]"), std::string::npos) << e;
  EXPECT_NE(e.find("[64, 64]"), std::string::npos) << e;
}

} // namespace
