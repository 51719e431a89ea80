//===- metadata_bench.cpp - The schedule kernel's time on a CUDA device ---===//
//
// tessel-metadata-bench: the device time of tessel_paged_mqa_logits_metadata
// for B in {1, 64, 256, 1024, 4096}, 1-D lengths [B] and 2-D lengths
// [B, 2], num_cus 132 (the H200's SMs), split_tokens 256 (a benchmark
// program, not a test).
//
//   tessel-metadata-bench [--bundle FILE] [--iters N] [--ctx C]
//
// Lengths are uniform in [0.7, 1.3] * C (default 8192). Two timings per
// row: "graph" is the kernel time, 100 calls captured in a CUDA graph and
// the median replay (of N / 10, at least 5) divided by 100; "events" is one
// call between two CUDA events, median of N (default 200) after 5 warm-up
// calls, which includes the host's launch latency. "vs empty" is the graph
// time over an empty one-block kernel's, timed the same way in the same
// run. Rows: the dispatcher's pick, then each code object of the device's
// targets alone. Every row's schedule is checked once against a host
// reference of the contract (tessel.h) before it is timed. Without a CUDA
// device it prints that it skips and exits 0.
//
//===----------------------------------------------------------------------===//

#include "bench_support.h"
#include "cli.h"
#include "reference.h"
#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace bench;

constexpr int kNumCus = 132;
constexpr int kSplit = 256;
constexpr int kGraphNodes = 100;
constexpr int kNextN2d = 2; // next_n of the 2-D lengths

