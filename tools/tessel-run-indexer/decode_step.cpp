//===- decode_step.cpp - One indexer decode step, checked -----------------===//

#include "decode_step.h"

#include "device_buffer.h"
#include "reference.h"
#include "tessel/tessel.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace indexer {
namespace {

/// What one stage reports.
struct StageResult {
  bool ran = true; // false: the device has no kernel for it
  bool ok = true;
  std::string detail;
  double firstMs = 0; // the checked call, launch to synchronize
  double meanUs = -1; // mean per call over the timed runs, if any
};

using Launch = std::function<tessel_status()>;

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

void synchronize(tessel_context *ctx) {
  if (tessel_stream_synchronize(ctx, nullptr) != TESSEL_SUCCESS)
    fatal("tessel_stream_synchronize");
}

/// The stage's checked call. Returns false (and fills r) when it did not
/// run: no kernel on this device, or an error.
bool firstCall(tessel_context *ctx, const Launch &launch, StageResult &r) {
  fflush(stdout); // the runtime logs its pick to stderr: keep them in order
  auto t0 = std::chrono::steady_clock::now();
  if (launch() != TESSEL_SUCCESS) {
    r.ran = !strstr(tessel_last_error(), "no code object");
    r.ok = !r.ran;
    r.detail = tessel_last_error();
    return false;
  }
  synchronize(ctx);
  fflush(stderr);
  r.firstMs = msSince(t0);
  return true;
}

/// `runs` more calls back to back, then one synchronize: the mean cost of a
/// call (launch included) once the dispatcher's pick is cached.
void setPickLog(bool on) {
  if (tessel_config_set("TESSEL_LOG_TUNED_CONFIG", on ? "1" : "0") !=
      TESSEL_SUCCESS)
    fatal("tessel_config_set");
}

void timeRuns(tessel_context *ctx, const Launch &launch, const DecodeShape &s,
              StageResult &r) {
  const int runs = s.timedRuns;
  if (runs <= 0 || !r.ok)
    return;
  setPickLog(false); // a log line per call would be timed too
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i)
    if (launch() != TESSEL_SUCCESS)
      fatal("a timed call");
  synchronize(ctx);
  r.meanUs = msSince(t0) * 1000.0 / runs;
  setPickLog(s.logPicks);
}

