//===- EmuDispatchTest.cpp - End to end on the emu device -----------------===//
//
// Bundle -> context -> tuned-table pick -> marshalled launch -> emulator, on
// the fake emulator plugin (a hand-written kernel that reads the real launch
// ABI), compared with the float64 reference; and eight threads dispatching
// concurrently.
//
//===----------------------------------------------------------------------===//

#include "Fp8Reference.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <dlfcn.h>
#include <numeric>
#include <random>
#include <sys/stat.h>
#include <thread>

using namespace tessel_test;

namespace {

struct Problem {
  int64_t T, D = 128, rowStride, numBlocks, blockSize;
  bool bf16;
  tessel_k_cache_write_options opts = {0, TESSEL_SCALE_FMT_F32};
  std::vector<uint8_t> kmem; // over-allocated for alignment
  void *k = nullptr;
  std::vector<int64_t> slots;
  std::vector<uint8_t> cmem;
  uint8_t *cache = nullptr;

  Problem(int64_t T, int64_t rowStride, int64_t nb, int64_t bs, bool bf16,
          uint32_t seed)
      : T(T), rowStride(rowStride), numBlocks(nb), blockSize(bs), bf16(bf16) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> val(0.0f, 2.0f);
    size_t es = bf16 ? 2 : 4;
    kmem.assign((T * rowStride + 128) * es + 64, 0xEE);
    k = align(kmem.data());
    for (int64_t t = 0; t < T; ++t) {
      float mag = std::ldexp(1.0f, static_cast<int>(rng() % 20) - 10);
      for (int64_t d = 0; d < D; ++d) {
        float v = val(rng) * mag;
        if (bf16) {
          uint16_t b = floatToBf16(v);
          memcpy(static_cast<uint8_t *>(k) + (t * rowStride + d) * 2, &b, 2);
        } else {
          memcpy(static_cast<uint8_t *>(k) + (t * rowStride + d) * 4, &v, 4);
        }
      }
    }
    // Distinct slots (a permutation), some negative.
    std::vector<int64_t> perm(nb * bs);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    slots.resize(T);
    for (int64_t t = 0; t < T; ++t)
      slots[t] = (t % 7 == 3) ? -1 - t : perm[t % perm.size()];
    cmem.assign(nb * bs * 132 + 64, 0);
    cache = static_cast<uint8_t *>(align(cmem.data()));
    memset(cache, 0xCD, nb * bs * 132);
  }

