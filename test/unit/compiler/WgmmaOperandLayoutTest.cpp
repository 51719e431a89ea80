//===- WgmmaOperandLayoutTest.cpp - wgmma operands in shared memory -------===//
//
// A tile.dot operand already in shared memory is read by wgmma through a
// descriptor, while tile.async_copy_global_to_local wrote it at the
// addresses its lowering derives from the buffer's `#tile.shared` layout
// (planLdsAccess on the copy's layout composed with the inverse of the
// shared one). For the layout sharedMatrixOperandLayout gives (K of 32, 64
// and 128 bytes, A and B), every element a lane copies must land on the
// byte the matrix unit reads for it. The unit's address is modelled here
// from the PTX ISA, independently of the lowering: the descriptor names
// the unswizzled K-major address row * Kbytes + kbyte of a buffer aligned
// to 8 * Kbytes, and the swizzle mode of Kbytes (128/64/32 bytes) XORs
// address bits 4.. (the 16-byte chunk, 3/2/1 bits) with bits 7.. .
//
//===----------------------------------------------------------------------===//

#include "ConvertLayout.h"
#include "DotToWgmma.h"
#include "Gf2.h"

#include "tessel/Dialect/Tile/LinearLayoutConversions.h"
#include "tessel/Dialect/Tile/TileDialect.h"
#include "tessel/Lowering/TargetInfo.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace tessel;
using tessel::test::gf2Image;
using tile::LinearLayout;

namespace {

/// The byte wgmma reads for (row, kbyte) of an operand with rows of
/// `kBytes` bytes in the swizzle mode of the same width.
int64_t wgmmaByte(int64_t row, int64_t kb, int64_t kBytes) {
  int64_t addr = row * kBytes + kb;
  int64_t bits = llvm::Log2_64(kBytes / 16); // 3, 2 or 1
  int64_t mask = (int64_t(1) << bits) - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}

struct Fixture : public ::testing::Test {
  mlir::MLIRContext ctx;
  Fixture() { ctx.loadDialect<tile::TileDialect>(); }
};

// fp8, 4 warps copying 16 consecutive bytes of K per lane (as the
// pipelined GEMM's copies do): A is [64, K] (row-major copy layout), B is
// [K, 64] with K fastest.
TEST_F(Fixture, AsyncCopyWritesWhatWgmmaReads) {
  auto info = TargetInfo::create("sm_90a");
  ASSERT_TRUE(info);
  for (int64_t kBytes : {32, 64, 128})
    for (unsigned opIdx : {0u, 1u}) {
      SCOPED_TRACE("K bytes " + std::to_string(kBytes) + " operand " +
                   (opIdx ? "B" : "A"));
      auto layout = sharedMatrixOperandLayout(&ctx, opIdx, kBytes, 1);
      ASSERT_TRUE(succeeded(layout));
      int64_t kLanes = kBytes / 16, rowLanes = 32 / kLanes;
      std::string dist =
          opIdx == 0
              ? "#tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [" +
                    std::to_string(rowLanes) + ", " + std::to_string(kLanes) +
                    "], wavesPerCTA = [4, 1], order = [1, 0]}>"
              : "#tile.blocked<{sizePerThread = [16, 1], threadsPerWave = [" +
                    std::to_string(kLanes) + ", " + std::to_string(rowLanes) +
                    "], wavesPerCTA = [1, 4], order = [0, 1]}>";
      llvm::SmallVector<int64_t> shape =
          opIdx == 0 ? llvm::SmallVector<int64_t>{64, kBytes}
                     : llvm::SmallVector<int64_t>{kBytes, 64};
      std::string err;
      auto d =
          tile::toLinearLayout(shape, mlir::parseAttribute(dist, &ctx), &err);
      ASSERT_TRUE(succeeded(d)) << err;
      auto sh = tile::toLinearLayout(shape, *layout, &err);
      ASSERT_TRUE(succeeded(sh)) << err;
      auto toOffset = d->invertAndCompose(*sh, &err);
      ASSERT_TRUE(succeeded(toOffset)) << err;
      auto side = planLdsAccess(*toOffset, 1, *info, &err);
      ASSERT_TRUE(succeeded(side)) << err;
      // The copy moves 16 bytes at a time.
      EXPECT_EQ(side->vecBits, 4u);
      std::set<int64_t> seen;
      for (int32_t w = 0; w < d->getInDimSize("wave"); ++w)
        for (int32_t l = 0; l < d->getInDimSize("lane"); ++l)
          for (int32_t r = 0; r < d->getInDimSize("register"); ++r) {
            llvm::SmallVector<int32_t> c = d->apply({r, l, w});
            int64_t row = opIdx == 0 ? c[0] : c[1];
            int64_t kb = opIdx == 0 ? c[1] : c[0];
            int64_t copied = gf2Image(side->reg, r) ^ gf2Image(side->lane, l) ^
                             gf2Image(side->wave, w);
            ASSERT_EQ(copied, wgmmaByte(row, kb, kBytes))
                << "row " << row << " k byte " << kb;
            seen.insert(copied);
          }
      // Every byte of the buffer is written exactly once.
      EXPECT_EQ(int64_t(seen.size()), 64 * kBytes);
    }
}

// Only one swizzle span per row has such a layout.
TEST_F(Fixture, OtherKExtentsHaveNone) {
  for (int64_t kBytes : {16, 48, 256})
    EXPECT_TRUE(failed(sharedMatrixOperandLayout(&ctx, 0, kBytes, 1)));
}

} // namespace
