//===- PersistentLogitsOpTest.cpp - The persistent logits through the op
//---===//
//
// tessel_paged_mqa_logits on the real emulator with the kernel library, on
// a shape where the dispatcher's heuristic picks a persistent variant (three
// batches of uneven lengths, one of them 0, and max_model_len 16384 on a
// 304-CU gfx942 or a 256-CU gfx950, whose q and K are in the chip's fp8
// format), over a plain cache and over a preshuffled one
// (TESSEL_LOGITS_PRESHUFFLED, [block/16][D/16][16 tok][16 B] per block): the
// pick is logged as persistent with the cache's preshuffle, the runtime runs
// the schedule kernel into its workspace and then the persistent kernel, and
// the logits match a float64 reference (-inf positions identical, calc_diff
// < 1e-3 elsewhere).
//
//===----------------------------------------------------------------------===//

#include "Fp8Reference.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <sys/stat.h>

using namespace tessel_test;

namespace {

bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/// The knobs of the variant a TESSEL_LOG_TUNED_CONFIG line picked: the
/// parenthesized list after "->" (the call's key comes before it).
std::string pickedKnobs(const std::string &log) {
  size_t at = log.find("->");
  size_t open = log.find('(', at == std::string::npos ? 0 : at);
  size_t close = log.find(')', open == std::string::npos ? 0 : open);
  if (at == std::string::npos || open == std::string::npos ||
      close == std::string::npos)
    return "";
  return " " + log.substr(open + 1, close - open - 1) + " ";
}

/// One call of the op on the persistent shape on emu:`arch` (`cus` CUs), its
/// value bytes laid out plain or preshuffled (valueOffset), checked against
/// the reference.
void runPersistentCall(const char *arch, int cus, bool preshuffle) {
  const Fp8 fmt = std::string(arch) == "gfx942" ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
  if (!exists(TESSEL_KERNEL_BUNDLE))
    GTEST_SKIP() << "no kernel library at " TESSEL_KERNEL_BUNDLE;
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", TESSEL_EMU_PATH),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(
      tessel_context_create((std::string("emu:") + arch).c_str(), 0, &ctx),
      TESSEL_SUCCESS)
      << tessel_last_error();
  ASSERT_EQ(tessel_context_load_bundle(ctx, TESSEL_KERNEL_BUNDLE),
            TESSEL_SUCCESS)
      << tessel_last_error();

  const int64_t B = 3, N = 1, H = 64, D = 128, BS = 64, mml = 16384;
  const std::vector<int32_t> lens = {1000, 0, 200};
  const int64_t maxBlocks = (1000 + BS - 1) / BS, numBlocks = B * maxBlocks;
  std::mt19937 rng(11);
  // fp8 codes with |value| <= 2 (no NaN), uniformly.
  std::vector<uint8_t> codes;
  for (int c = 0; c < 256; ++c)
    if (std::fabs(fp8Decode(fmt, uint8_t(c))) <= 2.0)
      codes.push_back(uint8_t(c));
  std::uniform_int_distribution<size_t> pick(0, codes.size() - 1);
  std::uniform_real_distribution<float> wv(-1.0f, 1.0f), sv(0.01f, 0.2f);
  std::vector<uint8_t> q(B * N * H * D), cache(numBlocks * BS * 132);
  for (uint8_t &x : q)
    x = codes[pick(rng)];
  for (int64_t blk = 0; blk < numBlocks; ++blk) {
    uint8_t *base = cache.data() + blk * BS * 132;
    for (int64_t o = 0; o < BS; ++o)
      for (int64_t d = 0; d < D; ++d)
        base[valueOffset(preshuffle, o, d)] = codes[pick(rng)];
    for (int64_t i = 0; i < BS; ++i) {
      float s = sv(rng);
      memcpy(base + BS * D + 4 * i, &s, 4);
    }
  }
  std::vector<float> w(B * N * H);
  for (float &x : w)
    x = wv(rng);
  std::vector<int32_t> tables(B * maxBlocks);
  std::iota(tables.begin(), tables.end(), 0);
  std::shuffle(tables.begin(), tables.end(), rng);
  std::vector<int32_t> cl = lens;
  std::vector<float> out(B * N * mml, 12345.0f);