  static void *align(uint8_t *p) {
    return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(p) + 63) &
                                    ~uintptr_t(63));
  }

  double get(int64_t t, int64_t d) const {
    const uint8_t *p = static_cast<const uint8_t *>(k);
    if (bf16) {
      uint16_t b;
      memcpy(&b, p + (t * rowStride + d) * 2, 2);
      return bf16ToDouble(b);
    }
    float f;
    memcpy(&f, p + (t * rowStride + d) * 4, 4);
    return f;
  }

  tessel_status run(tessel_context *ctx) {
    tessel_tensor tk =
        makeTensor(k, bf16 ? TESSEL_DTYPE_BF16 : TESSEL_DTYPE_F32, {T, 128},
                   {rowStride, 1});
    tessel_tensor ts = makeTensor(slots.data(), TESSEL_DTYPE_I64, {T}, {1});
    tessel_tensor tc =
        makeTensor(cache, TESSEL_DTYPE_U8, {numBlocks, blockSize, 1, 132},
                   {blockSize * 132, 132, 132, 1});
    return tessel_indexer_k_cache_write_opts(ctx, &tk, &ts, &tc, &opts,
                                             nullptr);
  }

  // Compares with the reference; returns the number of mismatching bytes.
  int64_t check(Fp8 f) const {
    std::vector<uint8_t> want(numBlocks * blockSize * 132, 0xCD);
    referenceKCacheWrite(
        f, T, [&](int64_t t, int64_t d) { return get(t, d); }, slots.data(),
        numBlocks, blockSize, want, opts.preshuffle != 0,
        opts.scale_fmt == TESSEL_SCALE_FMT_UE8M0);
    // Rows no valid slot names must keep their bytes exactly.
    std::vector<bool> written(numBlocks * blockSize, false);
    for (int64_t t = 0; t < T; ++t)
      if (slots[t] >= 0 && slots[t] < numBlocks * blockSize)
        written[slots[t]] = true;
    int64_t bad = 0;
    for (int64_t blk = 0; blk < numBlocks; ++blk) {
      const uint8_t *g = cache + blk * blockSize * 132;
      const uint8_t *w = want.data() + blk * blockSize * 132;
      for (int64_t i = 0; i < blockSize * 128; ++i) {
        if (g[i] == w[i])
          continue;
        // f32 vs float64 scaling may move a value across a rounding tie:
        // allow the neighbouring code, nothing more.
        double a = fp8Decode(f, g[i]), b = fp8Decode(f, w[i]);
        // One fp8 step at the larger magnitude; subnormals step evenly.
        double minStep =
            f == Fp8::E4M3FN ? std::ldexp(1.0, -9) : std::ldexp(1.0, -10);
        double step = std::fmax(
            minStep,
            std::ldexp(1.0, std::ilogb(std::fmax(
                                std::fmax(std::fabs(a), std::fabs(b)), 1e-30)) -
                                3));
        int64_t tok = opts.preshuffle ? i / 2048 * 16 + i % 256 / 16 : i / 128;
        bool rowWritten = written[blk * blockSize + tok];
        if (!rowWritten || !(std::fabs(a - b) <= step * 1.0001)) {
          if (bad < 5)
            fprintf(stderr,
                    "mismatch blk %lld byte %lld: got %02x (%g) want "
                    "%02x (%g)\n",
                    (long long)blk, (long long)i, g[i], a, w[i], b);
          ++bad;
        }
      }
      for (int64_t off = 0; off < blockSize; ++off) {
        float gs, ws;
        memcpy(&gs, g + blockSize * 128 + off * 4, 4);
        memcpy(&ws, w + blockSize * 128 + off * 4, 4);
        if (memcmp(&gs, &ws, 4) != 0 &&
            !(std::fabs(gs - ws) <= 1e-6 * std::fabs(ws)))
          ++bad;
      }
    }
    return bad;
  }
};

class EmuDispatch : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
              TESSEL_SUCCESS);
    bundlePath = writeBundle(fakeIndexerBundle());
    ASSERT_FALSE(bundlePath.empty());
  }
  void TearDown() override { unlink(bundlePath.c_str()); }
  std::string bundlePath;
};

int fakeCounter(const char *name) {
  void *h = dlopen(FAKE_EMU_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return -1;
  auto *c = static_cast<std::atomic<int> *>(dlsym(h, name));
  int v = c ? c->load() : -1;
  dlclose(h);
  return v;
}

} // namespace

TEST_F(EmuDispatch, MatchesTheReferenceOnBothTargetsAndDtypes) {
  for (const char *dev : {"emu:gfx942", "emu:gfx950"}) {
    tessel_context *ctx = nullptr;
    ASSERT_EQ(tessel_context_create(dev, 0, &ctx), TESSEL_SUCCESS)
        << tessel_last_error();
    ASSERT_EQ(tessel_context_load_bundle(ctx, bundlePath.c_str()),
              TESSEL_SUCCESS)
        << tessel_last_error();
    Fp8 f = std::string(dev) == "emu:gfx942" ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
    int seed = 1;
    for (bool bf16 : {true, false})
      for (int64_t T : {1, 5, 64, 777})
        for (int64_t stride : {128, 200}) {
          Problem p(T, stride, 32, 64, bf16, seed++);
          ASSERT_EQ(p.run(ctx), TESSEL_SUCCESS) << tessel_last_error();
          EXPECT_EQ(p.check(f), 0)
              << dev << " bf16=" << bf16 << " T=" << T << " stride=" << stride;
        }
    tessel_context_destroy(ctx);
  }
}

