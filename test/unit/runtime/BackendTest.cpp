//===- BackendTest.cpp - Device backends and launch-argument marshalling --===//

#include "Context.h"
#include "Device.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <dlfcn.h>

using namespace tessel;
using namespace tessel_test;

namespace {
bool haveLibrary(const char *name) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h)
    dlclose(h);
  return h != nullptr;
}
} // namespace

TEST(Backends, MissingHipRuntimeGivesAClearError) {
  setHipLibraryNameForTesting("libamdhip64-not-installed.so");
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("hip", 0, &ctx), TESSEL_ERROR_NO_DEVICE);
  EXPECT_EQ(ctx, nullptr);
  std::string msg = tessel_last_error();
  EXPECT_NE(msg.find("the hip device needs the HIP runtime "
                     "(libamdhip64-not-installed.so), which is not installed "
                     "on this machine"),
            std::string::npos)
      << msg;
  setHipLibraryNameForTesting("libamdhip64.so");
}

TEST(Backends, HipOnThisMachine) {
  if (haveLibrary("libamdhip64.so"))
    GTEST_SKIP() << "this machine has a HIP runtime";
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("hip", 0, &ctx), TESSEL_ERROR_NO_DEVICE);
  EXPECT_NE(std::string(tessel_last_error()).find("libamdhip64.so"),
            std::string::npos);
}

TEST(Backends, MissingCudaDriverGivesAClearError) {
  setCudaLibraryNameForTesting("libcuda-not-installed.so.1");
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("cuda", 0, &ctx), TESSEL_ERROR_NO_DEVICE);
  EXPECT_NE(std::string(tessel_last_error())
                .find("the cuda device needs the CUDA driver "
                      "(libcuda-not-installed.so.1)"),
            std::string::npos)
      << tessel_last_error();
  setCudaLibraryNameForTesting("libcuda.so.1");
}

