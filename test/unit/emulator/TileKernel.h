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

/// The one kernel of `emu` with its launch shape; a null `emu`, with a test
/// failure saying why, when `emu` is null or does not hold exactly one
/// kernel with a known block size.
inline LoweredKernel oneKernelOf(std::unique_ptr<Module> emu) {
  LoweredKernel k;
  if (!emu)
    return k;
  auto names = emu->kernelNames();
  if (names.size() != 1) {
    ADD_FAILURE() << "expected one kernel, got " << names.size();
    return k;
  }
  auto bs = emu->knownBlockSize(names[0]);
  if (!bs || !bs->has_value()) {
    ADD_FAILURE() << "kernel " << names[0] << " has no known block size"
                  << (bs ? std::string()
                         : ": " + llvm::toString(bs.takeError()));
    return k;
  }
  k.name = names[0];
  k.block = **bs;
  k.emu = std::move(emu);
  return k;
}

/// Lowers `src` (one tile.kernel, no knob templates) for `target`; a null
/// `emu` on failure, with a test failure saying why.
inline LoweredKernel lowerOneKernel(const std::string &src,
                                    const std::string &target) {
  return oneKernelOf(emulatorModuleFor(src, "kernel.mlir", target, {}));
}

} // namespace tessel::emu::test

#endif