TEST_F(EmuDispatch, PreshuffledLayoutAndUe8m0ScalesMatchTheReference) {
  tessel::Bundle b = fakeIndexerBundle();
  for (const char *arch : {"gfx942", "gfx950"})
    for (int bf16 = 0; bf16 < 2; ++bf16)
      for (auto [ps, ue] : {std::pair{1, 0}, {0, 1}, {1, 1}})
        b.entries.push_back(fakeIndexerEntry(arch, bf16, 4, 1, ps, ue));
  unlink(bundlePath.c_str());
  bundlePath = writeBundle(b);
  for (const char *dev : {"emu:gfx942", "emu:gfx950"}) {
    tessel_context *ctx = nullptr;
    ASSERT_EQ(tessel_context_create(dev, 0, &ctx), TESSEL_SUCCESS);
    ASSERT_EQ(tessel_context_load_bundle(ctx, bundlePath.c_str()),
              TESSEL_SUCCESS)
        << tessel_last_error();
    Fp8 f = std::string(dev) == "emu:gfx942" ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
    int seed = 500;
    for (auto [ps, ue] : {std::pair{1, 0}, {0, 1}, {1, 1}})
      for (int64_t T : {1, 37, 300}) {
        Problem p(T, 136, 16, 32, seed % 2 == 0, seed);
        ++seed;
        p.opts.preshuffle = ps;
        p.opts.scale_fmt = ue ? TESSEL_SCALE_FMT_UE8M0 : TESSEL_SCALE_FMT_F32;
        ASSERT_EQ(p.run(ctx), TESSEL_SUCCESS) << tessel_last_error();
        EXPECT_EQ(p.check(f), 0)
            << dev << " preshuffle=" << ps << " ue8m0=" << ue << " T=" << T;
      }
    // A preshuffled cache needs whole 16-token groups per block.
    Problem odd(4, 128, 4, 24, true, 7);
    odd.opts.preshuffle = 1;
    EXPECT_EQ(odd.run(ctx), TESSEL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tessel_last_error())
                  .find("kv_cache: the preshuffled layout needs block_size % "
                        "16 == 0, got block_size 24"),
              std::string::npos)
        << tessel_last_error();
    // Options outside their ranges are named.
    Problem bad(4, 128, 4, 32, true, 8);
    bad.opts.scale_fmt = 7;
    EXPECT_EQ(bad.run(ctx), TESSEL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tessel_last_error())
                  .find("scale_fmt must be in [0, 1], got 7"),
              std::string::npos)
        << tessel_last_error();
    tessel_context_destroy(ctx);
  }
}

TEST_F(EmuDispatch, LoadingTheSameBundleTwiceIsAnErrorButModulesAreShared) {
  // Code objects unique to this test, so that no earlier test in this
  // process has loaded them.
  tessel::Bundle fresh = fakeIndexerBundle();
  for (auto &e : fresh.entries)
    e.code += " unique=" + std::to_string(getpid());
  unlink(bundlePath.c_str());
  bundlePath = writeBundle(fresh);
  tessel_context *a = nullptr, *b = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &a), TESSEL_SUCCESS);
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &b), TESSEL_SUCCESS);
  int before = fakeCounter("fake_emu_loads");
  ASSERT_GE(before, 0);
  ASSERT_EQ(tessel_context_load_bundle(a, bundlePath.c_str()), TESSEL_SUCCESS);
  int afterFirst = fakeCounter("fake_emu_loads");
  ASSERT_EQ(tessel_context_load_bundle(b, bundlePath.c_str()), TESSEL_SUCCESS);
  // Four gfx950 code objects, but the fake's code text differs only by
  // tokens_per_program, so there are two distinct modules: loaded once per
  // device (keyed by the code bytes) for both contexts.
  EXPECT_EQ(afterFirst - before, 2);
  EXPECT_EQ(fakeCounter("fake_emu_loads"), afterFirst);
  EXPECT_EQ(tessel_context_load_bundle(a, bundlePath.c_str()),
            TESSEL_ERROR_BUNDLE);
  EXPECT_NE(std::string(tessel_last_error()).find("already loaded"),
            std::string::npos);
  tessel_context_destroy(a);
  tessel_context_destroy(b);
}

