//===- run_indexer.cpp - Run the indexer pipeline and check it ------------===//
//
// tessel-run-indexer: creates a context on a device, loads a kernel bundle,
// prints the device and the resource usage of every code object in the
// bundle, then runs the K-cache writer over many shapes and options and one
// whole indexer decode step (decode_step.h: cache write, schedule, logits,
// top-k), checking every result against the float64 references of
// reference.h, written independently of the kernels and the runtime.
//
//   tessel-run-indexer [--device auto|cuda|hip|emu|emu:gfx942|emu:gfx950]
//                      [--bundle FILE] [--seed N] [--each-variant] [--quiet]
//
// The bundle defaults to TESSEL_BUNDLE (loaded by the runtime itself), else
// ../kernels/tessel_kernels.tbundle next to this program. --each-variant also
// runs a few shapes on every writer and top-k code object the device runs,
// one at a time (a one-entry bundle per variant), not only on the
// dispatcher's picks; the runtime plans each one's grid (a persistent
// top-k's parts per row included).
// Exits 0 when every check passes, 1 on any mismatch, 2 on a setup error.
//
//===----------------------------------------------------------------------===//

#include "bench_support.h"
#include "cli.h"
#include "decode_step.h"
#include "device_buffer.h"
#include "reference.h"
#include "tessel/bundle.h"
#include "tessel/tessel.h"
#include "tessel/tessel.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace indexer;

void printResources(const tessel::Bundle &b) {
  printf("\nbundle: %zu code objects, compiler '%s'\n", b.entries.size(),
         b.compilerVersion.c_str());
  printf("%-72s %-10s %-5s %5s %5s %5s %6s %7s %6s %4s %5s\n", "code object",
         "target", "fmt", "vgpr", "sgpr", "agpr", "lds", "scratch", "spills",
         "wave", "block");
  for (const tessel::BundleEntry &e : b.entries) {
    std::vector<std::pair<std::string, int64_t>> counts;
    std::string err;
    if (!tessel::resourceCounts(e, counts, err)) {
      fprintf(stderr, "tessel-run-indexer: %s\n", err.c_str());
      exit(2);
    }
    auto count = [&](const char *key) -> std::string {
      for (const auto &c : counts)
        if (c.first == key)
          return std::to_string(c.second);
      return "-";
    };
    int64_t spills = -1; // - when the format reports none
    for (const auto &c : counts)
      if (c.first == "vgpr_spill_count" || c.first == "sgpr_spill_count")
        spills = std::max<int64_t>(spills, 0) + c.second;
    std::string target = e.target;
    if (e.format == tessel::CodeFormat::Simt)
      target = "emu-" + target;
    printf("%-72s %-10s %-5s %5s %5s %5s %6s %7s %6s %4s %5u\n", e.name.c_str(),
           target.c_str(), tessel::codeFormatName(e.format),
           count("vgpr_count").c_str(), count("sgpr_count").c_str(),
           count("agpr_count").c_str(), count("lds_bytes").c_str(),
           count("scratch_bytes").c_str(),
           spills < 0 ? "-" : std::to_string(spills).c_str(),
           count("wavefront_size").c_str(), e.block[0]);
  }
  printf("(- = not reported for that format: PTX resources come from ptxas, "
         "which the library builder does not run; SIMT IR has none)\n");
}

//===-- One case ----------------------------------------------------------===//

struct Case {
  int64_t tokens;
  bool bf16;
  int64_t blockSize;
  int64_t rowStride;       // elements
  bool pastEnd;            // some slots >= num_slots (GPUs only)
  bool preshuffle = false; // the [bs/16][8][16][16] value layout
  bool ue8m0 = false;      // power-of-two scales
};

struct Result {
  bool ok = true;
  int64_t written = 0, skipped = 0;
  int64_t badBytes = 0, badScales = 0, ulp1Scales = 0, badUntouched = 0;
  std::string firstError;
  double ms = 0;
};