void print(const char *stage, const StageResult &r) {
  const char *verdict = !r.ran ? "not run" : r.ok ? "PASS" : "FAIL";
  printf("  %-28s %-7s %s\n", stage, verdict, r.detail.c_str());
  if (r.ran && r.ok) {
    printf("  %-28s         first call %.3f ms", "", r.firstMs);
    if (r.meanUs >= 0)
      printf(", then %.2f us per call", r.meanUs);
    printf("\n");
  }
  fflush(stdout);
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

/// The state a decode step carries from stage to stage.
struct Step {
  DecodeShape s;
  bool fnuz;
  int64_t rows, maxModelLen, maxBlocks, numBlocks;
  std::vector<int32_t> lens;   // [B], 1-D: row r sees rowLength(lens, r)
  std::vector<int32_t> tables; // [B, maxBlocks], shuffled physical blocks
  std::vector<uint8_t> cache;  // the cache as the device holds it
};

tessel_tensor cacheTensor(const Step &st, void *p) {
  return tessel::tensor(p, TESSEL_DTYPE_U8,
                        {st.numBlocks, st.s.blockSize, 1, kRowBytes});
}

tessel_dtype fp8Dtype(bool fnuz) {
  return fnuz ? TESSEL_DTYPE_FP8_E4M3FNUZ : TESSEL_DTYPE_FP8_E4M3FN;
}

//===-- Stage 1: the step's new K rows into the preshuffled cache ---------===//

StageResult writeNewTokens(tessel_context *ctx, Step &st, DevBuf &cache,
                           std::mt19937_64 &rng) {
  const int bs = st.s.blockSize, nextN = st.s.nextN;
  // Each sequence's last next_n tokens are this step's.
  std::vector<int64_t> slots;
  for (int b = 0; b < st.s.batch; ++b)
    for (int64_t t = std::max(0, st.lens[b] - nextN); t < st.lens[b]; ++t)
      slots.push_back(int64_t(st.tables[b * st.maxBlocks + t / bs]) * bs +
                      t % bs);
  const int64_t T = static_cast<int64_t>(slots.size());
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> binade(-4.f, 4.f);
  std::vector<float> k(T * kHeadDim);
  std::vector<uint16_t> kBf16(k.size());
  for (int64_t t = 0; t < T; ++t) {
    float rowScale = std::exp2(binade(rng));
    for (int d = 0; d < kHeadDim; ++d) {
      size_t i = t * kHeadDim + d;
      kBf16[i] = floatToBf16(normal(rng) * rowScale);
      k[i] = bf16ToFloat(kBf16[i]);
    }
  }
  DevBuf dk(ctx, kBf16), ds(ctx, slots);
  tessel_tensor tk = tessel::tensor(dk.p, TESSEL_DTYPE_BF16, {T, kHeadDim}),
                ts = tessel::tensor(ds.p, TESSEL_DTYPE_I64, {T}),
                tc = cacheTensor(st, cache.p);
  tessel_k_cache_write_options opts = {st.s.preshuffle ? 1 : 0,
                                       TESSEL_SCALE_FMT_F32};
  Launch launch = [&] {
    return tessel_indexer_k_cache_write_opts(ctx, &tk, &ts, &tc, &opts,
                                             nullptr);
  };
  StageResult r;
  if (!firstCall(ctx, launch, r))
    return r;

  std::vector<uint8_t> got = cache.download<uint8_t>(st.cache.size());
  std::vector<uint8_t> owned(got.size(), 0);
  int64_t badScales = 0, ulp1 = 0, badBytes = 0, badOther = 0;
  for (int64_t t = 0; t < T; ++t) {
    const int64_t block = slots[t] / bs * bs * kRowBytes, o = slots[t] % bs;
    const int64_t scaleAt = block + bs * kHeadDim + o * 4;
    float want = writerScale(&k[t * kHeadDim], st.fnuz, false), gotScale;
    memcpy(&gotScale, &got[scaleAt], 4);
    memset(&owned[scaleAt], 1, 4);
    float ulps = ulpDistance(gotScale, want);
    badScales += ulps > 1 || std::isnan(gotScale);
    ulp1 += ulps == 1;
    // The bytes follow from the scale the kernel wrote (ours or 1 ulp off).
    for (int d = 0; d < kHeadDim; ++d) {
      int64_t at = block + valueOffset(st.s.preshuffle, o, d);
      owned[at] = 1;
      double x = gotScale != 0 ? double(k[t * kHeadDim + d]) / gotScale : 0;
      badBytes += got[at] != encodeFp8(static_cast<float>(x), st.fnuz);
    }
  }
  for (size_t i = 0; i < got.size(); ++i)
    badOther += !owned[i] && got[i] != st.cache[i];
  st.cache = std::move(got);
  r.ok = badScales == 0 && badBytes == 0 && badOther == 0;
  r.detail =
      format("%" PRId64 " new tokens (bf16): %" PRId64
             " wrong fp8 bytes, %" PRId64 " scales off by > 1 ulp (%" PRId64
             " by 1), %" PRId64 " other bytes changed",
             T, badBytes, badScales, ulp1, badOther);
  timeRuns(ctx, launch, st.s, r);
  return r;
}

//===-- Stage 2: the persistent logits schedule ---------------------------===//

StageResult buildSchedule(tessel_context *ctx, const Step &st) {
  const int cus = tessel_context_cu_count(ctx);
  DevBuf dl(ctx, st.lens), dsched(ctx, size_t(cus + 1) * 2 * 4);
  tessel_tensor tl = tessel::tensor(dl.p, TESSEL_DTYPE_I32, {st.s.batch}),
                tsched =
                    tessel::tensor(dsched.p, TESSEL_DTYPE_I32, {cus + 1, 2});
  Launch launch = [&] {
    return tessel_paged_mqa_logits_metadata(ctx, &tl, st.s.splitTokens, 0,
                                            &tsched, nullptr);
  };
  StageResult r;
  if (!firstCall(ctx, launch, r))
    return r;
  std::vector<int32_t> got = dsched.download<int32_t>(size_t(cus + 1) * 2);
  std::vector<int32_t> want = schedule(st.lens, st.s.splitTokens, cus);
  int64_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i)
    wrong += got[i] != want[i];
  r.ok = wrong == 0;
  r.detail = format("%d units, %d-token segments: %" PRId64
                    " of %zu entries differ from the reference",
                    cus, st.s.splitTokens, wrong, want.size());
  timeRuns(ctx, launch, st.s, r);
  return r;
}

//===-- Stage 3: the logits over every context ----------------------------===//