TEST_F(EmuDispatch, TesselBundleEnvironmentAndLogging) {
  ASSERT_EQ(tessel_config_set("TESSEL_BUNDLE", bundlePath.c_str()),
            TESSEL_SUCCESS);
  ASSERT_EQ(tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1"), TESSEL_SUCCESS);
  // A fixed table, so that tuning the shipped one does not change the picks.
  ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", TESSEL_TEST_DATA "/tuned"),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  Problem p(300, 128, 8, 64, true, 99);
  testing::internal::CaptureStderr();
  ASSERT_EQ(p.run(ctx), TESSEL_SUCCESS) << tessel_last_error();
  std::string log = testing::internal::GetCapturedStderr();
  // The test's gfx942 table has buckets 1, 256, 4096, ... with
  // tokens_per_program 4 at 256; 300 rounds to 512, whose nearest bucket in
  // log2 is 256; the grid is ceil(300 / 4) = 75.
  EXPECT_NE(log.find("indexer_k_cache_write arch=gfx942 cu_num=304"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("tokens=300 -> indexer_k_cache_write.bf16.t4.w1.gfx942"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("rule=nearest-bucket"), std::string::npos) << log;
  EXPECT_NE(log.find("grid=75 "), std::string::npos) << log;
  EXPECT_EQ(p.check(Fp8::E4M3FNUZ), 0);
  tessel_context_destroy(ctx);
  tessel_config_set("TESSEL_BUNDLE", "");
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
  tessel_config_set("TESSEL_TUNED_DIR", "");

  ASSERT_EQ(tessel_config_set("TESSEL_BUNDLE", "/no/such.tbundle"),
            TESSEL_SUCCESS);
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_BUNDLE);
  EXPECT_NE(std::string(tessel_last_error()).find("TESSEL_BUNDLE: "),
            std::string::npos);
  tessel_config_set("TESSEL_BUNDLE", "");
}

TEST_F(EmuDispatch, MalformedTunedTableFailsContextCreation) {
  std::string dir = tempPath("tessel-tuned-ctx");
  unlink(dir.c_str());
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  std::string file = dir + "/indexer_k_cache_write.csv";
  ASSERT_TRUE(writeBytes(file, "arch,cu_num\n"));
  ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", dir.c_str()), TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_TABLE);
  EXPECT_NE(std::string(tessel_last_error()).find(file + ":1:1:"),
            std::string::npos)
      << tessel_last_error();
  tessel_config_set("TESSEL_TUNED_DIR", "");
  unlink(file.c_str());
  rmdir(dir.c_str());
}

TEST_F(EmuDispatch, EightThreadsDispatchConcurrently) {
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &ctx), TESSEL_SUCCESS);
  ASSERT_EQ(tessel_context_load_bundle(ctx, bundlePath.c_str()),
            TESSEL_SUCCESS);
  std::atomic<int> failures{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 8; ++th)
    threads.emplace_back([&, th] {
      for (int iter = 0; iter < 8; ++iter) {
        Problem p(1 + (th * 37 + iter * 101) % 900, 128 + 8 * (th % 3), 16, 64,
                  (th + iter) % 2 == 0, 1000 + th * 100 + iter);
        if (p.run(ctx) != TESSEL_SUCCESS)
          ++failures;
        else if (p.check(Fp8::E4M3FN) != 0)
          ++mismatches;
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  tessel_context_destroy(ctx);
}