/// The 1-D lengths the schedule of 2-D lengths [B, next_n] follows: each
/// batch's longest row (tessel.h).
std::vector<int32_t> longestPerBatch(const std::vector<int32_t> &lens,
                                     int nextN) {
  std::vector<int32_t> out(lens.size() / nextN);
  for (size_t b = 0; b < out.size(); ++b)
    out[b] = *std::max_element(lens.begin() + b * nextN,
                               lens.begin() + (b + 1) * nextN);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string bundlePath;
  uint64_t iters = 200, ctxTokens = 8192;
  const std::vector<cli::Option> options = {
      cli::text("--bundle", "FILE", "the kernel library (default: the build's)",
                bundlePath),
      cli::unsignedNumber("--iters", "timed calls per row (at least 5)", iters),
      cli::unsignedNumber("--ctx", "the mean context length (at least 1)",
                          ctxTokens)};
  if (!cli::parseOrReport("tessel-metadata-bench", argc, argv, options))
    return 2;
  iters = std::max<uint64_t>(iters, 5);
  ctxTokens = std::max<uint64_t>(ctxTokens, 1);
  if (bundlePath.empty())
    bundlePath = defaultBundlePath();
  CudaBench cb;
  if (!openCudaBench(bundlePath, cb))
    return 0;
  tessel_context *ctx = cb.ctx;
  const tessel::Bundle &bundle = cb.bundle;
  tessel_stream stream = cb.stream;
  void *ev0 = cb.ev0, *ev1 = cb.ev1;
  const std::string arch = tessel_context_arch(ctx);

  const int replays = std::max(5, int(iters) / 10);
  const EmptyKernel empty;
  const double emptyUs =
      graphReplayUs(stream, ev0, ev1, kGraphNodes, replays,
                    [&](int) { return empty.launch(stream); });
  printf("empty kernel (1 block, graph of %d): %.2f us per kernel; one "
         "launch between events: %.2f us\n",
         kGraphNodes, emptyUs, emptyKernelUs(stream, ev0, ev1, int(iters)));

  // One context per code object of this device, for the per-variant rows.
  std::vector<std::pair<std::string, tessel_context *>> rows = {
      {"dispatcher's pick", ctx}};
  for (const tessel::BundleEntry &e : bundle.entries) {
    if (e.kernel != "paged_mqa_logits_metadata" ||
        e.format == tessel::CodeFormat::Simt ||
        tessel::codeObjectRank(e, arch, e.format) < 0)
      continue;
    tessel_context *v = oneVariantContext("cuda", bundle, e);
    int64_t waves = 0;
    e.knob("num_waves", waves);
    rows.push_back({e.target + " waves=" + std::to_string(waves), v});
  }

  printf("\n%-6s %-5s %-24s %9s %9s %9s %7s\n", "B", "lens", "kernel",
         "graph us", "vs empty", "events us", "check");
  std::mt19937 rng(11);
  bool allOk = true;
  for (int B : {1, 64, 256, 1024, 4096}) {
    for (int nextN : {0, kNextN2d}) { // 0: 1-D lengths
      const int64_t count = int64_t(B) * std::max(nextN, 1);
      std::uniform_int_distribution<int> len(int(0.7 * ctxTokens),
                                             int(1.3 * ctxTokens));
      std::vector<int32_t> lens(count);
      for (int32_t &l : lens)
        l = len(rng);
      const std::vector<int32_t> want = indexer::schedule(
          nextN ? longestPerBatch(lens, nextN) : lens, kSplit, kNumCus);
      void *dLens = nullptr, *dSched = nullptr;
      const size_t lensBytes = count * sizeof(int32_t);
      const size_t schedBytes = want.size() * sizeof(int32_t);
      if (tessel_malloc(ctx, lensBytes, &dLens) ||
          tessel_malloc(ctx, schedBytes, &dSched) ||
          tessel_memcpy(ctx, dLens, lens.data(), lensBytes, 0))
        fatal("set up the inputs");
      tessel_tensor tl{}, ts{};
      tl.data = dLens;
      tl.dtype = TESSEL_DTYPE_I32;
      tl.rank = nextN ? 2 : 1;
      tl.shape[0] = B;
      tl.shape[1] = nextN;
      tl.strides[0] = nextN ? nextN : 1;
      tl.strides[1] = 1;
      ts.data = dSched;
      ts.dtype = TESSEL_DTYPE_I32;
      ts.rank = 2;
      ts.shape[0] = kNumCus + 1;
      ts.shape[1] = 2;
      ts.strides[0] = 2;
      ts.strides[1] = 1;
      for (auto &[name, c] : rows) {
        auto launch = [&, c = c](int = 0) {
          if (tessel_paged_mqa_logits_metadata(c, &tl, kSplit, kNumCus, &ts,
                                               stream) == TESSEL_SUCCESS)
            return true;
          fprintf(stderr, "launch failed: %s\n", tessel_last_error());
          return false;
        };
        std::vector<int32_t> got(want.size(), -7);
        bool ok = tessel_memcpy(ctx, dSched, got.data(), schedBytes, 0) == 0 &&
                  launch() && tessel_stream_synchronize(ctx, stream) == 0 &&
                  tessel_memcpy(ctx, got.data(), dSched, schedBytes, 1) == 0 &&
                  got == want;
        allOk = allOk && ok;
        const double graphUs =
            ok ? graphReplayUs(stream, ev0, ev1, kGraphNodes, replays, launch)
               : -1;
        const double eventUs =
            ok ? medianEventUs(stream, ev0, ev1, int(iters), launch) : -1;
        printf("%-6d %-5s %-24s %9.2f %+9.2f %9.2f %7s\n", B,
               nextN ? "2-D" : "1-D", name.c_str(), graphUs, graphUs - emptyUs,
               eventUs, ok ? "ok" : "WRONG");
        fflush(stdout);
      }
      tessel_free(ctx, dLens);
      tessel_free(ctx, dSched);
    }
  }
  for (size_t i = 1; i < rows.size(); ++i)
    tessel_context_destroy(rows[i].second);
  tessel_stream_destroy(ctx, stream);
  tessel_context_destroy(ctx);
  return allOk ? 0 : 1;
}
