//===- ArithTest.cpp - arith/math/vector semantics of the emulator --------===//
#include "TestUtil.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

const char *G = "#gpu.address_space<global>";

std::string gbuf(const std::string &name, const std::string &t) {
  return "%" + name + ": memref<?x" + t + ", " + G + ">";
}

// Integer ops on i32 with wrap-around, per lane inputs a[t], b[t].
TEST(EmulatorArith, IntegerOpsWrap) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xi32, #gpu.address_space<global>>
    %b = memref.load %B[%t] : memref<?xi32, #gpu.address_space<global>>
    %c8 = arith.constant 8 : index
    %base = arith.muli %t, %c8 : index
    %r0 = arith.addi %a, %b : i32
    %r1 = arith.subi %a, %b : i32
    %r2 = arith.muli %a, %b : i32
    %r3 = arith.divsi %a, %b : i32
    %r4 = arith.remsi %a, %b : i32
    %r5 = arith.shrsi %a, %b : i32
    %r6 = arith.maxui %a, %b : i32
    %r7 = arith.floordivsi %a, %b : i32
    %rs = vector.from_elements %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : vector<8xi32>
    vector.store %rs, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<8xi32>
  )";
  auto m = load(kernel(gbuf("A", "i32") + ", " + gbuf("B", "i32") + ", " +
                           gbuf("O", "i32"),
                       body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(64), B(64), O(64 * 8, 0);
  for (int i = 0; i < 64; ++i) {
    A[i] = (i % 2 ? -1 : 1) * (0x7fffff00 + i * 3);
    B[i] = (i % 3 == 0 ? -1 : 1) * (i % 7 + 1);
  }
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 64),
                           KernelArg::buffer(B.data(), 64),
                           KernelArg::buffer(O.data(), 64 * 8)}));
  for (int i = 0; i < 64; ++i) {
    int64_t a = A[i], b = B[i];
    auto wrap = [](int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; };
    EXPECT_EQ(O[i * 8 + 0], wrap(a + b)) << i;
    EXPECT_EQ(O[i * 8 + 1], wrap(a - b)) << i;
    EXPECT_EQ(O[i * 8 + 2], wrap(a * b)) << i;
    EXPECT_EQ(O[i * 8 + 3], (int32_t)(a / b)) << i;
    EXPECT_EQ(O[i * 8 + 4], (int32_t)(a % b)) << i;
    EXPECT_EQ(O[i * 8 + 5],
              (uint32_t)b < 32 ? (int32_t)(a >> b) : (a < 0 ? -1 : 0))
        << i;
    EXPECT_EQ((uint32_t)O[i * 8 + 6], std::max((uint32_t)a, (uint32_t)b)) << i;
    int64_t fd = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
      fd -= 1;
    EXPECT_EQ(O[i * 8 + 7], (int32_t)fd) << i;
  }
}

TEST(EmulatorArith, DivisionByZeroIsReported) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xi32, #gpu.address_space<global>>
    %z = arith.constant 0 : i32
    %q = arith.divui %a, %z : i32 loc("div.mlir":7:9)
    memref.store %q, %A[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel(gbuf("A", "i32"), body));
  ASSERT_TRUE(m);
  std::vector<int32_t> A(64, 1);
  std::string e = errOf(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                                      {KernelArg::buffer(A.data(), 64)}));
  EXPECT_NE(e.find("div.mlir:7:9"), std::string::npos) << e;
  EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
}

// i8 / i1 narrow integer types wrap at their width; extsi/extui/trunci.
TEST(EmulatorArith, NarrowIntegersAndCasts) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %x8 = arith.trunci %ti : i32 to i8
    %c100 = arith.constant 100 : i8
    %s8 = arith.addi %x8, %c100 : i8
    %se = arith.extsi %s8 : i8 to i32
    %ue = arith.extui %s8 : i8 to i32
    %c1 = arith.constant 1 : i1
    %odd8 = arith.trunci %ti : i32 to i1
    %flip = arith.xori %odd8, %c1 : i1
    %fe = arith.extui %flip : i1 to i32
    %fs = arith.extsi %flip : i1 to i32
    %c4 = arith.constant 4 : index
    %base = arith.muli %t, %c4 : index
    %v = vector.from_elements %se, %ue, %fe, %fs : vector<4xi32>
    vector.store %v, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<4xi32>
  )";
  auto m = load(kernel(gbuf("O", "i32"), body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(256, 7);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 256)}));
  for (int t = 0; t < 64; ++t) {
    int8_t s = (int8_t)(uint8_t)(t + 100);
    EXPECT_EQ(O[t * 4 + 0], (int32_t)s);
    EXPECT_EQ(O[t * 4 + 1], (int32_t)(uint8_t)s);
    EXPECT_EQ(O[t * 4 + 2], (t & 1) ? 0 : 1);
    EXPECT_EQ(O[t * 4 + 3], (t & 1) ? 0 : -1);
  }
}