void note(Result &r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void note(Result &r, const char *fmt, ...) {
  r.ok = false;
  if (!r.firstError.empty())
    return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r.firstError = buf;
}

Result runCase(tessel_context *ctx, const Case &c, bool fnuz,
               std::mt19937_64 &rng) {
  Result r;
  const int64_t T = c.tokens, S = c.rowStride, bs = c.blockSize;
  // Enough blocks that the slots are sparse in the cache: the untouched-byte
  // check then covers most of it.
  const int64_t numSlots = std::max<int64_t>(2 * T + 3, bs) + bs - 1;
  const int64_t numBlocks = (numSlots + bs - 1) / bs;
  const int64_t slotsTotal = numBlocks * bs;
  const size_t elem = c.bf16 ? 2 : 4;

  // k: magnitudes spanning several binades per row, one all-zero row, one row
  // with a single large outlier; the padding past column 128 holds values that
  // would dominate amax if the kernel read it.
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> uni(-3.f, 3.f);
  std::vector<float> kf(T * S);
  for (int64_t t = 0; t < T; ++t) {
    float rowScale = std::exp2(uni(rng) * 4); // 2^-12 .. 2^12
    for (int64_t d = 0; d < S; ++d)
      kf[t * S + d] = d < kHeadDim ? normal(rng) * rowScale : 1.0e6f;
    if (T > 2 && t == T / 2)
      for (int d = 0; d < kHeadDim; ++d)
        kf[t * S + d] = 0.f;
    if (T > 3 && t == T / 3)
      kf[t * S + (rng() % kHeadDim)] = 1000.f * rowScale;
  }
  std::vector<uint8_t> kBytes(T * S * elem);
  for (int64_t i = 0; i < T * S; ++i) {
    if (c.bf16) {
      uint16_t h = floatToBf16(kf[i]);
      kf[i] = bf16ToFloat(h);
      memcpy(&kBytes[i * 2], &h, 2);
    } else {
      memcpy(&kBytes[i * 4], &kf[i], 4);
    }
  }

  // Slots: distinct, shuffled; about 1 in 6 negative (-1 and other negative
  // values); with pastEnd some >= num_slots.
  std::vector<int64_t> perm(slotsTotal);
  for (int64_t i = 0; i < slotsTotal; ++i)
    perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<int64_t> slots(T);
  for (int64_t t = 0; t < T; ++t) {
    slots[t] = perm[t];
    uint64_t u = rng() % 12;
    if (u == 0)
      slots[t] = -1;
    else if (u == 1)
      slots[t] = -static_cast<int64_t>(2 + rng() % 1000000);
    else if (u == 2 && c.pastEnd)
      slots[t] = slotsTotal + static_cast<int64_t>(rng() % 1000);
  }
  if (T == 1 && c.pastEnd)
    slots[0] = slotsTotal; // the single token is past the end

  // Poison the cache with random bytes.
  const size_t cacheBytes = numBlocks * bs * kRowBytes;
  std::vector<uint8_t> poison(cacheBytes);
  for (auto &b : poison)
    b = static_cast<uint8_t>(rng());

  DevBuf dk(ctx, kBytes.size()), ds(ctx, T * 8), dc(ctx, cacheBytes);
  if (tessel_memcpy(ctx, dk.p, kBytes.data(), kBytes.size(), 0) ||
      tessel_memcpy(ctx, ds.p, slots.data(), T * 8, 0) ||
      tessel_memcpy(ctx, dc.p, poison.data(), cacheBytes, 0))
    fatal("tessel_memcpy to the device");

  tessel_tensor tk{}, ts{}, tc{};
  tk.data = dk.p;
  tk.dtype = c.bf16 ? TESSEL_DTYPE_BF16 : TESSEL_DTYPE_F32;
  tk.rank = 2;
  tk.shape[0] = T;
  tk.shape[1] = kHeadDim;
  tk.strides[0] = S;
  tk.strides[1] = 1;
  ts.data = ds.p;
  ts.dtype = TESSEL_DTYPE_I64;
  ts.rank = 1;
  ts.shape[0] = T;
  ts.strides[0] = 1;
  tc.data = dc.p;
  tc.dtype = TESSEL_DTYPE_U8;
  tc.rank = 4;
  const int64_t shape[4] = {numBlocks, bs, 1, kRowBytes};
  const int64_t strides[4] = {bs * kRowBytes, kRowBytes, kRowBytes, 1};
  for (int i = 0; i < 4; ++i) {
    tc.shape[i] = shape[i];
    tc.strides[i] = strides[i];
  }

  auto t0 = std::chrono::steady_clock::now();
  tessel_k_cache_write_options opts = {c.preshuffle ? 1 : 0,
                                       c.ue8m0 ? TESSEL_SCALE_FMT_UE8M0
                                               : TESSEL_SCALE_FMT_F32};
  tessel_status st =
      tessel_indexer_k_cache_write_opts(ctx, &tk, &ts, &tc, &opts, nullptr);
  if (st != TESSEL_SUCCESS) {
    note(r, "launch: %s: %s", tessel_status_string(st), tessel_last_error());
    return r;
  }
  if (tessel_stream_synchronize(ctx, nullptr) != TESSEL_SUCCESS) {
    note(r, "synchronize: %s", tessel_last_error());
    return r;
  }
  r.ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
             .count();
  std::vector<uint8_t> got(cacheBytes);
  if (tessel_memcpy(ctx, got.data(), dc.p, cacheBytes, 1) != TESSEL_SUCCESS) {
    note(r, "copy back: %s", tessel_last_error());
    return r;
  }

  // The reference: which bytes each token owns, and their values.
  std::vector<uint8_t> owned(cacheBytes, 0);
  for (int64_t t = 0; t < T; ++t) {
    int64_t s = slots[t];
    if (s < 0 || s >= slotsTotal) {
      ++r.skipped;
      continue;
    }
    ++r.written;
    int64_t blk = s / bs, off = s % bs;
    size_t block = blk * bs * kRowBytes;
    size_t sAt = block + bs * kHeadDim + off * 4;
    auto qAt = [&](int d) { return block + valueOffset(c.preshuffle, off, d); };
    for (int d = 0; d < kHeadDim; ++d)
      owned[qAt(d)] = 1;
    for (int i = 0; i < 4; ++i)
      owned[sAt + i] = 1;

    float wantScale = writerScale(&kf[t * S], fnuz, c.ue8m0);
    float gotScale;
    memcpy(&gotScale, &got[sAt], 4);
    float ulps = ulpDistance(gotScale, wantScale);
    if (ulps > 1 || std::isnan(gotScale)) {
      ++r.badScales;
      note(r, "token %" PRId64 " slot %" PRId64 ": scale %.9g, want %.9g", t, s,
           gotScale, wantScale);
      continue;
    }
    if (ulps == 1)
      ++r.ulp1Scales;
    // fp8 bytes exactly, from the scale the kernel wrote (equal to ours or
    // one ulp away).
    for (int d = 0; d < kHeadDim; ++d) {
      uint8_t want = 0;
      if (gotScale != 0) {
        float x = static_cast<float>(static_cast<double>(kf[t * S + d]) /
                                     static_cast<double>(gotScale));
        want = encodeFp8(x, fnuz);
      }
      if (got[qAt(d)] != want) {
        ++r.badBytes;
        note(r,
             "token %" PRId64 " slot %" PRId64 " d=%d: fp8 0x%02x, want 0x%02x "
             "(k=%.9g scale=%.9g)",
             t, s, d, got[qAt(d)], want, kf[t * S + d], gotScale);
      }
    }
  }
  for (size_t i = 0; i < cacheBytes; ++i)
    if (!owned[i] && got[i] != poison[i]) {
      ++r.badUntouched;
      note(r,
           "byte %zu of the cache (owned by no written token) changed: "
           "0x%02x, was 0x%02x",
           i, got[i], poison[i]);
    }
  return r;
}

std::string caseName(const Case &c) {
  char buf[128];
  snprintf(buf, sizeof buf,
           "T=%-5" PRId64 " %-4s bs=%-3" PRId64 " stride=%-4" PRId64 "%s%s%s",
           c.tokens, c.bf16 ? "bf16" : "f32", c.blockSize, c.rowStride,
           c.pastEnd ? " past-end" : "", c.preshuffle ? " preshuffled" : "",
           c.ue8m0 ? " ue8m0" : "");
  return buf;
}

bool fileExists(const std::string &p) { return access(p.c_str(), R_OK) == 0; }

int runTable(tessel_context *ctx, const std::vector<Case> &cases, bool fnuz,
             std::mt19937_64 &rng, const char *title) {
  printf("\n%s\n", title);
  printf("%-40s %7s %7s %8s %8s %9s %9s %8s  %s\n", "case", "written",
         "skipped", "badFp8", "badScale", "scale1ulp", "untouched", "ms",
         "result");
  int failures = 0;
  for (const Case &c : cases) {
    fflush(stdout);
    Result r = runCase(ctx, c, fnuz, rng);
    fflush(stderr);
    printf("%-40s %7" PRId64 " %7" PRId64 " %8" PRId64 " %8" PRId64 " %9" PRId64
           " %9" PRId64 " %8.3f  %s\n",
           caseName(c).c_str(), r.written, r.skipped, r.badBytes, r.badScales,
           r.ulp1Scales, r.badUntouched, r.ms, r.ok ? "PASS" : "FAIL");
    if (!r.ok) {
      printf("    first mismatch: %s\n", r.firstError.c_str());
      ++failures;
    }
  }
  return failures;
}

/// The rows of `vals` ([lens.size(), cols]) whose stable top-k on ctx is
/// not the reference set, or -1 (and the runtime's message in `why`) when
/// the call fails.
int64_t topKWrongRows(tessel_context *ctx, const std::vector<float> &vals,
                      const std::vector<int32_t> &lens, int64_t cols, int64_t k,
                      uint32_t flags, std::string &why) {
  const int64_t rows = int64_t(lens.size());
  DevBuf dv(ctx, vals), dl(ctx, lens), di(ctx, size_t(rows * k) * 4);
  tessel_tensor tv = tessel::tensor(dv.p, TESSEL_DTYPE_F32, {rows, cols}),
                tl = tessel::tensor(dl.p, TESSEL_DTYPE_I32, {rows}),
                ti = tessel::tensor(di.p, TESSEL_DTYPE_I32, {rows, k});
  if (tessel_topk_per_row(ctx, &tv, &tl, 1, int32_t(k), flags, &ti, nullptr) !=
          TESSEL_SUCCESS ||
      tessel_stream_synchronize(ctx, nullptr) != TESSEL_SUCCESS) {
    why = tessel_last_error();
    return -1;
  }
  std::vector<int32_t> got = di.download<int32_t>(size_t(rows * k));
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t *g = &got[r * k];
    const int64_t n = std::min<int64_t>(lens[r], k);
    std::vector<int32_t> picked(g, g + n);
    std::sort(picked.begin(), picked.end());
    bool ok = std::all_of(g + n, g + k, [](int32_t c) { return c == -1; }) &&
              picked == stableTopK(&vals[r * cols], lens[r], int(k));
    wrong += !ok;
  }
  return wrong;
}

