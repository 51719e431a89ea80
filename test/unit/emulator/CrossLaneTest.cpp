//===- CrossLaneTest.cpp - DPP, swizzles, permutes, ballots ---------------===//
//
// Expected lane movements are written from the CDNA3 ISA guide's DPP and
// DS_SWIZZLE/DS_BPERMUTE descriptions and LLVM's AMDGPUModifierSyntax
// (dpp_ctrl, row_mask, bank_mask, bound_ctrl):
// - a row is 16 lanes; a bank is 4 consecutive lanes of a row (bank_mask bit
//   b enables lanes 4b..4b+3 of every row);
// - row_mask / bank_mask disable the *write*: a disabled lane keeps `old`;
// - a source lane that is out of range (shifted out of its row / the wave)
//   or inactive in EXEC is invalid: bound_ctrl writes 0, else `old` is kept;
// - row_shl:n reads lane l+n, row_shr:n lane l-n, row_ror:n lane
//   (l-n) mod 16 of the same row; row_mirror lane 15-l, row_half_mirror 7-l
//   within 8 lanes; quad_perm:[a,b,c,d] lane 4*(l/4)+sel[l%4];
// - row_bcast:15 writes lane 15 of each row into the next row,
//   row_bcast:31 writes lane 31 into rows 2 and 3;
// - wave_shl/shr/rol/ror:1 move by one lane across the whole wave.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <functional>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

struct DppCase {
  std::string ctrl; // text after "amdgpu.dpp %old %src "
  // Source lane for lane l, or -1 when out of range.
  std::function<int(int)> src;
  unsigned rowMask = 0xf, bankMask = 0xf;
  bool boundCtrl = false;
};

int oldOf(int l) { return -(l + 1); }
int srcOf(int l) { return 1000 + l; }

void runDpp(const std::vector<DppCase> &cases, bool evenLanesOnly) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %k1000 = arith.constant 1000 : i32
    %src = arith.addi %ti, %k1000 : i32
    %z = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %t1 = arith.addi %ti, %one : i32
    %old = arith.subi %z, %t1 : i32
    %odd = arith.andi %ti, %one : i32
    %even = arith.cmpi eq, %odd, %z : i32
    %true = arith.constant true
  )";
  body += std::string("%cond = ") + (evenLanesOnly
                                         ? "arith.andi %even, %true : i1\n"
                                         : "arith.ori %even, %true : i1\n");
  body += "scf.if %cond {\n";
  for (size_t c = 0; c < cases.size(); ++c) {
    const DppCase &d = cases[c];
    std::string attrs =
        "{row_mask = " + std::to_string(d.rowMask) +
        " : i32, bank_mask = " + std::to_string(d.bankMask) +
        " : i32, bound_ctrl = " + (d.boundCtrl ? "true" : "false") + "}";
    std::string n = std::to_string(c);
    body += "%r" + n + " = amdgpu.dpp %old %src " + d.ctrl + " " + attrs +
            " : i32\n";
    body +=
        "%o" + n + " = arith.constant " + std::to_string(c * 64) + " : index\n";
    body += "%i" + n + " = arith.addi %o" + n + ", %t : index\n";
    body += "memref.store %r" + n + ", %O[%i" + n +
            "] : memref<?xi32, #gpu.address_space<global>>\n";
  }
  body += "}\n";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(cases.size() * 64, 12345);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), O.size())}));
  for (size_t c = 0; c < cases.size(); ++c) {
    const DppCase &d = cases[c];
    for (int l = 0; l < 64; ++l) {
      bool active = !evenLanesOnly || l % 2 == 0;
      int got = O[c * 64 + l];
      if (!active) {
        EXPECT_EQ(got, 12345);
        continue;
      }
      int expect;
      bool writeEnabled =
          ((d.rowMask >> (l / 16)) & 1) && ((d.bankMask >> ((l % 16) / 4)) & 1);
      int s = d.src(l);
      bool valid = s >= 0 && s < 64 && (!evenLanesOnly || s % 2 == 0);
      if (!writeEnabled)
        expect = oldOf(l);
      else if (valid)
        expect = srcOf(s);
      else
        expect = d.boundCtrl ? 0 : oldOf(l);
      EXPECT_EQ(got, expect)
          << d.ctrl << " row_mask=" << d.rowMask << " bank_mask=" << d.bankMask
          << " bound_ctrl=" << d.boundCtrl << " lane " << l;
    }
  }
}

