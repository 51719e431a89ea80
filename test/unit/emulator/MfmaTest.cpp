//===- MfmaTest.cpp - amdgpu.mfma against AMD's published layouts ---------===//
//
// The operand and accumulator lane layouts come from the CSV files in data/:
// AMD's Matrix Instruction Calculator output for CDNA3, and the tables of
// gfx950's f8f6f4 instructions transcribed from AMD's CDNA4 register maps
// (runtime/emulator/README.md names the sources). Each test packs random
// matrices into lanes exactly as the CSV says, runs amdgpu.mfma in the
// emulator, unpacks D with the CSV and compares with a float64 matrix
// product, element by element.
//
//===----------------------------------------------------------------------===//
#include "Fp8Ref.h"
#include "MfmaLayoutCsv.h"
#include "TestUtil.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

using Loc = tessel::test::MfmaLayoutCell;

/// AMD's table at `path` (a test failure, and an empty table, when it
/// cannot be read).
tessel::test::MfmaLayoutTable parseLayout(const std::string &path) {
  std::string error;
  tessel::test::MfmaLayoutTable table =
      tessel::test::readMfmaLayoutCsv(path, error);
  EXPECT_FALSE(table.empty()) << error;
  return table;
}

struct Variant {
  std::string csv; // file prefix
  int M, N, K;
  bool fp8;
  std::string elemTy; // MLIR element type of A/B
  bool fnuz;
  std::string target;
  // Random codes over the whole finite range instead of a small exact grid;
  // D is then compared within f32 rounding of the float64 sum.
  bool fullRange = false;
  std::string attrs = ""; // amdgpu.mfma attributes before `blgp`
};

