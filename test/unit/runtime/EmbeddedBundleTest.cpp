//===- EmbeddedBundleTest.cpp - A bundle built into the runtime -----------===//
//
// This binary links the runtime objects with a bundle embedded at build time
// (packed by tessel-bundle from data/embedded.json).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace tessel_test;

namespace tessel {
void embeddedBundle(const void **data, size_t *size);
} // namespace tessel

TEST(EmbeddedBundle, IsBuiltInAndVerifies) {
  const void *data = nullptr;
  size_t size = 0;
  tessel::embeddedBundle(&data, &size);
  ASSERT_NE(data, nullptr);
  ASSERT_GT(size, 64u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 16, 0u);
  tessel::Bundle b;
  std::string err;
  ASSERT_TRUE(tessel::parseBundle(data, size, b, err)) << err;
  ASSERT_EQ(b.entries.size(), 2u);
  EXPECT_EQ(b.compilerVersion, "embedded test");
  EXPECT_EQ(b.entries[0].target, "gfx942");
}

TEST(EmbeddedBundle, ContextsUseItUnlessTesselBundleIsSet) {
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH), 0);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx942", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  alignas(64) static float k[2 * 128];
  alignas(64) static int64_t slots[2] = {3, 0};
  alignas(64) static uint8_t cache[1 * 4 * 132];
  for (int i = 0; i < 256; ++i)
    k[i] = (i % 128) * (i < 128 ? 1.0f : -0.5f);
  tessel_tensor tk = makeTensor(k, TESSEL_DTYPE_F32, {2, 128}, {128, 1});
  tessel_tensor ts = makeTensor(slots, TESSEL_DTYPE_I64, {2}, {1});
  tessel_tensor tc = makeTensor(cache, TESSEL_DTYPE_U8, {1, 4, 1, 132},
                                {4 * 132, 132, 132, 1});
  ASSERT_EQ(tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  // Token 0 (amax 127) went to slot 3: scale = 127 / 224 (gfx942: fp8_max
  // of the e4m3fnuz writer is 224).
  float scale;
  memcpy(&scale, cache + 4 * 128 + 3 * 4, 4);
  EXPECT_FLOAT_EQ(scale, 127.0f / 224.0f);
  // Its largest value becomes 224 = 1.75 * 2^7: fnuz exponent field 7 + 8 =
  // 15, mantissa 6 -> code 0x7e.
  EXPECT_EQ(cache[3 * 128 + 127], 0x7e);
  tessel_context_destroy(ctx);

  // TESSEL_BUNDLE replaces the built-in bundle.
  tessel::Bundle other;
  other.entries.push_back(fakeIndexerEntry("gfx950", 1, 1));
  std::string path = writeBundle(other);
  ASSERT_EQ(tessel_config_set("TESSEL_BUNDLE", path.c_str()), 0);
  ASSERT_EQ(tessel_context_create("emu:gfx942", 0, &ctx), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr),
            TESSEL_ERROR_NO_KERNEL);
  tessel_context_destroy(ctx);
  tessel_config_set("TESSEL_BUNDLE", "");
  unlink(path.c_str());
}
