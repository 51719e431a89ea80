//===- ConvertLayoutPlanTest.cpp - Layout-conversion plans ----------------===//
//
// Checks the plans of ConvertLayout.h against a direct simulation of the
// accesses they make: which mechanism is chosen, that every element is
// loaded from the address it was stored at, the vector widths, and the
// number of lanes of one LDS bank row that hit the same bank (counted from
// the byte addresses, not from the plan's own bookkeeping).
//
//===----------------------------------------------------------------------===//

#include "ConvertLayout.h"
#include "Gf2.h"

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace tessel;
using tessel::test::gf2Image;
using tile::LinearLayout;

namespace {

struct Fixture : public ::testing::Test {
  mlir::MLIRContext ctx;
  Fixture() { ctx.loadDialect<tile::TileDialect>(); }

  LinearLayout layout(llvm::ArrayRef<int64_t> shape, const std::string &p) {
    mlir::Attribute a =
        mlir::parseAttribute("#tile.blocked<{" + p + "}>", &ctx);
    EXPECT_TRUE(a);
    std::string err;
    auto l = tile::toLinearLayout(shape, a, &err);
    EXPECT_TRUE(succeeded(l)) << err;
    return *l;
  }
};

/// Worst number of distinct dwords one bank serves in one bank row, over
/// every access instruction of `side`.
unsigned simulatedConflicts(const ConversionPlan::Side &side, int64_t regs,
                            unsigned elemBytes, unsigned lanes,
                            unsigned waves) {
  unsigned width = std::max(4u, (1u << side.vecBits) * elemBytes);
  unsigned perRow = std::max(1u, 128 / width);
  unsigned worst = 1;
  for (unsigned w = 0; w < waves; ++w)
    for (int64_t r = 0; r < regs; r += int64_t(1) << side.vecBits)
      for (unsigned l0 = 0; l0 < lanes; l0 += perRow) {
        std::map<unsigned, std::set<int64_t>> bank; // bank -> dwords
        for (unsigned l = l0; l < l0 + perRow && l < lanes; ++l) {
          int64_t off = gf2Image(side.reg, r) ^ gf2Image(side.lane, l) ^
                        gf2Image(side.wave, w);
          int64_t byte = off * elemBytes;
          for (int64_t d = byte / 4; d < (byte + width) / 4; ++d)
            bank[d % 32].insert(d);
        }
        for (auto &[b, dwords] : bank)
          worst = std::max<unsigned>(worst, dwords.size());
      }
  return worst;
}

/// Every element the destination holds is loaded from where the source
/// stored it.
void expectConsistent(const LinearLayout &src, const LinearLayout &dst,
                      const ConversionPlan &p) {
  std::map<llvm::SmallVector<int32_t>, int64_t> storedAt;
  int32_t nr = src.getInDimSize("register"), nl = src.getInDimSize("lane"),
          nw = src.getInDimSize("wave");
  for (int32_t w = 0; w < nw; ++w)
    for (int32_t l = 0; l < nl; ++l)
      for (int32_t r = 0; r < nr; ++r) {
        int64_t off = gf2Image(p.store.reg, r) ^ gf2Image(p.store.lane, l) ^
                      gf2Image(p.store.wave, w);
        auto [it, fresh] = storedAt.insert({src.apply({r, l, w}), off});
        if (!fresh) { // braced: ASSERT_EQ expands to an if-else
          ASSERT_EQ(it->second, off) << "one element at two addresses";
        }
      }
  for (int32_t w = 0; w < nw; ++w)
    for (int32_t l = 0; l < nl; ++l)
      for (int32_t r = 0; r < dst.getInDimSize("register"); ++r) {
        int64_t off = gf2Image(p.load.reg, r) ^ gf2Image(p.load.lane, l) ^
                      gf2Image(p.load.wave, w);
        ASSERT_EQ(storedAt.at(dst.apply({r, l, w})), off)
            << "register " << r << " lane " << l << " wave " << w;
      }
}

// The 64x128 fp8 conversion of the ISA lit test: 16-byte accesses on both
// sides, no bank conflicts on either.
TEST_F(Fixture, LanesTransposedBytesUse16ByteConflictFreeAccesses) {
  for (const char *target : {"gfx942", "sm_90"}) {
    auto info = TargetInfo::create(target);
    bool w64 = info->waveSize() == 64;
    LinearLayout s = layout(
        {64, 128}, w64 ? "sizePerThread = [1, 16], threadsPerWave = [8, 8], "
                         "wavesPerCTA = [4, 1], order = [1, 0]"
                       : "sizePerThread = [1, 16], threadsPerWave = [4, 8], "
                         "wavesPerCTA = [4, 1], order = [1, 0]");
    LinearLayout d = layout(
        {64, 128}, w64 ? "sizePerThread = [1, 16], threadsPerWave = [32, 2], "
                         "wavesPerCTA = [2, 2], order = [0, 1]"
                       : "sizePerThread = [1, 16], threadsPerWave = [32, 1], "
                         "wavesPerCTA = [2, 2], order = [0, 1]");
    std::string err;
    auto p = planConversion(s, d, 1, *info, &err);
    ASSERT_TRUE(succeeded(p)) << err;
    ASSERT_EQ(p->kind, ConversionPlan::Kind::Lds) << target;
    EXPECT_EQ(p->store.vecBits, 4u);
    EXPECT_EQ(p->load.vecBits, 4u);
    EXPECT_EQ(p->store.accesses, 64 * 128 / (4 * info->waveSize()) / 16);
    EXPECT_EQ(p->numElems, 64 * 128);
    expectConsistent(s, d, *p);
    unsigned lanes = info->waveSize();
    EXPECT_EQ(simulatedConflicts(p->store, p->srcRegs, 1, lanes, 4), 1u)
        << target;
    EXPECT_EQ(simulatedConflicts(p->load, p->dstRegs, 1, lanes, 4), 1u)
        << target;
    EXPECT_EQ(p->store.conflictWays, 1u);
    EXPECT_EQ(p->load.conflictWays, 1u);
  }
}

// A true transpose of f32 (4 per lane along a row -> 4 along a column):
// 16-byte stores, 4-byte loads, both conflict free thanks to the swizzle.
TEST_F(Fixture, TransposedF32IsSwizzledConflictFree) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout s = layout({32, 64}, "sizePerThread = [1, 4], threadsPerWave = "
                                    "[4, 16], wavesPerCTA = [2, 1], order = "
                                    "[1, 0]");
  LinearLayout d = layout({32, 64}, "sizePerThread = [4, 1], threadsPerWave = "
                                    "[16, 4], wavesPerCTA = [1, 2], order = "
                                    "[0, 1]");
  std::string err;
  auto p = planConversion(s, d, 4, *info, &err);
  ASSERT_TRUE(succeeded(p)) << err;
  ASSERT_EQ(p->kind, ConversionPlan::Kind::Lds);
  EXPECT_EQ(p->store.vecBits, 2u);
  EXPECT_EQ(p->load.vecBits, 0u);
  expectConsistent(s, d, *p);
  EXPECT_EQ(simulatedConflicts(p->store, p->srcRegs, 4, 64, 2), 1u);
  EXPECT_EQ(simulatedConflicts(p->load, p->dstRegs, 4, 64, 2), 1u);
}