void runVariant(const Variant &v) {
  std::string dir = TESSEL_EMU_TEST_DATA;
  auto LA = parseLayout(dir + "/" + v.csv + "_A_register_layout.csv");
  auto LB = parseLayout(dir + "/" + v.csv + "_B_register_layout.csv");
  auto LD = parseLayout(dir + "/" + v.csv + "_D_register_layout.csv");
  ASSERT_EQ((int)LA.size(), v.M);
  ASSERT_EQ((int)LA[0].size(), v.K);
  ASSERT_EQ((int)LB.size(), v.K);
  ASSERT_EQ((int)LB[0].size(), v.N);
  ASSERT_EQ((int)LD.size(), v.M);
  ASSERT_EQ((int)LD[0].size(), v.N);
  const int elemBits = v.fp8 ? 8 : 16;
  const int perReg = 32 / elemBits;
  const int lenAB = v.M * v.K / 64; // A and B elements per lane
  const int lenC = v.M * v.N / 64;
  // Element index inside the per-lane vector: little-endian packing of the
  // vector into consecutive VGPRs.
  auto elemOf = [&](const Loc &l) { return l.reg * perReg + l.lo / elemBits; };

  std::mt19937 rng(v.M * 1000 + v.K + (v.fnuz ? 7 : 0));
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<double> A(v.M * v.K), B(v.K * v.N), C(v.M * v.N);
  Fp8Ref ref{v.fnuz};
  std::uniform_int_distribution<int> anyCode(0, 255);
  auto finiteFp8 = [&]() {
    for (;;) {
      double x = ref.value(anyCode(rng));
      if (!std::isnan(x))
        return x;
    }
  };
  for (double &x : A)
    x = v.fullRange ? finiteFp8() : small(rng) * 0.25;
  for (double &x : B)
    x = v.fullRange ? finiteFp8() : small(rng) * 0.5;
  for (double &x : C)
    x = small(rng) * 3.0;
  auto code = [&](double x) -> uint16_t {
    if (v.fp8)
      return (uint16_t)ref.encode(x);
    return (uint16_t)(bits((float)x) >> 16); // exact bf16 for these values
  };
  std::vector<uint16_t> Abuf(64 * lenAB, 0xffff), Bbuf(64 * lenAB, 0xffff);
  for (int i = 0; i < v.M; ++i)
    for (int k = 0; k < v.K; ++k) {
      const Loc &l = LA[i][k];
      Abuf[l.lane * lenAB + elemOf(l)] = code(A[i * v.K + k]);
    }
  for (int k = 0; k < v.K; ++k)
    for (int j = 0; j < v.N; ++j) {
      const Loc &l = LB[k][j];
      Bbuf[l.lane * lenAB + elemOf(l)] = code(B[k * v.N + j]);
    }
  std::vector<float> Cbuf(64 * lenC, NAN), Dbuf(64 * lenC, NAN);
  for (int i = 0; i < v.M; ++i)
    for (int j = 0; j < v.N; ++j)
      Cbuf[LD[i][j].lane * lenC + LD[i][j].reg] = (float)C[i * v.N + j];
  for (uint16_t x : Abuf)
    ASSERT_NE(x, 0xffff) << "the A layout must cover every lane slot";
  for (uint16_t x : Bbuf)
    ASSERT_NE(x, 0xffff) << "the B layout must cover every lane slot";

  std::string it = v.fp8 ? "i8" : "i16";
  std::vector<uint8_t> A8, B8;
  for (uint16_t x : Abuf)
    A8.push_back((uint8_t)x);
  for (uint16_t x : Bbuf)
    B8.push_back((uint8_t)x);
  std::string vab = "vector<" + std::to_string(lenAB) + "x";
  std::string vc = "vector<" + std::to_string(lenC) + "xf32>";
  std::string g = ", #gpu.address_space<global>>";
  std::string body = "%t = gpu.thread_id x\n"
                     "%cl = arith.constant " +
                     std::to_string(lenAB) +
                     " : index\n"
                     "%ia = arith.muli %t, %cl : index\n"
                     "%ra = vector.load %A[%ia] : memref<?x" +
                     it + g + ", " + vab + it +
                     ">\n"
                     "%rb = vector.load %B[%ia] : memref<?x" +
                     it + g + ", " + vab + it +
                     ">\n"
                     "%a = arith.bitcast %ra : " +
                     vab + it + "> to " + vab + v.elemTy +
                     ">\n"
                     "%b = arith.bitcast %rb : " +
                     vab + it + "> to " + vab + v.elemTy +
                     ">\n"
                     "%cc = arith.constant " +
                     std::to_string(lenC) +
                     " : index\n"
                     "%ic = arith.muli %t, %cc : index\n"
                     "%c = vector.load %C[%ic] : memref<?xf32" +
                     g + ", " + vc +
                     "\n"
                     "%d = amdgpu.mfma " +
                     std::to_string(v.M) + "x" + std::to_string(v.N) + "x" +
                     std::to_string(v.K) + " %a * %b + %c " + v.attrs +
                     " blgp = none : " + vab + v.elemTy + ">, " + vab +
                     v.elemTy + ">, " + vc +
                     "\n"
                     "vector.store %d, %D[%ic] : memref<?xf32" +
                     g + ", " + vc + "\n";
  std::string args = "%A: memref<?x" + it + g + ", %B: memref<?x" + it + g +
                     ", %C: memref<?xf32" + g + ", %D: memref<?xf32" + g;
  auto m = load(kernel(args, body, 64, v.target));
  ASSERT_TRUE(m);
  void *pa = v.fp8 ? (void *)A8.data() : (void *)Abuf.data();
  void *pb = v.fp8 ? (void *)B8.data() : (void *)Bbuf.data();
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(pa, 64 * lenAB),
                           KernelArg::buffer(pb, 64 * lenAB),
                           KernelArg::buffer(Cbuf.data(), 64 * lenC),
                           KernelArg::buffer(Dbuf.data(), 64 * lenC)}));
  int bad = 0;
  for (int i = 0; i < v.M; ++i)
    for (int j = 0; j < v.N; ++j) {
      double e = C[i * v.N + j], mag = std::fabs(e);
      for (int k = 0; k < v.K; ++k) {
        e += A[i * v.K + k] * B[k * v.N + j];
        mag += std::fabs(A[i * v.K + k] * B[k * v.N + j]);
      }
      float got = Dbuf[LD[i][j].lane * lenC + LD[i][j].reg];
      // The exact grid gives exact sums; otherwise allow the f32 rounding
      // of the result plus a reordering of the sum in float64.
      double tol = v.fullRange
                       ? std::ldexp(std::fabs(e), -23) + std::ldexp(mag, -50)
                       : 0.0;
      if (!(std::fabs(got - e) <= tol) && bad++ < 5)
        ADD_FAILURE() << v.csv << " D[" << i << "][" << j << "] = " << got
                      << ", expected " << e;
    }
  EXPECT_EQ(bad, 0);
}

