//===- TileKernel.h - A tile kernel lowered into the emulator ---*- C++ -*-===//
#ifndef TESSEL_TEST_EMULATOR_TILEKERNEL_H
#define TESSEL_TEST_EMULATOR_TILEKERNEL_H

#include "TestUtil.h"
#include "TileLowering.h"

#include <memory>
#include <string>

namespace tessel::emu::test {

/// Lowers tile IR `src` (named `name` in locations) for `target` with
/// `knobs` and loads the SIMT IR into the emulator; null on failure, with a
/// test failure naming the diagnostics.
inline std::unique_ptr<Module>
emulatorModuleFor(const std::string &src, const std::string &name,
                  const std::string &target, const tessel::KnobBindings &knobs,
                  const tessel::TileToSimtOptions &options = {}) {
  auto ctx = tessel::test::makeTesselContext();
  auto m =
      tessel::test::lowerTileForTest(*ctx, src, name, target, knobs, options);
  if (!m)
    return nullptr;
  auto emu = Module::fromModule(*m);
  if (!emu) {
    ADD_FAILURE() << llvm::toString(emu.takeError());
    return nullptr;
  }
  return std::move(*emu);
}

/// A lowered kernel of one tile.kernel, with its launch shape.
struct LoweredKernel {
  std::unique_ptr<Module> emu;
  std::string name;
  Dim3 block{};
};

/// Lowers `src` (one tile.kernel, no knob templates) for `target`; a null
/// `emu` on failure, with a test failure saying why.
inline LoweredKernel lowerOneKernel(const std::string &src,
                                    const std::string &target) {
  LoweredKernel k;
  k.emu = emulatorModuleFor(src, "kernel.mlir", target, {});
  if (!k.emu)
    return k;
  k.name = k.emu->kernelNames()[0];
  auto bs = k.emu->knownBlockSize(k.name);
  if (!bs || !bs->has_value()) {
    ADD_FAILURE() << "kernel " << k.name << " has no known block size"
                  << (bs ? std::string()
                         : ": " + llvm::toString(bs.takeError()));
    k.emu.reset();
    return k;
  }
  k.block = **bs;
  return k;
}

} // namespace tessel::emu::test

#endif