/// Runs top-k variant `e` alone (its k and order) on a few rows, one of
/// them shorter than k, checked against the stable reference set; prints
/// one line. Returns 1 on a mismatch.
int runTopKVariant(const char *device, const tessel::Bundle &bundle,
                   const tessel::BundleEntry &e, bool gpu,
                   std::mt19937_64 &rng) {
  int64_t k = 2048, sorted = 0, waves = 16;
  e.knob("k", k);
  e.knob("sorted", sorted);
  e.knob("num_waves", waves);
  // A persistent variant gives each part a chunk (256 columns per wave):
  // the long row spans several.
  const int64_t cols = gpu ? 40000 : 3 * 256 * waves + 1000;
  const std::vector<int32_t> lens = {int32_t(cols), int32_t(k + 1),
                                     int32_t(k - 1)};
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> vals(lens.size() * cols);
  for (float &v : vals)
    v = normal(rng);
  tessel_context *vctx = bench::oneVariantContext(device, bundle, e);
  std::string why;
  int64_t wrong = topKWrongRows(
      vctx, vals, lens, cols, k,
      TESSEL_TOPK_STABLE | (sorted ? TESSEL_TOPK_SORTED : 0), why);
  tessel_context_destroy(vctx);
  printf("%-60s %s", e.name.c_str(), wrong == 0 ? "PASS" : "FAIL");
  if (wrong < 0)
    printf(": %s", why.c_str());
  else if (wrong > 0)
    printf(": %" PRId64 " of %zu rows differ from the reference set", wrong,
           lens.size());
  printf("\n");
  return wrong == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string device = "auto", bundlePath;
  uint64_t seed = 20261129;
  bool eachVariant = false, quiet = false;
  const std::vector<cli::Option> options = {
      cli::text("--device", "KIND",
                "auto (default), cuda, hip, emu, emu:gfx942 or emu:gfx950",
                device),
      cli::text("--bundle", "FILE", "the kernel library to load", bundlePath),
      cli::unsignedNumber("--seed", "the random data's seed", seed),
      cli::flag("--each-variant",
                "also run a few shapes on every code object the device runs",
                eachVariant),
      cli::flag("--quiet", "do not log the dispatcher's picks", quiet)};
  if (!cli::parseOrReport("tessel-run-indexer", argc, argv, options))
    return 2;

  // Log the dispatcher's pick of every call (stderr).
  if (!quiet &&
      tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1") != TESSEL_SUCCESS)
    fatal("tessel_config_set");

  // TESSEL_BUNDLE is loaded by the runtime into every new context; otherwise
  // the library next to this program.
  const char *envBundle = getenv("TESSEL_BUNDLE");
  bool runtimeLoads = bundlePath.empty() && envBundle && *envBundle;
  if (runtimeLoads)
    bundlePath = envBundle;
  else if (bundlePath.empty())
    bundlePath = bench::defaultBundlePath();
  if (!fileExists(bundlePath)) {
    fprintf(stderr,
            "tessel-run-indexer: no bundle at %s (build the `tessel_kernels` "
            "target, or pass --bundle / set TESSEL_BUNDLE)\n",
            bundlePath.c_str());
    return 2;
  }

  tessel_context *ctx = nullptr;
  if (tessel_context_create(device.c_str(), 0, &ctx) != TESSEL_SUCCESS)
    fatal("tessel_context_create");
  std::string kind = tessel_context_device_kind(ctx);
  std::string arch = tessel_context_arch(ctx);
  printf("device: %s, arch %s, %d compute units\n", kind.c_str(), arch.c_str(),
         tessel_context_cu_count(ctx));
  if (!runtimeLoads &&
      tessel_context_load_bundle(ctx, bundlePath.c_str()) != TESSEL_SUCCESS)
    fatal("tessel_context_load_bundle");
  printf("bundle: %s\n", bundlePath.c_str());

  tessel::Bundle bundle;
  std::string err;
  if (!tessel::readBundleFile(bundlePath, bundle, err)) {
    fprintf(stderr, "tessel-run-indexer: %s\n", err.c_str());
    return 2;
  }
  printResources(bundle);

  const bool fnuz = arch == "gfx942";
  const bool gpu = kind != "emu";
  printf("\nfp8 format on %s: %s (max %d, scale = max(amax, 1e-4) / %d)\n",
         arch.c_str(), fnuz ? "e4m3fnuz" : "e4m3fn", fnuz ? 240 : 448,
         fnuz ? 224 : 448);

  std::vector<Case> cases;
  for (int64_t T : {1, 7, 64, 1000})
    for (bool bf16 : {true, false})
      for (int64_t bs : {1, 16, 64}) {
        // Row stride: plain for some, padded (a larger head row, or k a
        // column slice of a wider tensor) for others.
        int64_t stride = cases.size() % 2 == 0 ? 128 : (bf16 ? 136 : 256);
        cases.push_back({T, bf16, bs, stride, false});
      }
  // The writer's options (DESIGN.md 3.4).
  cases.push_back({333, true, 64, 136, false, true, true});
  cases.push_back({64, false, 16, 128, false, true, false});
  cases.push_back({100, true, 32, 128, false, false, true});
  if (gpu)
    for (bool bf16 : {true, false}) {
      cases.push_back({1, bf16, 64, 128, true});
      cases.push_back({777, bf16, 16, 192, true});
    }

  std::mt19937_64 rng(seed);
  auto start = std::chrono::steady_clock::now();
  int failures = runTable(ctx, cases, fnuz, rng,
                          "indexer_k_cache_write (the dispatcher's picks):");

  if (eachVariant && runtimeLoads) {
    printf("\n--each-variant skipped: TESSEL_BUNDLE is loaded into every "
           "context, so a variant cannot run alone; pass --bundle instead\n");
  } else if (eachVariant) {
    // Every code object that runs on this device (sm_90a and sm_90 on an
    // sm_90 card), alone in a context.
    for (const tessel::BundleEntry &e : bundle.entries) {
      bool simt = e.format == tessel::CodeFormat::Simt;
      if (e.kernel != "indexer_k_cache_write" ||
          tessel::codeObjectRank(e, arch, e.format) < 0 || simt != !gpu)
        continue;
      tessel_context *vctx =
          bench::oneVariantContext(device.c_str(), bundle, e);
      int64_t bf16 = 1, ps = 0, ue = 0;
      e.knob("k_bf16", bf16);
      e.knob("preshuffle", ps);
      e.knob("scale_ue8m0", ue);
      std::vector<Case> vc = {
          {5, bf16 != 0, 16, 128, false, ps != 0, ue != 0},
          {333, bf16 != 0, 64, 136 + 8 * (bf16 == 0), false, ps != 0, ue != 0}};
      if (gpu)
        vc.push_back(
            {1000, bf16 != 0, ps ? 16 : 1, 256, true, ps != 0, ue != 0});
      failures += runTable(vctx, vc, fnuz, rng, ("variant " + e.name).c_str());
      tessel_context_destroy(vctx);
    }
    printf("\ntopk_per_row, each variant alone (3 rows, one shorter than "
           "k):\n");
    for (const tessel::BundleEntry &e : bundle.entries) {
      bool simt = e.format == tessel::CodeFormat::Simt;
      if (e.kernel == "topk_per_row" &&
          tessel::codeObjectRank(e, arch, e.format) >= 0 && simt == !gpu)
        failures += runTopKVariant(device.c_str(), bundle, e, gpu, rng);
    }
  }

  // One decode step, sized for the device: the emulator runs a few
  // thousand tokens per sequence in seconds; a GPU takes a real batch.
  // The cache is preshuffled where the device runs preshuffled logits
  // variants (the AMD chips), else plain.
  const bool preshuffled =
      std::any_of(bundle.entries.begin(), bundle.entries.end(),
                  [&](const tessel::BundleEntry &e) {
                    int64_t ps = 0;
                    bool simt = e.format == tessel::CodeFormat::Simt;
                    return e.kernel == "paged_mqa_logits" && simt == !gpu &&
                           tessel::codeObjectRank(e, arch, e.format) >= 0 &&
                           e.knob("preshuffle", ps) && ps == 1;
                  });
  DecodeShape step = {2,    2,   64, 64,     2100,       2700,
                      2048, 256, 0,  !quiet, preshuffled};
  if (gpu) { // a real batch
    step.batch = 16;
    step.minContext = 4000;
    step.maxContext = 8000;
    step.timedRuns = 50;
  }
  failures += runDecodeStep(ctx, step, fnuz, rng);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printf("\n%s: %d failing case(s), %.1f s\n", failures ? "FAIL" : "PASS",
         failures, secs);
  tessel_context_destroy(ctx);
  return failures ? 1 : 0;
}
