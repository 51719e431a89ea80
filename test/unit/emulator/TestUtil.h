//===- TestUtil.h - Helpers for the emulator tests --------------*- C++ -*-===//
#ifndef TESSEL_TEST_EMULATOR_TESTUTIL_H
#define TESSEL_TEST_EMULATOR_TESTUTIL_H

#include "tessel/Emulator/Emulator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace tessel::emu::test {

/// Wraps a kernel body into a SIMT IR module with one gpu.func @k.
inline std::string kernel(const std::string &args, const std::string &body,
                          unsigned block = 64,
                          const std::string &target = "gfx942",
                          const std::string &attributions = "") {
  return "module attributes {gpu.container_module} {\n"
         "gpu.module @m {\n"
         "gpu.func @k(" +
         args + ") " + attributions +
         " kernel attributes {known_block_size = array<i32: " +
         std::to_string(block) + ", 1, 1>, tessel.target = \"" + target +
         "\"} {\n" + body + "\ngpu.return\n}\n}\n}\n";
}

inline std::unique_ptr<Module> load(const std::string &text) {
  auto m = Module::parse(text);
  if (!m) {
    ADD_FAILURE() << llvm::toString(m.takeError()) << "\n" << text;
    return nullptr;
  }
  return std::move(*m);
}

inline std::string errOf(llvm::Error e) {
  return e ? llvm::toString(std::move(e)) : std::string();
}

inline std::string loadError(const std::string &text) {
  auto m = Module::parse(text);
  if (m)
    return std::string();
  return llvm::toString(m.takeError());
}

inline float f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    std::string err_ = ::tessel::emu::test::errOf(expr);                       \
    EXPECT_TRUE(err_.empty()) << err_;                                         \
  } while (0)

} // namespace tessel::emu::test

#endif