// Float ops on f32, including the NaN/signed-zero rules of maximumf,
// minimumf, maxnumf, minnumf and all 16 cmpf predicates.
TEST(EmulatorArith, FloatMinMaxAndCompare) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xf32, #gpu.address_space<global>>
    %b = memref.load %B[%t] : memref<?xf32, #gpu.address_space<global>>
    %r0 = arith.maximumf %a, %b : f32
    %r1 = arith.minimumf %a, %b : f32
    %r2 = arith.maxnumf %a, %b : f32
    %r3 = arith.minnumf %a, %b : f32
    %r4 = arith.addf %a, %b : f32
    %r5 = arith.divf %a, %b : f32
    %r6 = math.fma %a, %b, %a : f32
    %r7 = arith.negf %a : f32
    %v = vector.from_elements %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : vector<8xf32>
    %c8 = arith.constant 8 : index
    %base = arith.muli %t, %c8 : index
    vector.store %v, %O[%base] : memref<?xf32, #gpu.address_space<global>>, vector<8xf32>
    %p0 = arith.cmpf false, %a, %b : f32
    %p1 = arith.cmpf oeq, %a, %b : f32
    %p2 = arith.cmpf ogt, %a, %b : f32
    %p3 = arith.cmpf oge, %a, %b : f32
    %p4 = arith.cmpf olt, %a, %b : f32
    %p5 = arith.cmpf ole, %a, %b : f32
    %p6 = arith.cmpf one, %a, %b : f32
    %p7 = arith.cmpf ord, %a, %b : f32
    %p8 = arith.cmpf ueq, %a, %b : f32
    %p9 = arith.cmpf ugt, %a, %b : f32
    %p10 = arith.cmpf uge, %a, %b : f32
    %p11 = arith.cmpf ult, %a, %b : f32
    %p12 = arith.cmpf ule, %a, %b : f32
    %p13 = arith.cmpf une, %a, %b : f32
    %p14 = arith.cmpf uno, %a, %b : f32
    %p15 = arith.cmpf true, %a, %b : f32
    %pv = vector.from_elements %p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %p8, %p9, %p10, %p11, %p12, %p13, %p14, %p15 : vector<16xi1>
    %pi = arith.extui %pv : vector<16xi1> to vector<16xi8>
    %c16 = arith.constant 16 : index
    %pb = arith.muli %t, %c16 : index
    vector.store %pi, %P[%pb] : memref<?xi8, #gpu.address_space<global>>, vector<16xi8>
  )";
  auto m = load(kernel(gbuf("A", "f32") + ", " + gbuf("B", "f32") + ", " +
                           gbuf("O", "f32") + ", " + gbuf("P", "i8"),
                       body));
  ASSERT_TRUE(m);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> vals = {0.0f, -0.0f,    1.5f,      -2.25f,
                             nan,  INFINITY, -INFINITY, 3.0f};
  std::vector<float> A(64), B(64), O(64 * 8);
  std::vector<uint8_t> P(64 * 16);
  for (int i = 0; i < 64; ++i) {
    A[i] = vals[i % 8];
    B[i] = vals[i / 8];
  }
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 64),
                           KernelArg::buffer(B.data(), 64),
                           KernelArg::buffer(O.data(), 64 * 8),
                           KernelArg::buffer(P.data(), 64 * 16)}));
  auto same = [](float x, float y) {
    return (std::isnan(x) && std::isnan(y)) || bits(x) == bits(y);
  };
  for (int i = 0; i < 64; ++i) {
    float a = A[i], b = B[i];
    bool un = std::isnan(a) || std::isnan(b);
    // maximumf: NaN if any NaN; +0 > -0.
    float mx =
        un ? nan : (a == b ? (std::signbit(a) ? b : a) : (a > b ? a : b));
    float mn =
        un ? nan : (a == b ? (std::signbit(a) ? a : b) : (a < b ? a : b));
    float mxn = std::isnan(a) ? b : std::isnan(b) ? a : mx;
    float mnn = std::isnan(a) ? b : std::isnan(b) ? a : mn;
    EXPECT_TRUE(same(O[i * 8 + 0], mx)) << a << " " << b;
    EXPECT_TRUE(same(O[i * 8 + 1], mn)) << a << " " << b;
    EXPECT_TRUE(same(O[i * 8 + 2], mxn)) << a << " " << b;
    EXPECT_TRUE(same(O[i * 8 + 3], mnn)) << a << " " << b;
    EXPECT_TRUE(same(O[i * 8 + 4], a + b));
    EXPECT_TRUE(same(O[i * 8 + 5], a / b));
    EXPECT_TRUE(same(O[i * 8 + 6], std::fma(a, b, a)));
    EXPECT_TRUE(same(O[i * 8 + 7], -a));
    bool lt = !un && a < b, eq = !un && a == b, gt = !un && a > b;
    bool expect[16] = {false,
                       eq,
                       gt,
                       gt || eq,
                       lt,
                       lt || eq,
                       lt || gt,
                       !un,
                       un || eq,
                       un || gt,
                       un || gt || eq,
                       un || lt,
                       un || lt || eq,
                       un || lt || gt,
                       un,
                       true};
    for (int p = 0; p < 16; ++p)
      EXPECT_EQ(P[i * 16 + p], expect[p] ? 1 : 0)
          << "predicate " << p << " a=" << a << " b=" << b;
  }
}

