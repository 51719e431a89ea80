//===- ApiValidationTest.cpp - indexer_k_cache_write argument checks ------===//
//
// Every argument of tessel_indexer_k_cache_write is checked; a bad one gives
// TESSEL_ERROR_INVALID_ARGUMENT and a message naming it. Runs on the emu
// device with the fake emulator plugin (validation runs before dispatch).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

using namespace tessel_test;

namespace {

class IndexerValidation : public ::testing::Test {
protected:
  static constexpr int64_t T = 5, BS = 16, NB = 4;
  void SetUp() override {
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
              TESSEL_SUCCESS);
    ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
        << tessel_last_error();
    kbuf.assign(T * 256 + 64, 0);
    k = makeTensor(align(kbuf.data()), TESSEL_DTYPE_BF16, {T, 128}, {256, 1});
    slots.assign(T, 0);
    for (int64_t t = 0; t < T; ++t)
      slots[t] = t * 3;
    s = makeTensor(slots.data(), TESSEL_DTYPE_I64, {T}, {1});
    cbuf.assign(NB * BS * 132 + 64, 0);
    c = makeTensor(align(cbuf.data()), TESSEL_DTYPE_U8, {NB, BS, 1, 132},
                   {BS * 132, 132, 132, 1});
  }
  void TearDown() override { tessel_context_destroy(ctx); }

  static void *align(uint8_t *p) {
    return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(p) + 63) &
                                    ~uintptr_t(63));
  }

  // Applies a mutation and expects INVALID_ARGUMENT naming `what`.
  void expectBad(std::function<void()> mutate, const std::string &what) {
    SetUp(); // fresh valid tensors
    mutate();
    tessel_status st = tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr);
    EXPECT_EQ(st, TESSEL_ERROR_INVALID_ARGUMENT) << what;
    std::string msg = tessel_last_error();
    EXPECT_NE(msg.find(what), std::string::npos)
        << "expected '" << what << "' in: " << msg;
    TearDown();
  }

  tessel_context *ctx = nullptr;
  std::vector<uint8_t> kbuf, cbuf;
  std::vector<int64_t> slots;
  tessel_tensor k, s, c;
};

} // namespace

TEST_F(IndexerValidation, ValidCallReachesDispatch) {
  // Without a bundle the valid call fails only for want of a kernel.
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL);
  EXPECT_NE(std::string(tessel_last_error()).find("no code object"),
            std::string::npos);
  // Zero tokens is a no-op, whatever the bundle.
  k.shape[0] = 0;
  s.shape[0] = 0;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_SUCCESS);
}

TEST_F(IndexerValidation, StridesOfEmptyAndSizeOneDimsDoNotMatter) {
  // An empty batch as numpy describes it: every stride 0. A no-op, whatever
  // the strides and pointers of the empty tensors.
  k = makeTensor(nullptr, TESSEL_DTYPE_F32, {0, 128}, {0, 0});
  s = makeTensor(reinterpret_cast<void *>(3), TESSEL_DTYPE_I64, {0}, {0});
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  k.strides[1] = -5;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  // One token: the row stride and the slot stride are never used. The call
  // passes validation and stops only for want of a kernel.
  TearDown();
  SetUp();
  k.shape[0] = 1;
  k.strides[0] = 0;
  s.shape[0] = 1;
  s.strides[0] = -7;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL)
      << tessel_last_error();
  // A size-1 dimension of the cache may have any stride, even a negative one.
  c.strides[2] = -1;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL)
      << tessel_last_error();
  // With tokens, the inner stride of k still must be 1.
  k.strides[1] = 0;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(tessel_last_error()).find("k: inner stride must be 1, got 0"),
      std::string::npos)
      << tessel_last_error();
  TearDown();
  SetUp();
}

TEST_F(IndexerValidation, NullPointers) {
  EXPECT_EQ(tessel_indexer_k_cache_write(nullptr, &k, &s, &c, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("ctx is null"),
            std::string::npos);
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, nullptr, &s, &c, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("k is null"),
            std::string::npos);
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, nullptr, &c, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("slot_mapping is null"),
            std::string::npos);
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, nullptr, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("kv_cache is null"),
            std::string::npos);
  TearDown();
  expectBad([&] { k.data = nullptr; }, "k: data is null");
  expectBad([&] { s.data = nullptr; }, "slot_mapping: data is null");
  expectBad([&] { c.data = nullptr; }, "kv_cache: data is null");
  SetUp();
}