  tessel_tensor tq = makeTensor(q.data(), TESSEL_DTYPE_U8, {B, N, H, D},
                                {N * H * D, H * D, D, 1});
  tessel_tensor tkv =
      makeTensor(cache.data(), TESSEL_DTYPE_U8, {numBlocks, BS, 1, 132},
                 {BS * 132, 132, 132, 1});
  tessel_tensor tw = makeTensor(w.data(), TESSEL_DTYPE_F32, {B * N, H}, {H, 1});
  tessel_tensor tcl = makeTensor(cl.data(), TESSEL_DTYPE_I32, {B}, {1});
  tessel_tensor tbt = makeTensor(tables.data(), TESSEL_DTYPE_I32,
                                 {B, maxBlocks}, {maxBlocks, 1});
  tessel_tensor to =
      makeTensor(out.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});

  testing::internal::CaptureStderr();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1");
  auto start = std::chrono::steady_clock::now();
  tessel_status st = tessel_paged_mqa_logits(
      ctx, &tq, &tkv, &tw, &tcl, &tbt, mml,
      preshuffle ? TESSEL_LOGITS_PRESHUFFLED : 0, &to, nullptr);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
  std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(st, TESSEL_SUCCESS) << tessel_last_error();
  std::printf("[ emulator ] persistent op call%s: %.2f s\n",
              preshuffle ? " (preshuffled)" : "", seconds);
  const std::string knobs = pickedKnobs(log);
  EXPECT_NE(knobs.find(" persistent=1 "), std::string::npos) << log;
  // A variant without the knob reads the plain layout.
  if (preshuffle)
    EXPECT_NE(knobs.find(" preshuffle=1 "), std::string::npos) << log;
  else
    EXPECT_EQ(knobs.find(" preshuffle=1 "), std::string::npos) << log;
  EXPECT_NE(log.find("rule=heuristic"), std::string::npos) << log;
  EXPECT_NE(log.find("grid=" + std::to_string(cus) + " "), std::string::npos)
      << log;

  int wrong = 0;
  double sxy = 0, sxx = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < mml; ++t) {
      float got = out[b * mml + t];
      if (t >= lens[b]) {
        if (!(std::isinf(got) && got < 0) && wrong++ < 5)
          ADD_FAILURE() << "row " << b << " t " << t << ": " << got;
        continue;
      }
      int64_t blk = tables[b * maxBlocks + t / BS], in = t % BS;
      const uint8_t *base = cache.data() + blk * BS * 132;
      float scale;
      memcpy(&scale, base + BS * D + 4 * in, 4);
      double sum = 0;
      for (int64_t h = 0; h < H; ++h) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += fp8Decode(fmt, q[(b * H + h) * D + d]) *
                 fp8Decode(fmt, base[valueOffset(preshuffle, in, d)]);
        sum += std::max(dot, 0.0) * double(w[b * H + h]);
      }
      double ref = sum * double(scale);
      if (!std::isfinite(got) && wrong++ < 5)
        ADD_FAILURE() << "row " << b << " t " << t << ": " << got;
      sxy += ref * double(got);
      sxx += ref * ref + double(got) * double(got);
    }
  EXPECT_EQ(wrong, 0);
  ASSERT_GT(sxx, 0);
  EXPECT_LT(1 - 2 * sxy / sxx, 1e-3) << "calc_diff";
  tessel_context_destroy(ctx);
}

} // namespace

TEST(PersistentLogitsOp, HeuristicPicksPersistentAndMatchesTheReference) {
  runPersistentCall("gfx942", 304, /*preshuffle=*/false);
}

TEST(PersistentLogitsOp, PreshuffledCallPicksPersistentPreshuffled) {
  runPersistentCall("gfx942", 304, /*preshuffle=*/true);
}

TEST(PersistentLogitsOp, PreshuffledCallOnGfx950) {
  runPersistentCall("gfx950", 256, /*preshuffle=*/true);
}