// All ten cmpi predicates on signed/unsigned interpretations.
TEST(EmulatorArith, IntegerCompare) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xi16, #gpu.address_space<global>>
    %b = memref.load %B[%t] : memref<?xi16, #gpu.address_space<global>>
    %p0 = arith.cmpi eq, %a, %b : i16
    %p1 = arith.cmpi ne, %a, %b : i16
    %p2 = arith.cmpi slt, %a, %b : i16
    %p3 = arith.cmpi sle, %a, %b : i16
    %p4 = arith.cmpi sgt, %a, %b : i16
    %p5 = arith.cmpi sge, %a, %b : i16
    %p6 = arith.cmpi ult, %a, %b : i16
    %p7 = arith.cmpi ule, %a, %b : i16
    %p8 = arith.cmpi ugt, %a, %b : i16
    %p9 = arith.cmpi uge, %a, %b : i16
    %pv = vector.from_elements %p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %p8, %p9 : vector<10xi1>
    %pi = arith.extui %pv : vector<10xi1> to vector<10xi8>
    %c10 = arith.constant 10 : index
    %pb = arith.muli %t, %c10 : index
    vector.store %pi, %P[%pb] : memref<?xi8, #gpu.address_space<global>>, vector<10xi8>
  )";
  auto m = load(kernel(gbuf("A", "i16") + ", " + gbuf("B", "i16") + ", " +
                           gbuf("P", "i8"),
                       body));
  ASSERT_TRUE(m);
  int16_t vals[8] = {0, 1, -1, 32767, -32768, 5, -5, 100};
  std::vector<int16_t> A(64), B(64);
  std::vector<uint8_t> P(640);
  for (int i = 0; i < 64; ++i)
    A[i] = vals[i % 8], B[i] = vals[i / 8];
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(A.data(), 64),
                           KernelArg::buffer(B.data(), 64),
                           KernelArg::buffer(P.data(), 640)}));
  for (int i = 0; i < 64; ++i) {
    int a = A[i], b = B[i];
    unsigned ua = (uint16_t)A[i], ub = (uint16_t)B[i];
    bool e[10] = {
        a == b,  a != b, a<b, a <= b, a> b, a >= b, ua<ub, ua <= ub, ua> ub,
        ua >= ub};
    for (int p = 0; p < 10; ++p)
      EXPECT_EQ(P[i * 10 + p], e[p] ? 1 : 0) << p << " " << a << " " << b;
  }
}