StageResult computeLogits(tessel_context *ctx, const Step &st,
                          const DevBuf &cache, DevBuf &out,
                          std::mt19937_64 &rng) {
  const int B = st.s.batch, nextN = st.s.nextN, H = st.s.heads,
            bs = st.s.blockSize;
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<uint8_t> q(st.rows * H * kHeadDim);
  for (uint8_t &b : q)
    b = encodeFp8(normal(rng), st.fnuz);
  std::vector<float> w(st.rows * H);
  for (float &x : w)
    x = static_cast<float>(normal(rng));
  DevBuf dq(ctx, q), dw(ctx, w), dl(ctx, st.lens), dt(ctx, st.tables);
  tessel_tensor tq = tessel::tensor(dq.p, fp8Dtype(st.fnuz),
                                    {B, nextN, H, kHeadDim}),
                tc = cacheTensor(st, cache.p),
                tw = tessel::tensor(dw.p, TESSEL_DTYPE_F32, {st.rows, H}),
                tl = tessel::tensor(dl.p, TESSEL_DTYPE_I32, {B}),
                tt = tessel::tensor(dt.p, TESSEL_DTYPE_I32, {B, st.maxBlocks}),
                to = tessel::tensor(out.p, TESSEL_DTYPE_F32,
                                    {st.rows, st.maxModelLen});
  Launch launch = [&] {
    const uint32_t flags = st.s.preshuffle ? TESSEL_LOGITS_PRESHUFFLED : 0u;
    return tessel_paged_mqa_logits(ctx, &tq, &tc, &tw, &tl, &tt, st.maxModelLen,
                                   flags, &to, nullptr);
  };
  StageResult r;
  if (!firstCall(ctx, launch, r))
    return r;
  std::vector<float> got = out.download<float>(st.rows * st.maxModelLen);

  double lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = decodeFp8(static_cast<uint8_t>(i), st.fnuz);
  double sxy = 0, sxx = 0;
  int64_t maskErrors = 0;
  std::vector<double> kd(kHeadDim);
  for (int b = 0; b < B; ++b)
    for (int64_t t = 0; t < st.maxModelLen; ++t) {
      const uint8_t *blk =
          st.cache.data() +
          (t < st.lens[b]
               ? int64_t(st.tables[b * st.maxBlocks + t / bs]) * bs * kRowBytes
               : 0);
      if (t < st.lens[b])
        for (int d = 0; d < kHeadDim; ++d)
          kd[d] = lut[blk[valueOffset(st.s.preshuffle, t % bs, d)]];
      float ks;
      memcpy(&ks, blk + bs * kHeadDim + (t % bs) * 4, 4);
      for (int j = 0; j < nextN; ++j) {
        const int64_t row = int64_t(b) * nextN + j;
        const float g = got[row * st.maxModelLen + t];
        if (t >= rowLength(st.lens, nextN, row)) {
          maskErrors += !(std::isinf(g) && g < 0);
          continue;
        }
        double sum = 0;
        for (int h = 0; h < H; ++h) {
          const uint8_t *qr = &q[(row * H + h) * kHeadDim];
          double dot = 0;
          for (int d = 0; d < kHeadDim; ++d)
            dot += lut[qr[d]] * kd[d];
          sum += std::max(dot, 0.0) * w[row * H + h];
        }
        const double want = sum * ks;
        if (!std::isfinite(g)) {
          ++maskErrors;
          continue;
        }
        sxy += want * g;
        sxx += want * want + double(g) * g;
      }
    }
  const double calcDiff = sxx > 0 ? 1 - 2 * sxy / sxx : 0;
  r.ok = maskErrors == 0 && calcDiff < 1e-3;
  r.detail = format("-inf mask %s (%" PRId64 " wrong), calc_diff %.3g "
                    "(bound 1e-3)",
                    maskErrors ? "differs" : "identical", maskErrors, calcDiff);
  timeRuns(ctx, launch, st.s, r);
  return r;
}

//===-- Stage 4: each row's top-k columns ---------------------------------===//