TEST(EmulatorMfma, Fp8_16x16x32_Gfx942) {
  runVariant({"cdna3_v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, true,
              "f8E4M3FNUZ", true, "gfx942"});
}
TEST(EmulatorMfma, Fp8_32x32x16_Gfx942) {
  runVariant({"cdna3_v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, true,
              "f8E4M3FNUZ", true, "gfx942"});
}
// gfx950: same layouts (assumed identical to CDNA3), OCP e4m3fn operands.
TEST(EmulatorMfma, Fp8_16x16x32_Gfx950) {
  runVariant({"cdna3_v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, true, "f8E4M3FN",
              false, "gfx950"});
}
TEST(EmulatorMfma, Fp8_32x32x16_Gfx950) {
  runVariant({"cdna3_v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, true, "f8E4M3FN",
              false, "gfx950"});
}
TEST(EmulatorMfma, Bf16_16x16x16) {
  runVariant({"cdna3_v_mfma_f32_16x16x16_bf16", 16, 16, 16, false, "bf16", true,
              "gfx942"});
}
TEST(EmulatorMfma, Bf16_32x32x8) {
  runVariant({"cdna3_v_mfma_f32_32x32x8_bf16", 32, 32, 8, false, "bf16", true,
              "gfx942"});
}

// gfx950's double-rate fp8, e4m3fn operands (CBSZ = BLGP = 0), with the
// attribute spelling that lowers to v_mfma_f32_*_f8f6f4.
const char *kF8F6F4Attrs = "{blocks = 1 : i32, cbsz = 0 : i32, abid = 0 : i32}";
TEST(EmulatorMfma, F8F6F4_16x16x128_Gfx950) {
  runVariant({"cdna4_v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, true,
              "f8E4M3FN", false, "gfx950", false, kF8F6F4Attrs});
}
TEST(EmulatorMfma, F8F6F4_32x32x64_Gfx950) {
  runVariant({"cdna4_v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, true, "f8E4M3FN",
              false, "gfx950", false, kF8F6F4Attrs});
}
// Every finite e4m3fn code may appear (subnormals up to +-448).
TEST(EmulatorMfma, F8F6F4_16x16x128_Gfx950_FullRange) {
  runVariant({"cdna4_v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, true,
              "f8E4M3FN", false, "gfx950", true, kF8F6F4Attrs});
}
TEST(EmulatorMfma, F8F6F4_32x32x64_Gfx950_FullRange) {
  runVariant({"cdna4_v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, true, "f8E4M3FN",
              false, "gfx950", true, kF8F6F4Attrs});
}

std::string f8f6f4Kernel(const std::string &shape, const std::string &elem,
                         int lenC, const std::string &target) {
  std::string vc = "vector<" + std::to_string(lenC) + "xf32>";
  std::string body = "%a = arith.constant dense<1.0> : vector<32x" + elem +
                     ">\n"
                     "%c = arith.constant dense<0.0> : " +
                     vc + "\n%d = amdgpu.mfma " + shape + " %a * %a + %c " +
                     kF8F6F4Attrs + " blgp = none : vector<32x" + elem +
                     ">, vector<32x" + elem + ">, " + vc + "\n";
  return kernel("%A: memref<?xf32, #gpu.address_space<global>>", body, 64,
                target);
}