// bf16 truncation rounds to nearest even; f16 round trip; fptosi saturates.
TEST(EmulatorArith, FloatConversions) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xf32, #gpu.address_space<global>>
    %h = arith.truncf %a : f32 to bf16
    %hb = arith.bitcast %h : bf16 to i16
    %f = arith.truncf %a : f32 to f16
    %fb = arith.bitcast %f : f16 to i16
    %back = arith.extf %h : bf16 to f32
    %i = arith.fptosi %a : f32 to i32
    %c4 = arith.constant 4 : index
    %base = arith.muli %t, %c4 : index
    %i1 = arith.index_cast %base : index to i32
    memref.store %hb, %H[%t] : memref<?xi16, #gpu.address_space<global>>
    memref.store %fb, %F[%t] : memref<?xi16, #gpu.address_space<global>>
    memref.store %back, %E[%t] : memref<?xf32, #gpu.address_space<global>>
    memref.store %i, %I[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel(gbuf("A", "f32") + ", " + gbuf("H", "i16") + ", " +
                           gbuf("F", "i16") + ", " + gbuf("E", "f32") + ", " +
                           gbuf("I", "i32"),
                       body));
  ASSERT_TRUE(m);
  std::vector<float> A(64), E(64);
  std::vector<uint16_t> H(64), F(64);
  std::vector<int32_t> I(64);
  // bf16 ties: 0x3f808000 is exactly between 0x3f80 and 0x3f81 -> even 0x3f80;
  // 0x3f818000 -> 0x3f82.
  uint32_t special[] = {0x3f808000, 0x3f818000, 0x3f808001, 0x7f7fffff,
                        0x00000001, 0x80000000, 0x7fc00000, 0xff800000};
  for (int i = 0; i < 64; ++i)
    A[i] = i < 8 ? f32(special[i]) : (i - 32) * 1.37e3f;
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 64), KernelArg::buffer(H.data(), 64),
       KernelArg::buffer(F.data(), 64), KernelArg::buffer(E.data(), 64),
       KernelArg::buffer(I.data(), 64)}));
  EXPECT_EQ(H[0], 0x3f80);
  EXPECT_EQ(H[1], 0x3f82);
  EXPECT_EQ(H[2], 0x3f81);
  EXPECT_EQ(H[3], 0x7f80); // rounds up to +inf
  EXPECT_EQ(H[4], 0x0000);
  EXPECT_EQ(H[5], 0x8000);
  EXPECT_EQ(H[6] & 0x7f80, 0x7f80);
  EXPECT_NE(H[6] & 0x7f, 0);
  EXPECT_EQ(H[7], 0xff80);
  EXPECT_EQ(I[3], std::numeric_limits<int32_t>::max()); // saturates
  EXPECT_EQ(I[6], 0);                                   // NaN -> 0
  EXPECT_EQ(I[7], std::numeric_limits<int32_t>::min());
  for (int i = 8; i < 64; ++i) {
    // Reference bf16 RNE: round the 16 dropped bits.
    uint32_t u = bits(A[i]);
    uint32_t r = (u >> 16) + (((u & 0xffff) > 0x8000 ||
                               ((u & 0xffff) == 0x8000 && ((u >> 16) & 1)))
                                  ? 1
                                  : 0);
    EXPECT_EQ(H[i], (uint16_t)r) << A[i];
    EXPECT_EQ(bits(E[i]), r << 16);
    EXPECT_EQ(I[i], (int32_t)std::trunc(A[i]));
#ifdef __FLT16_MAX__
    // f16: the value is an integer multiple of 1.37e3 well inside range;
    // compare with the compiler's own float->half conversion.
    _Float16 hf = (_Float16)A[i];
    uint16_t hb;
    std::memcpy(&hb, &hf, 2);
    EXPECT_EQ(F[i], hb) << A[i];
#endif
  }
}