TEST_F(IndexerValidation, K) {
  TearDown();
  expectBad([&] { k.dtype = TESSEL_DTYPE_F16; },
            "k: dtype must be f32 or bf16, got f16");
  expectBad([&] { k.dtype = static_cast<tessel_dtype>(99); },
            "k: dtype must be f32 or bf16, got invalid");
  expectBad([&] { k.rank = 3; }, "k: rank must be 2, got 3");
  expectBad([&] { k.rank = -1; }, "k: rank must be 2, got -1");
  expectBad([&] { k.shape[1] = 64; }, "k: shape[1] (head_dim) must be 128");
  expectBad([&] { k.shape[0] = -1; }, "k: shape[0] = -1 is negative");
  expectBad([&] { k.strides[1] = 2; }, "k: inner stride must be 1, got 2");
  expectBad([&] { k.strides[0] = 100; },
            "k: row stride 100 is smaller than a row (128 elements");
  expectBad([&] { k.strides[0] = -256; }, "k: strides[0] = -256 is negative");
  expectBad([&] { k.strides[0] = 130; },
            "k: row stride 130 must be a multiple of 8 elements");
  expectBad([&] { k.data = static_cast<uint8_t *>(k.data) + 2; }, "k: data");
  expectBad([&] { k.data = static_cast<uint8_t *>(k.data) + 2; },
            "is not 16-byte aligned");
  expectBad(
      [&] {
        k.shape[0] = int64_t(1) << 40;
        s.shape[0] = k.shape[0];
      },
      "k: shape[0] (T) must be in [0, 2147483647], got 1099511627776");
  expectBad([&] { k.strides[0] = (INT64_MAX / 16) * 8; },
            "k: extent overflows 64 bits");
  SetUp();
}

TEST_F(IndexerValidation, SlotMapping) {
  TearDown();
  expectBad([&] { s.dtype = TESSEL_DTYPE_I32; },
            "slot_mapping: dtype must be int64, got int32");
  expectBad([&] { s.rank = 2; }, "slot_mapping: rank must be 1, got 2");
  expectBad([&] { s.shape[0] = 4; },
            "slot_mapping: shape[0] = 4 does not match T = 5 (k shape[0])");
  expectBad([&] { s.strides[0] = 2; },
            "slot_mapping: must be contiguous; strides[0] = 2, expected 1");
  expectBad([&] { s.data = static_cast<uint8_t *>(s.data) + 4; },
            "slot_mapping: data");
  // Slots past the cache (emu reads them: device memory is host memory).
  expectBad([&] { slots[3] = NB * BS; },
            "slot_mapping[3] = 64 is past the cache (num_blocks * "
            "block_size = 64)");
  expectBad([&] { slots[0] = INT64_MAX; }, "slot_mapping[0] = ");
  SetUp();
  // Negative slots are skipped, not errors.
  slots[1] = -1;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL);
}

TEST_F(IndexerValidation, KvCache) {
  TearDown();
  expectBad([&] { c.dtype = TESSEL_DTYPE_FP8_E4M3FN; },
            "kv_cache: dtype must be uint8, got fp8_e4m3fn");
  expectBad([&] { c.rank = 3; }, "kv_cache: rank must be 4, got 3");
  expectBad([&] { c.shape[3] = 128; },
            "kv_cache: shape[3] (row_bytes) must be 132, got 128");
  expectBad([&] { c.shape[2] = 2; }, "kv_cache: shape[2] must be 1, got 2");
  expectBad([&] { c.shape[0] = 0; },
            "kv_cache: shape[0] (num_blocks) must be >= 1, got 0");
  expectBad([&] { c.shape[1] = 0; }, "kv_cache: shape[1] (block_size)");
  expectBad([&] { c.strides[0] = BS * 132 + 16; },
            "kv_cache: must be contiguous; strides[0] = 2128, expected 2112");
  expectBad([&] { c.strides[1] = 264; },
            "kv_cache: must be contiguous; strides[1] = 264, expected 132");
  expectBad([&] { c.strides[3] = 2; },
            "kv_cache: must be contiguous; strides[3] = 2, expected 1");
  expectBad([&] { c.data = static_cast<uint8_t *>(c.data) + 8; },
            "kv_cache: data");
  expectBad(
      [&] {
        c.shape[0] = int64_t(1) << 40;
        c.shape[1] = int64_t(1) << 30;
        c.strides[0] = c.shape[1] * 132;
      },
      "kv_cache: extent overflows 64 bits");
  SetUp();
  // The size-1 dimension may have any stride.
  c.strides[2] = 7;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_NO_KERNEL);
}

TEST_F(IndexerValidation, LastErrorIsPerThread) {
  k.dtype = TESSEL_DTYPE_I32;
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &k, &s, &c, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  std::string other;
  std::thread th([&] { other = tessel_last_error(); });
  th.join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(tessel_last_error()).find("k: dtype"),
            std::string::npos);
}