TEST(EmulatorMfma, F8F6F4RejectedOnGfx942) {
  for (auto [shape, lenC] : {std::pair{"16x16x128", 4}, {"32x32x64", 16}}) {
    std::string e = loadError(f8f6f4Kernel(shape, "f8E4M3FN", lenC, "gfx942"));
    EXPECT_NE(e.find("'amdgpu.mfma'"), std::string::npos) << e;
    EXPECT_NE(e.find(std::string("v_mfma_f32_") + shape +
                     "_f8f6f4) exists on gfx950 (CDNA4) only"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("tessel.target is gfx942"), std::string::npos) << e;
  }
  // The same kernel loads for gfx950.
  EXPECT_EQ(loadError(f8f6f4Kernel("16x16x128", "f8E4M3FN", 4, "gfx950")), "");
}

TEST(EmulatorMfma, F8F6F4RejectsOtherOperandFormats) {
  // fnuz fp8 has no 32-element form (MLIR's verifier says so at load).
  std::string e =
      loadError(f8f6f4Kernel("16x16x128", "f8E4M3FNUZ", 4, "gfx950"));
  EXPECT_NE(e.find("vector<32xf8E4M3FNUZ>"), std::string::npos) << e;
  // Only e4m3fn operands are emulated (bf8 would need CBSZ/BLGP formats).
  e = loadError(f8f6f4Kernel("32x32x64", "f8E5M2", 16, "gfx950"));
  EXPECT_NE(e.find("'amdgpu.mfma'"), std::string::npos) << e;
  EXPECT_NE(e.find("unsupported mfma variant 32x32x64"), std::string::npos)
      << e;
}

// The shared table reader: the cells of a small table, and a clear error
// for a missing file, a malformed cell, ragged rows and a file without a
// table.
TEST(MfmaLayoutCsv, ReadsCellsAndRejectsBadTables) {
  auto write = [](const std::string &name, const std::string &text) {
    std::string path = ::testing::TempDir() + "/" + name;
    std::FILE *f = std::fopen(path.c_str(), "w");
    EXPECT_TRUE(f) << path;
    if (f) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
    return path;
  };
  std::string error;
  auto good = tessel::test::readMfmaLayoutCsv(
      write("mfma_good.csv", "Architecture: X\nA[M][K],0,1\n"
                             "0,v0{0}.[7:0],v0{0}.[15:8]\n"
                             "1,v1{33},v12{5}.[31:24]\n\ntrailer\n"),
      error);
  ASSERT_EQ(good.size(), 2u) << error;
  ASSERT_EQ(good[1].size(), 2u);
  EXPECT_EQ(good[0][1].reg, 0);
  EXPECT_EQ(good[0][1].lane, 0);
  EXPECT_EQ(good[0][1].lo, 8);
  EXPECT_EQ(good[1][0].reg, 1);
  EXPECT_EQ(good[1][0].lane, 33);
  EXPECT_EQ(good[1][0].lo, 0);
  EXPECT_EQ(good[1][1].reg, 12);
  EXPECT_EQ(good[1][1].lo, 24);

  struct Bad {
    const char *name, *text, *message;
  };
  const Bad bad[] = {
      {"mfma_cell.csv", "A[M][K],0\n0,v0(0)\n", "cell 'v0(0)'"},
      {"mfma_bits.csv", "A[M][K],0\n0,v0{0}.[7:8]\n", "cell 'v0{0}.[7:8]'"},
      {"mfma_ragged.csv", "A[M][K],0,1\n0,v0{0},v1{0}\n1,v0{1}\n",
       "row has 1 cells, the first has 2"},
      {"mfma_empty.csv", "Architecture: X\n", "no table"},
  };
  for (const Bad &b : bad) {
    error.clear();
    EXPECT_TRUE(
        tessel::test::readMfmaLayoutCsv(write(b.name, b.text), error).empty())
        << b.name;
    EXPECT_NE(error.find(b.message), std::string::npos) << error;
  }
  error.clear();
  EXPECT_TRUE(
      tessel::test::readMfmaLayoutCsv("/nonexistent/mfma.csv", error).empty());
  EXPECT_NE(error.find("cannot open /nonexistent/mfma.csv"), std::string::npos)
      << error;
}

} // namespace