StageResult selectTopK(tessel_context *ctx, const Step &st,
                       const DevBuf &logits) {
  const int k = st.s.topK;
  DevBuf dl(ctx, st.lens), didx(ctx, size_t(st.rows) * k * 4);
  tessel_tensor tlog = tessel::tensor(logits.p, TESSEL_DTYPE_F32,
                                      {st.rows, st.maxModelLen}),
                tl = tessel::tensor(dl.p, TESSEL_DTYPE_I32, {st.s.batch}),
                tidx = tessel::tensor(didx.p, TESSEL_DTYPE_I32, {st.rows, k});
  Launch launch = [&] {
    return tessel_topk_per_row(ctx, &tlog, &tl, st.s.nextN, k,
                               TESSEL_TOPK_STABLE, &tidx, nullptr);
  };
  StageResult r;
  if (!firstCall(ctx, launch, r))
    return r;
  // The selection is checked on the logits the device computed (stage 3
  // checked those), so rounding there cannot move the threshold.
  std::vector<float> vals = logits.download<float>(st.rows * st.maxModelLen);
  std::vector<int32_t> got = didx.download<int32_t>(size_t(st.rows) * k);
  int64_t wrongRows = 0, full = 0;
  for (int64_t row = 0; row < st.rows; ++row) {
    const int64_t len = rowLength(st.lens, st.s.nextN, row);
    const int64_t n = std::min<int64_t>(len, k);
    full += len > k;
    const int32_t *g = &got[row * k];
    std::vector<int32_t> picked(g, g + n);
    bool ok = std::all_of(g + n, g + k, [](int32_t c) { return c == -1; });
    if (len < k) // the contract orders a short row's columns
      for (int64_t i = 0; i < n; ++i)
        ok = ok && g[i] == i;
    std::sort(picked.begin(), picked.end());
    ok = ok && picked == stableTopK(&vals[row * st.maxModelLen], len, k);
    wrongRows += !ok;
  }
  r.ok = wrongRows == 0;
  r.detail =
      format("k=%d stable, %" PRId64 " rows (%" PRId64
             " longer than k): %" PRId64 " rows differ from the reference set",
             k, st.rows, full, wrongRows);
  timeRuns(ctx, launch, st.s, r);
  return r;
}

} // namespace

int runDecodeStep(tessel_context *ctx, const DecodeShape &s, bool fnuz,
                  std::mt19937_64 &rng) {
  Step st{s,  fnuz, int64_t(s.batch) * s.nextN, s.maxContext + 3, 0, 0, {},
          {}, {}};
  st.maxBlocks = (s.maxContext + s.blockSize - 1) / s.blockSize;
  st.numBlocks = s.batch * st.maxBlocks + 3; // a few blocks no table names
  std::uniform_int_distribution<int> lenDist(s.minContext, s.maxContext);
  for (int b = 0; b < s.batch; ++b)
    st.lens.push_back(lenDist(rng));
  std::vector<int32_t> blocks(st.numBlocks);
  std::iota(blocks.begin(), blocks.end(), 0);
  std::shuffle(blocks.begin(), blocks.end(), rng);
  st.tables.assign(blocks.begin(), blocks.begin() + s.batch * st.maxBlocks);

  // The cache before the step: every token's fp8 values and scale.
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<float> uni(0.5f, 1.5f);
  st.cache.resize(st.numBlocks * s.blockSize * kRowBytes);
  for (int64_t blk = 0; blk < st.numBlocks; ++blk) {
    uint8_t *base = &st.cache[blk * s.blockSize * kRowBytes];
    for (int64_t i = 0; i < int64_t(s.blockSize) * kHeadDim; ++i)
      base[i] = encodeFp8(normal(rng), fnuz);
    for (int o = 0; o < s.blockSize; ++o) {
      float scale = uni(rng) / 64;
      memcpy(base + s.blockSize * kHeadDim + o * 4, &scale, 4);
    }
  }
  DevBuf cache(ctx, st.cache),
      logits(ctx, size_t(st.rows) * st.maxModelLen * 4);
  int64_t total = std::accumulate(st.lens.begin(), st.lens.end(), int64_t(0));
  printf("\ndecode step: B=%d next_n=%d H=%d D=%d, %s cache of %d-token "
         "blocks, contexts %d..%d (%" PRId64 " tokens), top-%d\n",
         s.batch, s.nextN, s.heads, kHeadDim,
         s.preshuffle ? "preshuffled" : "plain", s.blockSize, s.minContext,
         s.maxContext, total, s.topK);

  int failures = 0;
  auto report = [&](const char *name, const StageResult &r) {
    print(name, r);
    failures += r.ran && !r.ok;
    return r.ran && r.ok;
  };
  report("1 indexer_k_cache_write", writeNewTokens(ctx, st, cache, rng));
  report("2 paged_mqa_logits_metadata", buildSchedule(ctx, st));
  if (report("3 paged_mqa_logits", computeLogits(ctx, st, cache, logits, rng)))
    report("4 topk_per_row", selectTopK(ctx, st, logits));
  return failures;
}

} // namespace indexer
