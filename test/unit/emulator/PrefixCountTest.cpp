//===- PrefixCountTest.cpp - tile.prefix_count on the emulator ------------===//
//
// Lowers a small tile kernel that stores the positions and the total of a
// tile.prefix_count, runs it on the emulator for gfx942, gfx950 and sm_90,
// and checks them against a direct count: positions[i] is the number of
// true mask elements before i, total the number of true elements. Masks
// cover every register repeat and wave of the layout (several elements per
// lane, several waves, a tile larger than one pass of the workgroup), all
// false, all true and random densities.
//
//===----------------------------------------------------------------------===//
#include "TileKernel.h"

#include <random>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

/// y[i] = position of element i, y[size] = total, for the mask x[i] != 0.
std::string countKernel(int64_t size, int64_t waves) {
  std::string n = std::to_string(size);
  std::string t = "tensor<" + n + "xi32>", m = "tensor<" + n + "xi1>";
  return "tile.kernel @c(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) attributes "
         "{knobs = [#tile.knob<\"num_waves\" : i32 = " +
         std::to_string(waves) +
         ">]} {\n"
         "  %o = tile.range 0 to " +
         n + " : " + t + "\n" + "  %v = tile.load %x[%o] : !tile.ptr<i32>, " +
         t + " -> " + t + "\n" + "  %z = arith.constant dense<0> : " + t +
         "\n" + "  %m = arith.cmpi ne, %v, %z : " + t + "\n" +
         "  %p, %total = tile.prefix_count %m : " + m + " -> " + t + "\n" +
         "  tile.store %p, %y[%o] : " + t + ", !tile.ptr<i32>, " + t + "\n" +
         "  %end = arith.constant " + n + " : i32\n" +
         "  tile.store %total, %y[%end] : i32, !tile.ptr<i32>, i32\n" +
         "  tile.return\n}\n";
}

void runCount(const std::string &target, int64_t size, int64_t waves,
              double density) {
  SCOPED_TRACE(target + " size " + std::to_string(size) + " waves " +
               std::to_string(waves) + " density " + std::to_string(density));
  std::unique_ptr<Module> emu =
      emulatorModuleFor(countKernel(size, waves), "kernel.mlir", target, {});
  ASSERT_TRUE(emu);
  std::string name = emu->kernelNames()[0];
  auto bs = emu->knownBlockSize(name);
  ASSERT_TRUE(bs && bs->has_value());
  std::mt19937 rng(31 + (int)size);
  std::bernoulli_distribution d(density);
  std::vector<int32_t> x(size), y(size + 1, -7);
  for (int32_t &v : x)
    v = d(rng) ? 1 + (int32_t)(rng() % 5) : 0;
  EXPECT_OK(emu->launchArgs(name, {1, 1, 1}, **bs,
                            {KernelArg::buffer(x.data(), (int64_t)x.size()),
                             KernelArg::buffer(y.data(), (int64_t)y.size())}));
  int32_t before = 0;
  int bad = 0;
  for (int64_t i = 0; i < size; ++i) {
    if (y[i] != before && bad++ < 5)
      ADD_FAILURE() << "position of " << i << ": " << y[i] << ", expected "
                    << before;
    before += x[i] != 0;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(y[size], before) << "total";
}

TEST(PrefixCount, AcrossLanesWavesAndRepeats) {
  for (const char *t : {"gfx942", "gfx950", "sm_90"})
    for (double density : {0.0, 0.3, 0.9, 1.0}) {
      runCount(t, 1024, 4, density); // 4 per lane in one pass
      runCount(t, 4096, 2, density); // register repeats as well
    }
}

TEST(PrefixCount, OneWave) {
  for (const char *t : {"gfx942", "sm_90"})
    runCount(t, 256, 1, 0.5);
}

} // namespace