TEST(Backends, MissingEmulatorGivesAClearError) {
  // The emulator library is loaded once per process (ctest runs each test in
  // its own process; a whole-binary run may have loaded it already).
  if (void *h = dlopen(FAKE_EMU_PATH, RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(h);
    GTEST_SKIP() << "the emulator library is already loaded";
  }
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", "/nonexistent/libx.so"),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_NO_DEVICE);
  EXPECT_NE(std::string(tessel_last_error()).find("libtessel_emu.so"),
            std::string::npos)
      << tessel_last_error();
  EXPECT_NE(std::string(tessel_last_error()).find("/nonexistent/libx.so"),
            std::string::npos);
}

TEST(Backends, AutoFallsBackToEmu) {
  if (haveLibrary("libcuda.so.1") || haveLibrary("libamdhip64.so"))
    GTEST_SKIP() << "this machine has a GPU runtime";
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("auto", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_STREQ(tessel_context_device_kind(ctx), "emu");
  EXPECT_STREQ(tessel_context_arch(ctx), "gfx942");
  EXPECT_EQ(tessel_context_cu_count(ctx), 304);
  tessel_context_destroy(ctx);
  EXPECT_EQ(tessel_context_create("tpu", 0, &ctx),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("unknown device 'tpu'"),
            std::string::npos);
  EXPECT_EQ(tessel_context_create("emu", -1, &ctx),
            TESSEL_ERROR_INVALID_ARGUMENT);
}

TEST(Backends, CudaDeviceWhenPresent) {
  if (!haveLibrary("libcuda.so.1"))
    GTEST_SKIP() << "no CUDA driver on this machine";
  tessel_context *ctx = nullptr;
  tessel_status st = tessel_context_create("cuda", 0, &ctx);
  if (st == TESSEL_ERROR_NO_DEVICE)
    GTEST_SKIP() << tessel_last_error();
  ASSERT_EQ(st, TESSEL_SUCCESS) << tessel_last_error();
  EXPECT_STREQ(tessel_context_device_kind(ctx), "cuda");
  EXPECT_EQ(std::string(tessel_context_arch(ctx)).substr(0, 3), "sm_");
  EXPECT_GT(tessel_context_cu_count(ctx), 0);
  void *d = nullptr;
  ASSERT_EQ(tessel_malloc(ctx, 4096, &d), TESSEL_SUCCESS);
  std::vector<uint8_t> in(4096), out(4096);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<uint8_t>(i * 7);
  EXPECT_EQ(tessel_memcpy(ctx, d, in.data(), 4096, 0), TESSEL_SUCCESS);
  EXPECT_EQ(tessel_memcpy(ctx, out.data(), d, 4096, 1), TESSEL_SUCCESS);
  EXPECT_EQ(in, out);
  EXPECT_EQ(tessel_free(ctx, d), TESSEL_SUCCESS);
  tessel_context_destroy(ctx);
}

TEST(Backends, EmuOrdinalOutOfRangeIsAnError) {
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("emu", 1000000, &ctx),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(std::string(tessel_last_error()),
            "device ordinal 1000000 is out of range for emu (valid: 0)");
  EXPECT_EQ(tessel_context_create("emu:gfx950", 1, &ctx),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tessel_last_error()),
            "device ordinal 1 is out of range for emu:gfx950 (valid: 0)");
  EXPECT_EQ(tessel_context_create("emu", -3, &ctx),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(tessel_last_error()).find("device ordinal -3 is negative"),
      std::string::npos)
      << tessel_last_error();
  ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  tessel_context_destroy(ctx);
}

TEST(Marshalling, FlattensIntoThe19ParamAbi) {
  // The kernel's SIMT signature, written out independently.
  std::vector<ArgKind> want = {
      ArgKind::Ptr, ArgKind::Ptr, ArgKind::I64, ArgKind::I64, ArgKind::I64,
      ArgKind::Ptr, ArgKind::Ptr, ArgKind::I64, ArgKind::I64, ArgKind::I64,
      ArgKind::Ptr, ArgKind::Ptr, ArgKind::I64, ArgKind::I64, ArgKind::I64,
      ArgKind::I32, ArgKind::I64, ArgKind::I32, ArgKind::I64};
  const OpSpec &op = *findOp("indexer_k_cache_write");
  std::vector<ArgKind> got;
  for (const BundleArg &a : opAbi(op))
    got.push_back(a.kind);
  EXPECT_EQ(got, want);

  alignas(64) static uint8_t kmem[7 * 304 * 4];
  alignas(64) static int64_t smem[7];
  alignas(64) static uint8_t cmem[3 * 32 * 132];
  tessel_tensor k = makeTensor(kmem, TESSEL_DTYPE_F32, {7, 128}, {304, 1});
  tessel_tensor s = makeTensor(smem, TESSEL_DTYPE_I64, {7}, {1});
  tessel_tensor c = makeTensor(cmem, TESSEL_DTYPE_U8, {3, 32, 1, 132},
                               {32 * 132, 132, 132, 1});
  const tessel_tensor *ts[] = {&k, &s, &c};
  OpCall call;
  Status st = bindOpCall(op, ts, 3, nullptr, 0, nullptr, false, call);
  ASSERT_TRUE(st.isOk()) << st.message();
  LaunchArgs a;
  marshalOpCall(call, a);
  ASSERT_EQ(a.count, 19u);

  auto ptrAt = [&](int i) { return *static_cast<void **>(a.params[i]); };
  auto i64At = [&](int i) { return *static_cast<int64_t *>(a.params[i]); };
  auto i32At = [&](int i) { return *static_cast<int32_t *>(a.params[i]); };
  // k: memref<?xi8> over the bytes of rows 0..6 with row stride 304 floats.
  EXPECT_EQ(ptrAt(0), kmem);
  EXPECT_EQ(ptrAt(1), kmem);
  EXPECT_EQ(i64At(2), 0);
  EXPECT_EQ(i64At(3), (6 * 304 + 128) * 4);
  EXPECT_EQ(i64At(4), 1);
  // slot_mapping: memref<?xi64> of 7 elements.
  EXPECT_EQ(ptrAt(5), smem);
  EXPECT_EQ(ptrAt(6), smem);
  EXPECT_EQ(i64At(7), 0);
  EXPECT_EQ(i64At(8), 7);
  EXPECT_EQ(i64At(9), 1);
  // cache: memref<?xi8> of num_blocks * block_size * 132 bytes.
  EXPECT_EQ(ptrAt(10), cmem);
  EXPECT_EQ(ptrAt(11), cmem);
  EXPECT_EQ(i64At(12), 0);
  EXPECT_EQ(i64At(13), 3 * 32 * 132);
  EXPECT_EQ(i64At(14), 1);
  // Scalars.
  EXPECT_EQ(i32At(15), 7);
  EXPECT_EQ(i64At(16), 304);
  EXPECT_EQ(i32At(17), 32);
  EXPECT_EQ(i64At(18), 96);
  // Every parameter points into the argument block (nothing allocated).
  for (size_t i = 0; i < a.count; ++i) {
    auto *q = static_cast<uint8_t *>(a.params[i]);
    EXPECT_GE(q, reinterpret_cast<uint8_t *>(&a));
    EXPECT_LT(q, reinterpret_cast<uint8_t *>(&a) + sizeof(a));
  }
}

TEST(Bundles, MismatchedAbiIsRejectedAtLoad) {
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx942", 0, &ctx), TESSEL_SUCCESS);
  Bundle b;
  b.entries.push_back(fakeIndexerEntry("gfx942", 1, 1));
  b.entries[0].args.pop_back();
  std::string path = writeBundle(b);
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_ERROR_BUNDLE);
  EXPECT_NE(std::string(tessel_last_error())
                .find("its 18 arguments do not match the launch ABI"),
            std::string::npos)
      << tessel_last_error();
  unlink(path.c_str());

  // A bundle the emulator rejects names the code object.
  Bundle bad;
  bad.entries.push_back(fakeIndexerEntry("gfx942", 1, 1));
  bad.entries[0].code = "not SIMT IR";
  path = writeBundle(bad);
  EXPECT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_ERROR_BUNDLE);
  EXPECT_NE(
      std::string(tessel_last_error()).find("fake emulator: cannot parse"),
      std::string::npos)
      << tessel_last_error();
  unlink(path.c_str());

  // A corrupt file.
  EXPECT_EQ(tessel_context_load_bundle(ctx, "/nonexistent.tbundle"),
            TESSEL_ERROR_BUNDLE);
  EXPECT_NE(std::string(tessel_last_error()).find("/nonexistent.tbundle"),
            std::string::npos);
  tessel_context_destroy(ctx);
}