// Same lanes and waves, other register order: a permutation.
TEST_F(Fixture, RegisterOrderOnlyIsAPermutation) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout s = layout({2, 128}, "sizePerThread = [2, 2], threadsPerWave = "
                                    "[1, 64], wavesPerCTA = [1, 1], order = "
                                    "[1, 0]");
  LinearLayout d = layout({2, 128}, "sizePerThread = [2, 2], threadsPerWave = "
                                    "[1, 64], wavesPerCTA = [1, 1], order = "
                                    "[0, 1]");
  auto p = planConversion(s, d, 4, *info, nullptr);
  ASSERT_TRUE(succeeded(p));
  ASSERT_EQ(p->kind, ConversionPlan::Kind::Registers);
  EXPECT_EQ(p->srcReg, (llvm::SmallVector<int64_t>{0, 2, 1, 3}));
}

// Lanes exchanged inside one wave, one element each: one shuffle.
TEST_F(Fixture, LanePermutationIsAShuffle) {
  auto info = TargetInfo::create("gfx942");
  LinearLayout s = layout({8, 8}, "sizePerThread = [1, 1], threadsPerWave = "
                                  "[8, 8], wavesPerCTA = [1, 1], order = [1, "
                                  "0]");
  LinearLayout d = layout({8, 8}, "sizePerThread = [1, 1], threadsPerWave = "
                                  "[8, 8], wavesPerCTA = [1, 1], order = [0, "
                                  "1]");
  auto p = planConversion(s, d, 4, *info, nullptr);
  ASSERT_TRUE(succeeded(p));
  ASSERT_EQ(p->kind, ConversionPlan::Kind::Shuffle);
  // Destination lane l holds (l % 8, l / 8), which source lane
  // (l % 8) * 8 + l / 8 holds.
  for (int64_t l = 0; l < 64; ++l)
    EXPECT_EQ(gf2Image(p->laneBases, l) ^ p->laneConst[0], (l % 8) * 8 + l / 8);
}

TEST_F(Fixture, MismatchedLaneCountsAreRejected) {
  auto info = TargetInfo::create("sm_90");
  LinearLayout s = layout({64}, "sizePerThread = [1], threadsPerWave = [64], "
                                "wavesPerCTA = [1], order = [0]");
  std::string err;
  EXPECT_TRUE(failed(planConversion(s, s, 4, *info, &err)));
  EXPECT_NE(err.find("64 and 64 lanes; sm_90 has 32"), std::string::npos)
      << err;
}

} // namespace
