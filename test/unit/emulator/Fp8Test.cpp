//===- Fp8Test.cpp - fp8 conversions against an independent reference -----===//
//
// The reference decodes each format from its textbook definition and rounds
// by exhaustive nearest-value search (ties to the even code), independently of
// the emulator's bit-manipulation encoder.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "TestUtil.h"

#include <cmath>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;
using tessel::emu::test::Fp8Ref;

namespace {

std::string decodeKernel(const std::string &ty) {
  return kernel(
      "%A: memref<?xi8, #gpu.address_space<global>>, %O: memref<?xf32, "
      "#gpu.address_space<global>>",
      R"(
    %t = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %t, %c4 : index
    %raw = vector.load %A[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
    %f8 = arith.bitcast %raw : vector<4xi8> to vector<4x)" +
          ty + R"(>
    %f = arith.extf %f8 : vector<4x)" +
          ty + R"(> to vector<4xf32>
    vector.store %f, %O[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
  )");
}

void checkDecode(const std::string &ty, bool fnuz) {
  auto m = load(decodeKernel(ty));
  ASSERT_TRUE(m);
  std::vector<uint8_t> A(256);
  std::vector<float> O(256);
  for (int i = 0; i < 256; ++i)
    A[i] = (uint8_t)i;
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 256), KernelArg::buffer(O.data(), 256)}));
  Fp8Ref ref{fnuz};
  for (int c = 0; c < 256; ++c) {
    double v = ref.value(c);
    if (std::isnan(v))
      EXPECT_TRUE(std::isnan(O[c])) << ty << " code " << c;
    else
      EXPECT_EQ(bits(O[c]), bits((float)v)) << ty << " code " << c;
  }
}

TEST(EmulatorFp8, DecodeAllCodesE4M3FN) { checkDecode("f8E4M3FN", false); }
TEST(EmulatorFp8, DecodeAllCodesE4M3FNUZ) { checkDecode("f8E4M3FNUZ", true); }

std::vector<float> truncInputs(const Fp8Ref &ref) {
  std::vector<float> in;
  // Every code value, every midpoint between neighbouring magnitudes (ties),
  // and values just around each midpoint.
  std::vector<double> mags;
  for (int c = 0; c < 128; ++c)
    if (!std::isnan(ref.value(c)))
      mags.push_back(ref.value(c));
  std::sort(mags.begin(), mags.end());
  for (size_t i = 0; i + 1 < mags.size(); ++i) {
    double mid = (mags[i] + mags[i + 1]) / 2;
    for (double v : {mags[i], mid, std::nextafter((float)mid, 0.f) * 1.0,
                     std::nextafter((float)mid, 1e30f) * 1.0})
      for (double s : {1.0, -1.0})
        in.push_back((float)(s * v));
  }
  for (float v : {0.0f, -0.0f, 448.0f, 449.0f, 464.0f, 480.0f, 1e6f, -1e6f,
                  240.0f, 247.0f, 248.0f, 256.0f, -300.0f, INFINITY, -INFINITY,
                  NAN, 1e-10f, -1e-10f})
    in.push_back(v);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> d(-600.0f, 600.0f);
  std::uniform_real_distribution<float> e(-20.0f, 10.0f);
  while (in.size() % 64 || in.size() < 8192) {
    in.push_back(d(rng));
    in.push_back(std::exp2(e(rng)) * (rng() & 1 ? 1 : -1));
  }
  in.resize(in.size() / 64 * 64);
  return in;
}