std::vector<DppCase> allCases() {
  std::vector<DppCase> cs;
  auto rowOf = [](int l) { return l / 16; };
  for (bool bc : {false, true}) {
    cs.push_back({"row_shr(1 : i32)",
                  [](int l) { return l % 16 >= 1 ? l - 1 : -1; }, 0xf, 0xf,
                  bc});
    cs.push_back({"row_shr(3 : i32)",
                  [](int l) { return l % 16 >= 3 ? l - 3 : -1; }, 0xf, 0xf,
                  bc});
    cs.push_back({"row_shl(2 : i32)",
                  [](int l) { return l % 16 <= 13 ? l + 2 : -1; }, 0xf, 0xf,
                  bc});
    cs.push_back({"row_shl(15 : i32)",
                  [](int l) { return l % 16 == 0 ? l + 15 : -1; }, 0xf, 0xf,
                  bc});
    cs.push_back({"row_ror(4 : i32)",
                  [=](int l) { return rowOf(l) * 16 + (l % 16 + 12) % 16; },
                  0xf, 0xf, bc});
    cs.push_back({"row_mirror",
                  [=](int l) { return rowOf(l) * 16 + 15 - l % 16; }, 0xf, 0xf,
                  bc});
    cs.push_back({"row_half_mirror",
                  [](int l) { return (l / 8) * 8 + 7 - l % 8; }, 0xf, 0xf, bc});
    cs.push_back({"quad_perm([2 : i32, 0 : i32, 3 : i32, 1 : i32])",
                  [](int l) {
                    int sel[4] = {2, 0, 3, 1};
                    return (l / 4) * 4 + sel[l % 4];
                  },
                  0xf, 0xf, bc});
    cs.push_back({"row_bcast_15",
                  [](int l) { return l >= 16 ? (l / 16) * 16 - 1 : -1; }, 0xa,
                  0xf, bc});
    cs.push_back({"row_bcast_31", [](int l) { return l >= 32 ? 31 : -1; }, 0xc,
                  0xf, bc});
    cs.push_back({"wave_shr", [](int l) { return l - 1; }, 0xf, 0xf, bc});
    cs.push_back({"wave_shl", [](int l) { return l + 1 < 64 ? l + 1 : -1; },
                  0xf, 0xf, bc});
    cs.push_back(
        {"wave_ror", [](int l) { return (l + 63) % 64; }, 0xf, 0xf, bc});
    cs.push_back(
        {"wave_rol", [](int l) { return (l + 1) % 64; }, 0xf, 0xf, bc});
    // Masks: rows 0 and 2 only, banks 1 and 3 only.
    cs.push_back({"row_shr(1 : i32)",
                  [](int l) { return l % 16 >= 1 ? l - 1 : -1; }, 0x5, 0xa,
                  bc});
    cs.push_back({"row_mirror",
                  [=](int l) { return rowOf(l) * 16 + 15 - l % 16; }, 0x2, 0x6,
                  bc});
  }
  return cs;
}

TEST(EmulatorDpp, LaneMovementsFullExec) { runDpp(allCases(), false); }
TEST(EmulatorDpp, InactiveSourceLanesAreInvalid) { runDpp(allCases(), true); }

// Literal spot checks of the ISA examples: row_bcast:15 with row_mask 0xa
// (the scan idiom) fills rows 1 and 3 with lanes 15 and 47.
TEST(EmulatorDpp, RowBcast15ScanIdiom) {
  std::vector<DppCase> cs = {
      {"row_bcast_15", [](int l) { return l >= 16 ? (l / 16) * 16 - 1 : -1; },
       0xa, 0xf, false}};
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %z = arith.constant 0 : i32
    %r = amdgpu.dpp %z %ti row_bcast_15 {row_mask = 0xa : i32} : i32
    memref.store %r, %O[%t] : memref<?xi32, #gpu.address_space<global>>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64, -1);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), 64)}));
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(O[l], 0);
    EXPECT_EQ(O[16 + l], 15);
    EXPECT_EQ(O[32 + l], 0);
    EXPECT_EQ(O[48 + l], 47);
  }
}

