//===- CudaTest.cpp - indexer_k_cache_write on a real CUDA device ---------===//
//
// Runs the op through the cuda backend with a hand-written PTX kernel (one
// thread per token) that follows the op's 19-parameter launch ABI, and
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

std::string ptxKernel(bool bf16) {
  std::string load = bf16 ? R"(  mul.wide.u32 %rd10, %r7, 2;
  add.s64 %rd11, %rd9, %rd10;
  ld.global.b16 %h1, [%rd11];
  cvt.f32.bf16 %f2, %h1;
)"
                          : R"(  mul.wide.u32 %rd10, %r7, 4;
  add.s64 %rd11, %rd9, %rd10;
  ld.global.f32 %f2, [%rd11];
)";
  return std::string(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry indexer_k_cache_write(
  .param .u64 ka, .param .u64 kp, .param .u64 ko, .param .u64 kn, .param .u64 ks,
  .param .u64 sa, .param .u64 sp, .param .u64 so, .param .u64 sn, .param .u64 ss,
  .param .u64 ca, .param .u64 cp, .param .u64 co, .param .u64 cn, .param .u64 cs,
  .param .u32 T, .param .u64 rs, .param .u32 bs, .param .u64 nslots)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<32>;
  .reg .f32 %f<8>;
  .reg .b16 %h<4>;
  ld.param.u64 %rd1, [kp];
  ld.param.u64 %rd2, [sp];
  ld.param.u64 %rd3, [cp];
  ld.param.u32 %r1, [T];
  ld.param.u64 %rd4, [rs];
  ld.param.u32 %r2, [bs];
  ld.param.u64 %rd5, [nslots];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.u32 %r6, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r6, %r1;
  @%p1 bra DONE;
  cvt.u64.u32 %rd6, %r6;
  shl.b64 %rd7, %rd6, 3;
  add.s64 %rd7, %rd2, %rd7;
  ld.global.s64 %rd8, [%rd7];
  setp.lt.s64 %p2, %rd8, 0;
  @%p2 bra DONE;
  setp.ge.s64 %p2, %rd8, %rd5;
  @%p2 bra DONE;
  mul.lo.s64 %rd9, %rd6, %rd4;
  shl.b64 %rd9, %rd9, )") +
         (bf16 ? "1" : "2") + R"(;
  add.s64 %rd9, %rd1, %rd9;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r7, 0;
LOOP1:
)" + load +
         R"(  abs.f32 %f2, %f2;
  max.f32 %f1, %f1, %f2;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p3, %r7, 128;
  @%p3 bra LOOP1;
  div.rn.f32 %f3, %f1, 0f43E00000;
  cvt.s64.s32 %rd12, %r2;
  div.s64 %rd13, %rd8, %rd12;
  rem.s64 %rd14, %rd8, %rd12;
  mul.lo.s64 %rd15, %rd13, %rd12;
  mul.lo.s64 %rd15, %rd15, 132;
  add.s64 %rd15, %rd3, %rd15;
  mul.lo.s64 %rd16, %rd14, 128;
  add.s64 %rd17, %rd15, %rd16;
  mov.u32 %r7, 0;
LOOP2:
)" + load +
         R"(  div.rn.f32 %f4, %f2, %f3;
  cvt.rn.satfinite.e4m3x2.f32 %h2, %f4, %f4;
  cvt.u32.u16 %r8, %h2;
  cvt.u64.u32 %rd18, %r7;
  add.s64 %rd19, %rd17, %rd18;
  st.global.u8 [%rd19], %r8;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p3, %r7, 128;
  @%p3 bra LOOP2;
  mul.lo.s64 %rd20, %rd12, 128;
  add.s64 %rd20, %rd15, %rd20;
  shl.b64 %rd21, %rd14, 2;
  add.s64 %rd20, %rd20, %rd21;
  st.global.f32 [%rd20], %f3;
DONE:
  ret;
}
)";
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