void checkTrunc(const std::string &ty, bool fnuz) {
  auto m = load(
      kernel("%A: memref<?xf32, #gpu.address_space<global>>, %O: memref<?xi8, "
             "#gpu.address_space<global>>",
             R"(
    %t = gpu.thread_id x
    %b = gpu.block_id x
    %c64 = arith.constant 64 : index
    %base = arith.muli %b, %c64 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %A[%i] : memref<?xf32, #gpu.address_space<global>>
    %q = arith.truncf %x : f32 to )" +
                 ty + R"(
    %qb = arith.bitcast %q : )" +
                 ty + R"( to i8
    memref.store %qb, %O[%i] : memref<?xi8, #gpu.address_space<global>>
  )"));
  ASSERT_TRUE(m);
  Fp8Ref ref{fnuz};
  std::vector<float> in = truncInputs(ref);
  std::vector<uint8_t> out(in.size());
  EXPECT_OK(m->launchArgs("k", {(uint32_t)(in.size() / 64), 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(in.data(), in.size()),
                           KernelArg::buffer(out.data(), out.size())}));
  int bad = 0;
  for (size_t i = 0; i < in.size() && bad < 10; ++i) {
    int e = ref.encode(in[i]);
    if (out[i] != e) {
      ++bad;
      ADD_FAILURE() << ty << ": truncf(" << in[i] << ") = " << (int)out[i]
                    << ", reference " << e;
    }
  }
}

TEST(EmulatorFp8, TruncRoundsAndSaturatesE4M3FN) {
  checkTrunc("f8E4M3FN", false);
}
TEST(EmulatorFp8, TruncRoundsAndSaturatesE4M3FNUZ) {
  checkTrunc("f8E4M3FNUZ", true);
}

// amdgpu.packed_trunc_2xfp8 / ext_packed_fp8 (v_cvt_pk_fp8_f32 and
// v_cvt_f32_fp8): saturating RNE into the selected word, exact extension.
TEST(EmulatorFp8, PackedTruncAndExt) {
  auto m = load(
      kernel("%A: memref<?xf32, #gpu.address_space<global>>, %O: memref<?xi8, "
             "#gpu.address_space<global>>, %E: memref<?xf32, "
             "#gpu.address_space<global>>",
             R"(
    %t = gpu.thread_id x
    %c4 = arith.constant 4 : index
    %i = arith.muli %t, %c4 : index
    %x = vector.load %A[%i] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
    %x0 = vector.extract %x[0] : f32 from vector<4xf32>
    %x1 = vector.extract %x[1] : f32 from vector<4xf32>
    %x2 = vector.extract %x[2] : f32 from vector<4xf32>
    %x3 = vector.extract %x[3] : f32 from vector<4xf32>
    %lo = amdgpu.packed_trunc_2xfp8 %x0, %x1 into undef[word 0] : f32 to vector<4xf8E4M3FNUZ>
    %p = amdgpu.packed_trunc_2xfp8 %x2, %x3 into %lo[word 1] : f32 to vector<4xf8E4M3FNUZ> into vector<4xf8E4M3FNUZ>
    %pb = arith.bitcast %p : vector<4xf8E4M3FNUZ> to vector<4xi8>
    vector.store %pb, %O[%i] : memref<?xi8, #gpu.address_space<global>>, vector<4xi8>
    %e0 = amdgpu.ext_packed_fp8 %p[0] : vector<4xf8E4M3FNUZ> to f32
    %e3 = amdgpu.ext_packed_fp8 %p[3] : vector<4xf8E4M3FNUZ> to f32
    %c2 = arith.constant 2 : index
    %j = arith.muli %t, %c2 : index
    %ev = vector.from_elements %e0, %e3 : vector<2xf32>
    vector.store %ev, %E[%j] : memref<?xf32, #gpu.address_space<global>>, vector<2xf32>
  )"));
  ASSERT_TRUE(m);
  std::vector<float> A(256), E(128);
  std::vector<uint8_t> O(256);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-400.0f, 400.0f);
  for (float &a : A)
    a = d(rng);
  A[3] = NAN;
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 256),
                           KernelArg::buffer(O.data(), 256),
                           KernelArg::buffer(E.data(), 128)}));
  Fp8Ref ref{true};
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(O[i], ref.encode(A[i])) << A[i];
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(E[2 * t], (float)ref.value(O[4 * t]));
    if (t == 0)
      EXPECT_TRUE(std::isnan(E[1]));
    else
      EXPECT_EQ(E[2 * t + 1], (float)ref.value(O[4 * t + 3]));
  }
}

} // namespace
