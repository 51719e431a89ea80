//===- cache_write_bench.cpp - K-cache writer bandwidth on a CUDA device --===//
//
// tessel-cache-write-bench: the effective bandwidth of
// tessel_indexer_k_cache_write against the device's measured
// device-to-device copy bandwidth. A benchmark program, not a test.
//
//   tessel-cache-write-bench [--bundle FILE] [--iters N] [--tokens T]
//                            [--pick-only]
//
// Shapes: T in {64, 4096, 65536, 262144} tokens, bf16 k [T, 128],
// block_size 64. Bytes per call = T*128*2 (k read) + T*8 (slots read) + T*132
// (fp8 values and scale written). Two timings per row, the inputs rotating
// over enough buffer sets (>= 256 MiB) that the L2 cache does not hold
// them: "graph" is the kernel time, 100 calls (20 from 65536 tokens)
// captured in a CUDA graph, the median replay divided by the calls, which
// TB/s and "of copy" use; "events" is one launch between two CUDA events,
// median over many launches, which includes the host's launch latency. The
// copy bandwidth is a 1 GiB cuMemcpyDtoDAsync, counting bytes read plus
// bytes written. Rows: the dispatcher's pick, then every bf16 code object
// of the target alone; "vs empty" is the graph time over an empty kernel's,
// timed the same way in the same run.
// --tokens runs one shape of T tokens; --pick-only leaves out the
// per-variant rows (both to narrow a profiler's run). Without a CUDA device
// it prints that it skips and exits 0.
//
//===----------------------------------------------------------------------===//

#include "bench_support.h"
#include "cli.h"
#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace bench;

struct Set {
  void *k = nullptr, *slots = nullptr, *cache = nullptr;
};

struct Shape {
  int64_t tokens, numBlocks;
  std::vector<Set> sets;
};

constexpr int64_t kBlock = 64;

/// The call on set `i` of `s` (sets rotate), as the timings launch it.
struct WriterCall {
  tessel_context *ctx;
  Shape &s;
  void *stream;
  tessel_tensor tk{}, ts{}, tc{};

  WriterCall(tessel_context *c, Shape &callShape, void *st)
      : ctx(c), s(callShape), stream(st) {
    tk.dtype = TESSEL_DTYPE_BF16;
    tk.rank = 2;
    tk.shape[0] = s.tokens;
    tk.shape[1] = 128;
    tk.strides[0] = 128;
    tk.strides[1] = 1;
    ts.dtype = TESSEL_DTYPE_I64;
    ts.rank = 1;
    ts.shape[0] = s.tokens;
    ts.strides[0] = 1;
    tc.dtype = TESSEL_DTYPE_U8;
    tc.rank = 4;
    const int64_t shape[4] = {s.numBlocks, kBlock, 1, 132};
    const int64_t strides[4] = {kBlock * 132, 132, 132, 1};
    for (int i = 0; i < 4; ++i) {
      tc.shape[i] = shape[i];
      tc.strides[i] = strides[i];
    }
  }

  bool operator()(int i) {
    const Set &set = s.sets[size_t(i + 5) % s.sets.size()];
    tk.data = set.k;
    ts.data = set.slots;
    tc.data = set.cache;
    if (tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc,
                                     static_cast<tessel_stream>(stream)) ==
        TESSEL_SUCCESS)
      return true;
    fprintf(stderr, "launch failed: %s\n", tessel_last_error());
    return false;
  }
};

} // namespace

