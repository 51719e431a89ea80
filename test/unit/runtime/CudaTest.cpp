//===- CudaTest.cpp - indexer_k_cache_write on a real CUDA device ---------===//
//
// Runs the op through the cuda backend with hand-written PTX kernels (one
// thread per token, in data/) that follow the op's 19-parameter launch ABI, and
// compares with the float64 reference. Skips without a CUDA device.
//
//===----------------------------------------------------------------------===//

#include "Fp8Reference.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

using namespace tessel_test;

namespace {

// data/indexer_sm90_{bf16,f32}.ptx: one thread per token, scalar loops,
// cvt.rn.satfinite.e4m3x2 for the fp8 rounding.
std::string ptxKernel(bool bf16) {
  std::string path = std::string(TESSEL_TEST_DATA) + "/indexer_sm90_" +
                     (bf16 ? "bf16" : "f32") + ".ptx";
  FILE *f = fopen(path.c_str(), "rb");
  std::string text;
  if (!f)
    return text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    text.append(buf, n);
  fclose(f);
  return text;
}

} // namespace

TEST(Cuda, IndexerKCacheWriteMatchesTheReference) {
  tessel_context *ctx = nullptr;
  if (tessel_context_create("cuda", 0, &ctx) != TESSEL_SUCCESS)
    GTEST_SKIP() << tessel_last_error();
  if (std::string(tessel_context_arch(ctx)) != "sm_90") {
    tessel_context_destroy(ctx);
    GTEST_SKIP() << "the test kernel is PTX for sm_90";
  }
  tessel::Bundle b;
  for (int bf16 = 0; bf16 < 2; ++bf16) {
    tessel::BundleEntry e = fakeIndexerEntry("gfx942", bf16, 64);
    e.name = bf16 ? "ptx.bf16" : "ptx.f32";
    e.target = "sm_90";
    e.format = tessel::CodeFormat::Ptx;
    e.code = ptxKernel(bf16);
    b.entries.push_back(e);
  }
  std::string path = writeBundle(b);
  ASSERT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_SUCCESS)
      << tessel_last_error();
  unlink(path.c_str());
  tessel_stream stream = nullptr;
  ASSERT_EQ(tessel_stream_create(ctx, &stream), TESSEL_SUCCESS);

  const int64_t NB = 16, BS = 64;
  for (bool bf16 : {true, false})
    for (int64_t T : {1, 100, 777}) {
      int64_t rs = bf16 ? 136 : 128, es = bf16 ? 2 : 4;
      std::mt19937 rng(static_cast<uint32_t>(T * 2 + bf16));
      std::normal_distribution<float> val(0.0f, 4.0f);
      std::vector<uint8_t> hk(T * rs * es, 0);
      for (int64_t t = 0; t < T; ++t)
        for (int64_t d = 0; d < 128; ++d) {
          float v = val(rng);
          if (bf16) {
            uint16_t h = floatToBf16(v);
            memcpy(&hk[(t * rs + d) * 2], &h, 2);
          } else {
            memcpy(&hk[(t * rs + d) * 4], &v, 4);
          }
        }
      std::vector<int64_t> perm(NB * BS), hs(T);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int64_t t = 0; t < T; ++t)
        hs[t] = t % 9 == 4 ? -5 : perm[t];
      std::vector<uint8_t> hc(NB * BS * 132, 0x5A), want = hc;
      void *dk, *ds, *dc;
      ASSERT_EQ(tessel_malloc(ctx, hk.size(), &dk), TESSEL_SUCCESS);
      ASSERT_EQ(tessel_malloc(ctx, hs.size() * 8, &ds), TESSEL_SUCCESS);
      ASSERT_EQ(tessel_malloc(ctx, hc.size(), &dc), TESSEL_SUCCESS);
      ASSERT_EQ(tessel_memcpy(ctx, dk, hk.data(), hk.size(), 0), 0);
      ASSERT_EQ(tessel_memcpy(ctx, ds, hs.data(), hs.size() * 8, 0), 0);
      ASSERT_EQ(tessel_memcpy(ctx, dc, hc.data(), hc.size(), 0), 0);
      tessel_tensor tk = makeTensor(
          dk, bf16 ? TESSEL_DTYPE_BF16 : TESSEL_DTYPE_F32, {T, 128}, {rs, 1});
      tessel_tensor ts = makeTensor(ds, TESSEL_DTYPE_I64, {T}, {1});
      tessel_tensor tc = makeTensor(dc, TESSEL_DTYPE_U8, {NB, BS, 1, 132},
                                    {BS * 132, 132, 132, 1});
      ASSERT_EQ(tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, stream),
                TESSEL_SUCCESS)
          << tessel_last_error();
      ASSERT_EQ(tessel_stream_synchronize(ctx, stream), TESSEL_SUCCESS)
          << tessel_last_error();
      ASSERT_EQ(tessel_memcpy(ctx, hc.data(), dc, hc.size(), 1), 0);
      auto get = [&](int64_t t, int64_t d) -> double {
        if (bf16) {
          uint16_t h;
          memcpy(&h, &hk[(t * rs + d) * 2], 2);
          return bf16ToDouble(h);
        }
        float f;
        memcpy(&f, &hk[(t * rs + d) * 4], 4);
        return f;
      };
      referenceKCacheWrite(Fp8::E4M3FN, T, get, hs.data(), NB, BS, want);
      int64_t bad = 0;
      for (size_t i = 0; i < hc.size(); ++i) {
        if (hc[i] == want[i])
          continue;
        int64_t inBlock = static_cast<int64_t>(i % (BS * 132));
        if (inBlock < BS * 128) {
          double x = fp8Decode(Fp8::E4M3FN, hc[i]),
                 y = fp8Decode(Fp8::E4M3FN, want[i]);
          double step = std::ldexp(
              1.0, std::ilogb(std::fmax(std::fmax(std::fabs(x), std::fabs(y)),
                                        std::ldexp(1.0, -6))) -
                       3);
          if (std::fabs(x - y) <= step)
            continue;
        } else {
          size_t s0 = i - (inBlock - BS * 128) % 4;
          float g, w;
          memcpy(&g, &hc[s0], 4);
          memcpy(&w, &want[s0], 4);
          if (std::fabs(g - w) <= 1e-6 * std::fabs(w))
            continue;
        }
        ++bad;
      }
      EXPECT_EQ(bad, 0) << "bf16=" << bf16 << " T=" << T;
      tessel_free(ctx, dk);
      tessel_free(ctx, ds);
      tessel_free(ctx, dc);
    }
  tessel_stream_destroy(ctx, stream);
  tessel_context_destroy(ctx);
}