TEST(EmulatorCrossLane, SwizzlePermuteReadlaneBallotMbcnt) {
  std::string body = R"(
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %k = arith.constant 100 : i32
    %v = arith.addi %ti, %k : i32
    %sw = amdgpu.swizzle_bitmode %v 28 1 2 : i32
    %qoff = arith.constant 32795 : i32
    %qs = rocdl.ds_swizzle %v, %qoff : (i32, i32) -> i32
    %boff = arith.constant 1055 : i32
    %bs = rocdl.ds_swizzle %v, %boff : (i32, i32) -> i32
    %c63 = arith.constant 63 : i32
    %rev = arith.subi %c63, %ti : i32
    %c4 = arith.constant 4 : i32
    %addr = arith.muli %rev, %c4 : i32
    %bp = rocdl.ds_bpermute %addr, %v : (i32, i32) -> i32
    %c37 = arith.constant 37 : i32
    %rl = rocdl.readlane %v, %c37 : (i32, i32) -> i32
    %c3 = arith.constant 3 : i32
    %m3 = arith.remui %ti, %c3 : i32
    %z = arith.constant 0 : i32
    %p = arith.cmpi eq, %m3, %z : i32
    %bal = rocdl.ballot %p : i64
    %bl = arith.trunci %bal : i64 to i32
    %c32 = arith.constant 32 : i64
    %bh64 = arith.shrui %bal, %c32 : i64
    %bh = arith.trunci %bh64 : i64 to i32
    %lo = rocdl.mbcnt.lo %bl, %z : (i32, i32) -> i32
    %cnt = rocdl.mbcnt.hi %bh, %lo : (i32, i32) -> i32
    %ps = amdgpu.permlane_swap %v 32 : i32
    %ps16 = amdgpu.permlane_swap %v 16 : i32
    %odd = arith.andi %ti, %c3 : i32
    %first = arith.cmpi ne, %odd, %z : i32
    %rf = scf.if %first -> (i32) {
      %x = rocdl.readfirstlane %v : i32
      scf.yield %x : i32
    } else {
      scf.yield %z : i32
    }
    %r = vector.from_elements %sw, %qs, %bs, %bp, %rl, %bl, %bh, %cnt, %ps, %ps16, %rf : vector<11xi32>
    %c11 = arith.constant 11 : index
    %base = arith.muli %t, %c11 : index
    vector.store %r, %O[%base] : memref<?xi32, #gpu.address_space<global>>, vector<11xi32>
  )";
  auto m = load(kernel("%O: memref<?xi32, #gpu.address_space<global>>", body));
  ASSERT_TRUE(m);
  std::vector<int32_t> O(64 * 11);
  EXPECT_OK(m->launchArgs("k", {1, 1, 1}, {64, 1, 1},
                          {KernelArg::buffer(O.data(), O.size())}));
  uint64_t ballot = 0;
  for (int l = 0; l < 64; ++l)
    if (l % 3 == 0)
      ballot |= 1ull << l;
  for (int l = 0; l < 64; ++l) {
    const int32_t *r = &O[l * 11];
    // Bit mode, 32-lane groups: and=0b11100, or=1, xor=2.
    int g = l & 31;
    EXPECT_EQ(r[0], 100 + ((l & ~31) | (((g & 28) | 1) ^ 2))) << l;
    // Quad perm 0x801B: offset bits [7:0] = 0x1B -> sel {3,2,1,0}.
    EXPECT_EQ(r[1], 100 + (l & ~3) + (3 - (l & 3))) << l;
    // Bit mode offset 1055 = and 0x1f, or 0, xor 1 (bits 14:10 = 1).
    EXPECT_EQ(r[2], 100 + (l ^ 1)) << l;
    EXPECT_EQ(r[3], 100 + (63 - l)) << l;
    EXPECT_EQ(r[4], 137);
    EXPECT_EQ((uint32_t)r[5], (uint32_t)ballot);
    EXPECT_EQ((uint32_t)r[6], (uint32_t)(ballot >> 32));
    int below = 0;
    for (int j = 0; j < l; ++j)
      below += (ballot >> j) & 1;
    EXPECT_EQ(r[7], below) << l;
    EXPECT_EQ(r[8], 100 + (l ^ 32)) << l;
    EXPECT_EQ(r[9], 100 + (l ^ 16)) << l;
    EXPECT_EQ(r[10], l % 4 == 0 ? 0 : 101) << "first active lane is 1";
  }
}

} // namespace
