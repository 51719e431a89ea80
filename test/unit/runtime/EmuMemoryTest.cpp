//===- EmuMemoryTest.cpp - The emu device's allocator and extent checks ---===//
//
// Runs on the emu device with the fake emulator plugin.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using namespace tessel_test;

namespace {

bool contains(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

class EmuMemory : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
              TESSEL_SUCCESS);
    ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
        << tessel_last_error();
  }
  void TearDown() override { tessel_context_destroy(ctx); }
  tessel_context *ctx = nullptr;
};

} // namespace

TEST_F(EmuMemory, HugeSizesFailInsteadOfWrappingAround) {
  // SIZE_MAX used to round up to a 264-byte buffer and report success.
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 255, SIZE_MAX - 510}) {
    void *p = reinterpret_cast<void *>(1);
    EXPECT_EQ(tessel_malloc(ctx, bytes, &p), TESSEL_ERROR_INVALID_ARGUMENT)
        << bytes;
    EXPECT_EQ(p, nullptr);
    EXPECT_TRUE(contains(tessel_last_error(), "the size overflows"))
        << tessel_last_error();
  }
  // Too large for the host but no overflow: a clean out-of-memory error.
  void *p = nullptr;
  EXPECT_EQ(tessel_malloc(ctx, size_t(1) << 62, &p), TESSEL_ERROR_DEVICE);
  EXPECT_EQ(p, nullptr);
  EXPECT_TRUE(contains(tessel_last_error(), "out of host memory"))
      << tessel_last_error();
}

TEST_F(EmuMemory, OrdinarySizesWork) {
  for (size_t bytes : {size_t(0), size_t(1), size_t(256), size_t(100000)}) {
    void *p = nullptr;
    ASSERT_EQ(tessel_malloc(ctx, bytes, &p), TESSEL_SUCCESS) << bytes;
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
    memset(p, 0xab, bytes);
    EXPECT_EQ(tessel_free(ctx, p), TESSEL_SUCCESS);
  }
}
