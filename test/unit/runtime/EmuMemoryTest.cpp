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

namespace {

// Buffers from tessel_malloc, sized by the test; the tensors may claim more.
class EmuExtents : public EmuMemory {
protected:
  static constexpr int64_t T = 8, BS = 16, NB = 2;
  void SetUp() override {
    EmuMemory::SetUp();
    ASSERT_EQ(tessel_malloc(ctx, T * 128 * 2, &kbuf), TESSEL_SUCCESS);
    ASSERT_EQ(tessel_malloc(ctx, T * 8, &sbuf), TESSEL_SUCCESS);
    ASSERT_EQ(tessel_malloc(ctx, NB * BS * 132, &cbuf), TESSEL_SUCCESS);
    memset(sbuf, 0, T * 8); // slot 0 for every token
    k = makeTensor(kbuf, TESSEL_DTYPE_BF16, {T, 128}, {128, 1});
    s = makeTensor(sbuf, TESSEL_DTYPE_I64, {T}, {1});
    c = makeTensor(cbuf, TESSEL_DTYPE_U8, {NB, BS, 1, 132},
                   {BS * 132, 132, 132, 1});
  }
  void TearDown() override {
    for (void *p : {kbuf, sbuf, cbuf})
      EXPECT_EQ(tessel_free(ctx, p), TESSEL_SUCCESS);
    EmuMemory::TearDown();
  }
  // Expects INVALID_ARGUMENT naming the argument and the overrun.
  void expectOverrun(const std::string &arg) {
    EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
              TESSEL_ERROR_INVALID_ARGUMENT);
    std::string msg = tessel_last_error();
    EXPECT_TRUE(contains(msg, "indexer_k_cache_write: " + arg + ": the "))
        << msg;
    EXPECT_TRUE(contains(msg, "run past the end of its buffer")) << msg;
    EXPECT_TRUE(contains(msg, "follows from its shape, strides and dtype"))
        << msg;
  }
  void *kbuf = nullptr, *sbuf = nullptr, *cbuf = nullptr;
  tessel_tensor k, s, c;
};

} // namespace

TEST_F(EmuExtents, FittingTensorsReachDispatch) {
  // No bundle is loaded: a valid call fails only for want of a kernel.
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL)
      << tessel_last_error();
}

TEST_F(EmuExtents, KDeclaredF32OverBf16Data) {
  k.dtype = TESSEL_DTYPE_F32; // twice the bytes of the buffer
  expectOverrun("k");
}

TEST_F(EmuExtents, MoreTokensThanTheSlotBuffer) {
  // k is big enough for 2*T bf16 rows; the slot buffer holds only T.
  void *big = nullptr;
  ASSERT_EQ(tessel_malloc(ctx, 2 * T * 128 * 2, &big), TESSEL_SUCCESS);
  k = makeTensor(big, TESSEL_DTYPE_BF16, {2 * T, 128}, {128, 1});
  s.shape[0] = 2 * T;
  expectOverrun("slot_mapping");
  EXPECT_EQ(tessel_free(ctx, big), TESSEL_SUCCESS);
}

TEST_F(EmuExtents, MoreBlocksThanTheCacheBuffer) {
  c.shape[0] = NB + 1;
  expectOverrun("kv_cache");
}

TEST_F(EmuExtents, RowStridePastTheBuffer) {
  k.strides[0] = 256; // rows 256 elements apart over a buffer of 128-wide rows
  expectOverrun("k");
}

TEST_F(EmuExtents, InteriorPointerPastTheEnd) {
  k = makeTensor(static_cast<char *>(kbuf) + 256, TESSEL_DTYPE_BF16, {T, 128},
                 {128, 1});
  expectOverrun("k");
}

TEST_F(EmuExtents, FreeingTwiceIsAnError) {
  void *p = nullptr;
  ASSERT_EQ(tessel_malloc(ctx, 64, &p), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_free(ctx, p), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_free(ctx, p), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tessel_last_error(), "is not a live buffer"))
      << tessel_last_error();
}

TEST_F(EmuMemory, MemcpyPastABufferIsAnError) {
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(tessel_malloc(ctx, 100, &a), TESSEL_SUCCESS);
  ASSERT_EQ(tessel_malloc(ctx, 200, &b), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_memcpy(ctx, a, b, 100, 2), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_memcpy(ctx, a, b, 150, 2), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(
      contains(tessel_last_error(), "tessel_memcpy: dst: the 150 bytes from"))
      << tessel_last_error();
  EXPECT_EQ(tessel_memcpy(ctx, static_cast<char *>(b) + 150, a, 60, 2),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tessel_last_error(), "tessel_memcpy: dst"))
      << tessel_last_error();
  EXPECT_EQ(tessel_memcpy(ctx, b, a, 101, 2), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tessel_last_error(), "tessel_memcpy: src"))
      << tessel_last_error();
  EXPECT_EQ(tessel_free(ctx, a), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_free(ctx, b), TESSEL_SUCCESS);
}

TEST_F(EmuMemory, BuffersAreSharedByBothEmuTargets) {
  // Emu memory is host memory: a buffer from one emu context may be used and
  // freed through another, and is checked there too.
  tessel_context *other = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &other), TESSEL_SUCCESS)
      << tessel_last_error();
  void *p = nullptr, *q = nullptr;
  ASSERT_EQ(tessel_malloc(ctx, 64, &p), TESSEL_SUCCESS);
  ASSERT_EQ(tessel_malloc(ctx, 64, &q), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_memcpy(other, p, q, 65, 2), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(tessel_last_error(), "run past the end of its buffer"))
      << tessel_last_error();
  EXPECT_EQ(tessel_free(other, p), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_free(other, q), TESSEL_SUCCESS);
  tessel_context_destroy(other);
}
