//===- LdsAtomicTest.cpp - tile.atomic_rmw on shared memory ---------------===//
//
// Lowers a tile kernel that counts 256 keys into 64 bins of a shared-memory
// tile with tile.atomic_rmw add (and, in a second kernel, keeps the
// per-bin maximum with tile.atomic_rmw max), runs it on the emulator for
// gfx942, gfx950 and sm_90 and checks the tile read back afterwards
// against a direct evaluation, and the old values each lane got: for a bin
// added to c times, exactly 0..c-1 (every atomic saw a distinct earlier
// state); for max, the initial value or another lane's of the same bin.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include <algorithm>
#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

/// y[0..64) = the tile after kind(tile[x[i] & 63], v[i]) for all i, from
/// `init`; x[i] = the old value lane i got. v[i] = 1 for add, i for max.
std::string binsKernel(const std::string &kind, int init) {
  std::string v = kind == "add" ? "%one" : "%r";
  return "#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = "
         "[0]}>\n"
         "tile.kernel @bins(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) "
         "attributes {knobs = [#tile.knob<\"num_waves\" : i32 = 4>]} {\n"
         "  %r = tile.range 0 to 256 : tensor<256xi32>\n"
         "  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<256xi32> -> "
         "tensor<256xi32>\n"
         "  %z = arith.constant dense<" +
         std::to_string(init) +
         "> : tensor<64xi32>\n"
         "  %bins = tile.local_alloc (%z : tensor<64xi32>) : "
         "!tile.memdesc<64xi32, #s1>\n"
         "  %c63 = arith.constant dense<63> : tensor<256xi32>\n"
         "  %b = arith.andi %v, %c63 : tensor<256xi32>\n"
         "  %one = arith.constant dense<1> : tensor<256xi32>\n"
         "  %old = tile.atomic_rmw " +
         kind + ", %bins[%b], " + v +
         " : !tile.memdesc<64xi32, #s1>, tensor<256xi32>, tensor<256xi32>\n"
         "  %h = tile.local_load %bins : !tile.memdesc<64xi32, #s1> -> "
         "tensor<64xi32>\n"
         "  %o = tile.range 0 to 64 : tensor<64xi32>\n"
         "  tile.store %h, %y[%o] : tensor<64xi32>, !tile.ptr<i32>, "
         "tensor<64xi32>\n"
         "  tile.store %old, %x[%r] : tensor<256xi32>, !tile.ptr<i32>, "
         "tensor<256xi32>\n"
         "  tile.return\n}\n";
}

struct BinsRun {
  std::vector<int32_t> keys, olds, bins;
};

bool run(const std::string &target, const std::string &kind, int init,
         BinsRun &out) {
  std::unique_ptr<Module> emu =
      emulatorModuleFor(binsKernel(kind, init), "kernel.mlir", target, {});
  if (!emu)
    return false;
  std::string name = emu->kernelNames()[0];
  auto bs = emu->knownBlockSize(name);
  if (!bs || !bs->has_value())
    return false;
  std::mt19937 rng(41);
  // Few distinct bins, so that many lanes of a wave race for one word.
  std::uniform_int_distribution<int32_t> d(0, 9);
  out.keys.resize(256);
  for (int32_t &k : out.keys)
    k = d(rng) * 7 + 64 * (int32_t)(rng() % 3);
  out.olds = out.keys;
  out.bins.assign(64, -9);
  EXPECT_OK(emu->launchArgs(name, {1, 1, 1}, **bs,
                            {KernelArg::buffer(out.olds.data(), 256),
                             KernelArg::buffer(out.bins.data(), 64)}));
  return true;
}

TEST(LdsAtomicRmw, AddCountsAndOldValues) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"}) {
    SCOPED_TRACE(t);
    BinsRun r;
    ASSERT_TRUE(run(t, "add", 0, r));
    std::vector<std::vector<int32_t>> seen(64);
    for (int i = 0; i < 256; ++i)
      seen[r.keys[i] & 63].push_back(r.olds[i]);
    for (int b = 0; b < 64; ++b) {
      EXPECT_EQ(r.bins[b], (int32_t)seen[b].size()) << "bin " << b;
      std::sort(seen[b].begin(), seen[b].end());
      for (size_t j = 0; j < seen[b].size(); ++j)
        EXPECT_EQ(seen[b][j], (int32_t)j) << "old values of bin " << b;
    }
  }
}

TEST(LdsAtomicRmw, MaxKeepsLargest) {
  for (const char *t : {"gfx942", "sm_90"}) {
    SCOPED_TRACE(t);
    BinsRun r;
    ASSERT_TRUE(run(t, "max", -1, r));
    std::vector<int32_t> want(64, -1);
    for (int i = 0; i < 256; ++i)
      want[r.keys[i] & 63] = std::max(want[r.keys[i] & 63], i);
    for (int b = 0; b < 64; ++b)
      EXPECT_EQ(r.bins[b], want[b]) << "bin " << b;
    // An old value is the initial one or another lane's of the same bin.
    for (int i = 0; i < 256; ++i) {
      int32_t o = r.olds[i];
      EXPECT_TRUE(o == -1 || (o >= 0 && o < 256 && o != i &&
                              (r.keys[o] & 63) == (r.keys[i] & 63)))
          << "lane " << i << " saw " << o;
    }
  }
}

} // namespace