// vector ops: broadcast, extract/insert (static and dynamic), shuffle,
// strided slices, bitcast, reduction.
TEST(EmulatorArith, VectorOps) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %b = vector.broadcast %ti : i32 to vector<4xi32>
    %step = arith.constant dense<[0, 10, 20, 30]> : vector<4xi32>
    %v = arith.addi %b, %step : vector<4xi32>
    %c3 = arith.constant 3 : index
    %dyn = arith.andi %t, %c3 : index
    %e = vector.extract %v[%dyn] : i32 from vector<4xi32>
    %s = vector.shuffle %v, %step [3, 2, 5, 0] : vector<4xi32>, vector<4xi32>
    %ins = vector.insert %e, %s [1] : i32 into vector<4xi32>
    %sl = vector.extract_strided_slice %ins {offsets = [1], sizes = [2], strides = [1]} : vector<4xi32> to vector<2xi32>
    %z = arith.constant dense<0> : vector<4xi32>
    %is = vector.insert_strided_slice %sl, %z {offsets = [2], strides = [1]} : vector<2xi32> into vector<4xi32>
    %sum = vector.reduction <add>, %is : vector<4xi32> into i32
    %mx = vector.reduction <maxsi>, %v : vector<4xi32> into i32
    %bc = vector.bitcast %v : vector<4xi32> to vector<8xi16>
    %hi = vector.extract %bc[1] : i16 from vector<8xi16>
    %hix = arith.extui %hi : i16 to i32
    %r = vector.from_elements %e, %sum, %mx, %hix : vector<4xi32>
    %c4 = arith.constant 4 : index
    %base = arith.muli %t, %c4 : index
    vector.store %r, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<4xi32>
  )";
  auto m = load(kernel(gbuf("O", "i32"), body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(256);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 256)}));
  for (int t = 0; t < 64; ++t) {
    int v[4] = {t, t + 10, t + 20, t + 30};
    int e = v[t & 3];
    int s[4] = {v[3], v[2], 10, v[0]};
    s[1] = e;
    int sum = s[1] + s[2];
    EXPECT_EQ(O[t * 4 + 0], e);
    EXPECT_EQ(O[t * 4 + 1], sum);
    EXPECT_EQ(O[t * 4 + 2], t + 30);
    EXPECT_EQ(O[t * 4 + 3], 0); // high half of a small positive i32
  }
}

TEST(EmulatorArith, MathOps) {
  std::string body = R"(
    %t = gpu.thread_id x
    %a = memref.load %A[%t] : memref<?xf32, #gpu.address_space<global>>
    %r0 = math.exp2 %a : f32
    %r1 = math.sqrt %a : f32
    %r2 = math.floor %a : f32
    %r3 = math.ceil %a : f32
    %r4 = math.absf %a : f32
    %r5 = math.copysign %r4, %a : f32
    %r6 = math.tanh %a : f32
    %r7 = math.log2 %a : f32
    %v = vector.from_elements %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : vector<8xf32>
    %c8 = arith.constant 8 : index
    %base = arith.muli %t, %c8 : index
    vector.store %v, %O[%base] : memref<?xf32, #gpu.address_space<global>>, vector<8xf32>
  )";
  auto m = load(kernel(gbuf("A", "f32") + ", " + gbuf("O", "f32"), body));
  ASSERT_TRUE(m);
  std::vector<float> A(64), O(512);
  for (int i = 0; i < 64; ++i)
    A[i] = (i - 20) * 0.37f;
  EXPECT_OK(m->launchArgs(
      "k", {1, 1, 1}, {64, 1, 1},
      {KernelArg::buffer(A.data(), 64), KernelArg::buffer(O.data(), 512)}));
  for (int i = 0; i < 64; ++i) {
    float a = A[i];
    EXPECT_FLOAT_EQ(O[i * 8 + 0], std::exp2(a));
    if (a >= 0) {
      EXPECT_FLOAT_EQ(O[i * 8 + 1], std::sqrt(a));
    }
    EXPECT_EQ(O[i * 8 + 2], std::floor(a));
    EXPECT_EQ(O[i * 8 + 3], std::ceil(a));
    EXPECT_EQ(O[i * 8 + 4], std::fabs(a));
    EXPECT_EQ(O[i * 8 + 5], a);
    EXPECT_FLOAT_EQ(O[i * 8 + 6], std::tanh(a));
    if (a > 0) {
      EXPECT_FLOAT_EQ(O[i * 8 + 7], std::log2(a));
    }
  }
}

} // namespace