int main(int argc, char **argv) {
  std::string bundlePath;
  uint64_t iters = 200, tokens = 0;
  bool pickOnly = false;
  const std::vector<cli::Option> options = {
      cli::text("--bundle", "FILE", "the kernel library (default: the build's)",
                bundlePath),
      cli::unsignedNumber("--iters", "timed calls per row (at least 5)", iters),
      cli::unsignedNumber("--tokens", "time this one token count", tokens),
      cli::flag("--pick-only", "time only the dispatcher's pick", pickOnly)};
  if (!cli::parseOrReport("tessel-cache-write-bench", argc, argv, options))
    return 2;
  iters = std::max<uint64_t>(iters, 5);
  std::vector<int64_t> shapes = {64, 4096, 65536, 262144};
  if (tokens > 0)
    shapes = {int64_t(tokens)};
  if (bundlePath.empty())
    bundlePath = defaultBundlePath();

  CudaBench cb;
  if (!openCudaBench(bundlePath, cb))
    return 0;
  tessel_context *ctx = cb.ctx;
  const tessel::Bundle &bundle = cb.bundle;
  tessel_stream stream = cb.stream;
  void *ev0 = cb.ev0, *ev1 = cb.ev1;

  // The copy bandwidth: 1 GiB device to device, read + write.
  const size_t copyBytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  if (tessel_malloc(ctx, copyBytes, &src) ||
      tessel_malloc(ctx, copyBytes, &dst))
    fatal("tessel_malloc");
  std::vector<double> copyMs;
  for (int i = 0; i < 23; ++i) {
    check(cu.eventRecord(ev0, stream), "cuEventRecord");
    check(cu.memcpyDtoDAsync(reinterpret_cast<uint64_t>(dst),
                             reinterpret_cast<uint64_t>(src), copyBytes,
                             stream),
          "cuMemcpyDtoDAsync");
    check(cu.eventRecord(ev1, stream), "cuEventRecord");
    check(cu.eventSynchronize(ev1), "cuEventSynchronize");
    float ms = 0;
    check(cu.eventElapsed(&ms, ev0, ev1), "cuEventElapsedTime");
    if (i >= 3)
      copyMs.push_back(ms);
  }
  double copyTbps = 2.0 * copyBytes / (median(copyMs) * 1e-3) / 1e12;
  printf("device-to-device copy: %.3f TB/s (1 GiB, read + write, median of "
         "%zu)\n",
         copyTbps, copyMs.size());
  tessel_free(ctx, src);
  tessel_free(ctx, dst);
  const EmptyKernel empty;
  auto emptyLaunch = [&](int) { return empty.launch(stream); };
  const double emptyUs = graphReplayUs(
      stream, ev0, ev1, 100, std::max(5, int(iters) / 10), emptyLaunch);
  printf("empty kernel (1 block, graph of 100): %.2f us per kernel; one "
         "launch between events: %.2f us\n",
         emptyUs, emptyKernelUs(stream, ev0, ev1, int(iters)));

  // Contexts holding one bf16 code object each, for the per-variant rows.
  std::string arch = tessel_context_arch(ctx);
  std::vector<std::pair<std::string, tessel_context *>> variants;
  for (const tessel::BundleEntry &e : bundle.entries) {
    if (pickOnly)
      break;
    // The timed call is the plain layout with f32 scales: the preshuffle and
    // ue8m0 variants cannot serve it.
    int64_t bf16 = 0, preshuffle = 0, ue8m0 = 0;
    e.knob("preshuffle", preshuffle);
    e.knob("scale_ue8m0", ue8m0);
    if (tessel::codeObjectRank(e, arch, e.format) < 0 ||
        e.format == tessel::CodeFormat::Simt || !e.knob("k_bf16", bf16) ||
        !bf16 || preshuffle || ue8m0)
      continue;
    tessel_context *v = oneVariantContext("cuda", bundle, e);
    int64_t tpp = 0, waves = 1;
    e.knob("tokens_per_program", tpp);
    e.knob("num_waves", waves);
    variants.push_back({e.target + " tpp=" + std::to_string(tpp) +
                            " waves=" + std::to_string(waves),
                        v});
  }

  printf("\n%-8s %-26s %8s %9s %9s %8s %9s %9s\n", "tokens", "kernel",
         "MB/call", "graph us", "TB/s", "of copy", "vs empty", "events us");
  std::mt19937_64 rng(7);
  for (int64_t T : shapes) {
    Shape s;
    s.tokens = T;
    s.numBlocks = (T + kBlock - 1) / kBlock;
    const double bytes = double(T) * 128 * 2 + T * 8.0 + T * 132.0;
    // (At most 4096 sets: at T = 64 those already span ~100 MB, past L2.)
    size_t nsets = std::min<size_t>(
        4096, std::max<size_t>(2, size_t((256.0 * (1 << 20)) / bytes) + 1));
    // Host data once; every set gets a copy at its own addresses.
    std::vector<uint16_t> k(T * 128);
    std::normal_distribution<float> normal(0.f, 2.f);
    for (auto &h : k) {
      float f = normal(rng);
      uint32_t u;
      memcpy(&u, &f, 4);
      h = static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
    }
    // Blocks in a random order, tokens in order within a block (as an
    // engine's block allocator hands them out).
    std::vector<int64_t> blocks(s.numBlocks), slots(T);
    std::iota(blocks.begin(), blocks.end(), 0);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    for (int64_t t = 0; t < T; ++t)
      slots[t] = blocks[t / kBlock] * kBlock + t % kBlock;
    for (size_t i = 0; i < nsets; ++i) {
      Set set;
      if (tessel_malloc(ctx, T * 256, &set.k) ||
          tessel_malloc(ctx, T * 8, &set.slots) ||
          tessel_malloc(ctx, s.numBlocks * kBlock * 132, &set.cache) ||
          tessel_memcpy(ctx, set.k, k.data(), T * 256, 0) ||
          tessel_memcpy(ctx, set.slots, slots.data(), T * 8, 0))
        fatal("set up the inputs");
      s.sets.push_back(set);
    }
    const int n = T >= 262144 ? std::max(20, int(iters) / 4) : int(iters);
    const int nodes = T >= 65536 ? 20 : 100;
    auto row = [&](const char *name, tessel_context *c) {
      WriterCall call(c, s, stream);
      const double graphUs =
          graphReplayUs(stream, ev0, ev1, nodes, std::max(5, n / 10), call);
      const double eventUs =
          graphUs < 0 ? -1 : medianEventUs(stream, ev0, ev1, n, call);
      if (graphUs < 0 || eventUs < 0) {
        printf("%-8" PRId64 " %-26s %8s\n", T, name, "FAILED");
        return;
      }
      double tbps = bytes / (graphUs * 1e-6) / 1e12;
      printf("%-8" PRId64 " %-26s %8.2f %9.2f %9.3f %7.1f%% %+9.2f %9.2f\n", T,
             name, bytes / 1e6, graphUs, tbps, 100.0 * tbps / copyTbps,
             graphUs - emptyUs, eventUs);
      fflush(stdout);
    };
    row("dispatcher's pick", ctx);
    for (auto &v : variants)
      row(v.first.c_str(), v.second);
    for (Set &set : s.sets) {
      tessel_free(ctx, set.k);
      tessel_free(ctx, set.slots);
      tessel_free(ctx, set.cache);
    }
  }
  for (auto &v : variants)
    tessel_context_destroy(v.second);
  tessel_stream_destroy(ctx, stream);
  tessel_context_destroy(ctx);
  return 0;
}
