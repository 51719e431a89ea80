//===- launch_overhead.cpp - Host-side dispatch + launch cost -------------===//
//
// Measures what one tessel_indexer_k_cache_write() call costs on the host:
// argument validation, the tuned-table pick, marshalling and the driver's
// launch, against a bare cuLaunchKernel of the same kernel.
//
//   tessel-launch-overhead [--bundle FILE] [--calls N] [--tokens T]
//
// Without --bundle it loads a built-in bundle holding an empty PTX kernel with
// the op's 19-parameter signature, so only host overhead is measured. Prints
// the median and p90 microseconds per call. The driver's own cost is timed
// three ways in the same rounds: the 19 parameters as a pointer array (what
// Tessel passes), the same packed into one buffer (CU_LAUNCH_PARAM_BUFFER_*),
// and an empty kernel without parameters, which tells what the parameters
// cost the driver. With --tokens 0 the call validates and launches nothing.
// With a --bundle that holds them, tessel_paged_mqa_logits (B 1, next_n 1,
// H 64, a context of 64 tokens in block 64) and tessel_topk_per_row (one
// row of 4096, k 2048) are timed the same way, in the same rounds.
//
//===----------------------------------------------------------------------===//

#include "cli.h"
#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const char *kEmptyPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry indexer_k_cache_write(
  .param .u64 a0, .param .u64 a1, .param .u64 a2, .param .u64 a3,
  .param .u64 a4, .param .u64 a5, .param .u64 a6, .param .u64 a7,
  .param .u64 a8, .param .u64 a9, .param .u64 a10, .param .u64 a11,
  .param .u64 a12, .param .u64 a13, .param .u64 a14, .param .u32 a15,
  .param .u64 a16, .param .u32 a17, .param .u64 a18)
{
  ret;
}
)";

const char *kNoParamPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry no_params()
{
  ret;
}
)";

std::string writeEmptyBundle() {
  tessel::Bundle b;
  b.compilerVersion = "launch_overhead";
  for (int bf16 = 0; bf16 < 2; ++bf16) {
    tessel::BundleEntry e;
    e.name = bf16 ? "empty.bf16" : "empty.f32";
    e.kernel = "indexer_k_cache_write";
    e.target = "sm_90";
    e.format = tessel::CodeFormat::Ptx;
    e.knobs = {{"k_bf16", bf16},
               {"tokens_per_program", 1},
               {"num_waves", 1},
               {"waves_per_eu", 0}};
    const char *mem[3] = {"k", "slot_mapping", "cache"};
    const char *part[5] = {"allocated", "aligned", "offset", "size", "stride"};
    for (const char *m : mem)
      for (int i = 0; i < 5; ++i)
        e.args.push_back({std::string(m) + "." + part[i],
                          i < 2 ? tessel::ArgKind::Ptr : tessel::ArgKind::I64,
                          8});
    e.args.push_back({"num_tokens", tessel::ArgKind::I32, 4});
    e.args.push_back({"k_row_stride", tessel::ArgKind::I64, 8});
    e.args.push_back({"block_size", tessel::ArgKind::I32, 4});
    e.args.push_back({"num_slots", tessel::ArgKind::I64, 8});
    e.block[0] = 64;
    e.code = kEmptyPtx;
    b.entries.push_back(e);
  }
  std::string bytes, err;
  if (!tessel::serializeBundle(b, bytes, err)) {
    fprintf(stderr, "cannot build the empty bundle: %s\n", err.c_str());
    exit(1);
  }
  char path[] = "/tmp/tessel-empty-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) !=
                    static_cast<ssize_t>(bytes.size())) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  close(fd);
  return path;
}

void die(const char *what) {
  fprintf(stderr, "FAILED: %s: %s\n", what, tessel_last_error());
  exit(1);
}

struct Stats {
  double median, p90, mean;
};

/// A contiguous device tensor of `dtype` (elemBytes each), uninitialized
/// unless `host` is given.
tessel_tensor deviceTensor(tessel_context *ctx, tessel_dtype dtype,
                           size_t elemBytes, std::vector<int64_t> shape,
                           const void *host = nullptr) {
  tessel_tensor t{};
  t.dtype = dtype;
  t.rank = int32_t(shape.size());
  int64_t n = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.shape[d] = shape[d];
    t.strides[d] = n;
    n *= shape[d];
  }
  if (tessel_malloc(ctx, n * elemBytes, &t.data) ||
      (host && tessel_memcpy(ctx, t.data, host, n * elemBytes, 0)))
    die("malloc");
  return t;
}

/// A timed C API call besides the writer's.
struct OpRow {
  const char *name;
  std::function<tessel_status()> call;
  std::vector<double> us;
};

/// The logits and top-k calls, where the bundle has their kernels.
std::vector<OpRow> otherOps(tessel_context *ctx, tessel_stream stream) {
  std::vector<OpRow> rows;
  const int64_t H = 64, ctxLen = 64, block = 64;
  const int32_t len = int32_t(ctxLen), table = 0;
  tessel_tensor q = deviceTensor(ctx, TESSEL_DTYPE_FP8_E4M3FN, 1,
                                 {1, 1, H, 128}),
                kv = deviceTensor(ctx, TESSEL_DTYPE_U8, 1, {1, block, 1, 132}),
                w = deviceTensor(ctx, TESSEL_DTYPE_F32, 4, {1, H}),
                lens = deviceTensor(ctx, TESSEL_DTYPE_I32, 4, {1}, &len),
                tables = deviceTensor(ctx, TESSEL_DTYPE_I32, 4, {1, 1}, &table),
                out = deviceTensor(ctx, TESSEL_DTYPE_F32, 4, {1, ctxLen});
  auto logits = [=] {
    return tessel_paged_mqa_logits(ctx, &q, &kv, &w, &lens, &tables, ctxLen, 0,
                                   &out, stream);
  };
  if (logits() == TESSEL_SUCCESS)
    rows.push_back({"tessel_paged_mqa_logits", logits, {}});
  else
    printf("paged_mqa_logits not timed: %s\n", tessel_last_error());
  const int64_t L = 4096, k = 2048;
  const int32_t rowLen = int32_t(L);
  tessel_tensor x = deviceTensor(ctx, TESSEL_DTYPE_F32, 4, {1, L}),
                xl = deviceTensor(ctx, TESSEL_DTYPE_I32, 4, {1}, &rowLen),
                idx = deviceTensor(ctx, TESSEL_DTYPE_I32, 4, {1, k});
  auto topk = [=] {
    return tessel_topk_per_row(ctx, &x, &xl, 1, int32_t(k), 0, &idx, stream);
  };
  if (topk() == TESSEL_SUCCESS)
    rows.push_back({"tessel_topk_per_row", topk, {}});
  else
    printf("topk_per_row not timed: %s\n", tessel_last_error());
  return rows;
}

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v)
    sum += x;
  return {v[v.size() / 2], v[v.size() * 9 / 10], sum / v.size()};
}

} // namespace

int main(int argc, char **argv) {
  std::string bundle;
  uint64_t callsArg = 20000;
  uint64_t tokensArg = 1;
  const std::vector<cli::Option> options = {
      cli::text("--bundle", "FILE",
                "the kernel library (default: an empty kernel only)", bundle),
      cli::unsignedNumber("--calls", "timed calls (100 to 10^7)", callsArg),
      cli::unsignedNumber(
          "--tokens", "tokens per writer call (0: checks only; at most 2^24)",
          tokensArg)};
  if (!cli::parseOrReport("tessel-launch-overhead", argc, argv, options))
    return 2;
  int calls = int(std::clamp<uint64_t>(callsArg, 100, 10000000));
  long long tokens = (long long)std::min<uint64_t>(tokensArg, 1ull << 24);
  bool builtIn = bundle.empty();
  if (builtIn)
    bundle = writeEmptyBundle();

  tessel_context *ctx = nullptr;
  if (tessel_context_create("cuda", 0, &ctx) != TESSEL_SUCCESS) {
    printf("SKIP: no cuda device: %s\n", tessel_last_error());
    return 0;
  }
  printf("device: cuda %s, %d SMs\n", tessel_context_arch(ctx),
         tessel_context_cu_count(ctx));
  if (tessel_context_load_bundle(ctx, bundle.c_str()) != TESSEL_SUCCESS)
    die("load bundle");
  if (builtIn)
    unlink(bundle.c_str());
  printf("bundle: %s\n", builtIn ? "built-in empty kernel" : bundle.c_str());

  const long long blockSize = 64, numBlocks = 1024;
  void *k = nullptr, *slots = nullptr, *cache = nullptr;
  if (tessel_malloc(ctx, tokens * 128 * 2, &k) ||
      tessel_malloc(ctx, tokens * 8, &slots) ||
      tessel_malloc(ctx, numBlocks * blockSize * 132, &cache))
    die("malloc");
  std::vector<long long> hostSlots(tokens);
  for (long long t = 0; t < tokens; ++t)
    hostSlots[t] = t % (numBlocks * blockSize);
  if (tokens > 0 && tessel_memcpy(ctx, slots, hostSlots.data(), tokens * 8, 0))
    die("memcpy");
  tessel_stream stream = nullptr;
  if (tessel_stream_create(ctx, &stream))
    die("stream");

  tessel_tensor tk{}, ts{}, tc{};
  tk.data = k;
  tk.dtype = TESSEL_DTYPE_BF16;
  tk.rank = 2;
  tk.shape[0] = tokens;
  tk.shape[1] = 128;
  tk.strides[0] = 128;
  tk.strides[1] = 1;
  ts.data = slots;
  ts.dtype = TESSEL_DTYPE_I64;
  ts.rank = 1;
  ts.shape[0] = tokens;
  ts.strides[0] = 1;
  tc.data = cache;
  tc.dtype = TESSEL_DTYPE_U8;
  tc.rank = 4;
  int64_t cs[4] = {numBlocks, blockSize, 1, 132};
  int64_t cst[4] = {blockSize * 132, 132, 132, 1};
  for (int i = 0; i < 4; ++i) {
    tc.shape[i] = cs[i];
    tc.strides[i] = cst[i];
  }

  using clk = std::chrono::steady_clock;
  // The bare driver launch of a kernel with the same signature, as the
  // baseline (built-in bundle only: the same empty kernel).
  using LaunchFn =
      int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
              unsigned, unsigned, void *, void **, void **);
  LaunchFn bare = nullptr;
  void *bareFn = nullptr, *noParamFn = nullptr;
  if (builtIn) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    using LoadFn = int (*)(void **, const void *);
    using GetFn = int (*)(void **, void *, const char *);
    auto load = lib ? (LoadFn)dlsym(lib, "cuModuleLoadData") : nullptr;
    auto get = lib ? (GetFn)dlsym(lib, "cuModuleGetFunction") : nullptr;
    void *mod = nullptr, *mod0 = nullptr;
    if (load && get && load(&mod, kEmptyPtx) == 0 &&
        get(&bareFn, mod, "indexer_k_cache_write") == 0 &&
        load(&mod0, kNoParamPtx) == 0 &&
        get(&noParamFn, mod0, "no_params") == 0)
      bare = lib ? (LaunchFn)dlsym(lib, "cuLaunchKernel") : nullptr;
  }
  uint64_t zeros[19] = {};
  void *bareParams[19];
  for (int i = 0; i < 19; ++i)
    bareParams[i] = &zeros[i];
  // The same 19 parameters in one buffer at their PTX offsets (15 u64, then
  // u32 at 120, u64 at 128, u32 at 136, u64 at 144): 152 bytes of zeros.
  alignas(8) unsigned char packed[152] = {};
  size_t packedSize = sizeof(packed);
  void *extra[] = {reinterpret_cast<void *>(1), packed,      // BUFFER_POINTER
                   reinterpret_cast<void *>(2), &packedSize, // BUFFER_SIZE
                   nullptr};                                 // END

  using clk = std::chrono::steady_clock;
  std::vector<OpRow> ops;
  if (!builtIn)
    ops = otherOps(ctx, stream);
  // Warm up (modules were loaded with the bundle; this warms caches).
  for (int i = 0; i < 500; ++i) {
    if (tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, stream))
      die("launch");
    for (OpRow &r : ops)
      if (r.call())
        die(r.name);
  }
  tessel_stream_synchronize(ctx, stream);

  // Interleave rounds of both so that clock and driver drift hit both alike.
  // Drain the stream between batches so the launch queue never fills (a full
  // queue would make launches block and time the GPU, not the host).
  std::vector<double> us, bus, packedUs, noParamUs;
  us.reserve(calls);
  bus.reserve(calls);
  // One bare launch of each kind, timed into `into`.
  auto timeBare = [&](std::vector<double> &into, void *fn, void **params,
                      void **ext) {
    auto t0 = clk::now();
    int r = bare(fn, 1, 1, 1, 64, 1, 1, 0, stream, params, ext);
    auto t1 = clk::now();
    if (r) {
      fprintf(stderr, "bare cuLaunchKernel failed: %d\n", r);
      bare = nullptr;
      return false;
    }
    into.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    return true;
  };
  const int kBatch = 256;
  for (int done = 0; done < calls; done += kBatch) {
    for (int i = 0; i < kBatch; ++i) {
      auto t0 = clk::now();
      tessel_status s =
          tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, stream);
      auto t1 = clk::now();
      if (s)
        die("launch");
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    tessel_stream_synchronize(ctx, stream);
    for (OpRow &r : ops) {
      for (int i = 0; i < kBatch; ++i) {
        auto t0 = clk::now();
        tessel_status s = r.call();
        auto t1 = clk::now();
        if (s)
          die(r.name);
        r.us.push_back(
            std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      tessel_stream_synchronize(ctx, stream);
    }
    if (!bare)
      continue;
    for (int i = 0; i < kBatch && bare; ++i)
      timeBare(bus, bareFn, bareParams, nullptr);
    tessel_stream_synchronize(ctx, stream);
    for (int i = 0; i < kBatch && bare; ++i)
      timeBare(packedUs, bareFn, nullptr, extra);
    tessel_stream_synchronize(ctx, stream);
    for (int i = 0; i < kBatch && bare; ++i)
      timeBare(noParamUs, noParamFn, nullptr, nullptr);
    tessel_stream_synchronize(ctx, stream);
  }
  Stats st = stats(us);
  bool haveBase = !bus.empty();
  Stats base = haveBase ? stats(bus) : Stats{0, 0, 0};

  printf("tokens per call: %lld, calls: %d\n", tokens, calls);
  printf("tessel_indexer_k_cache_write: median %.2f us, p90 %.2f us, mean "
         "%.2f us per call\n",
         st.median, st.p90, st.mean);
  for (const OpRow &r : ops) {
    Stats o = stats(r.us);
    printf("%-29s median %.2f us, p90 %.2f us, mean %.2f us per call\n",
           (std::string(r.name) + ":").c_str(), o.median, o.p90, o.mean);
  }
  if (haveBase) {
    printf("bare cuLaunchKernel:          median %.2f us, p90 %.2f us, mean "
           "%.2f us per call\n",
           base.median, base.p90, base.mean);
    printf("Tessel overhead over the driver: median %.2f us per call\n",
           st.median - base.median);
  }
  if (!packedUs.empty() && !noParamUs.empty()) {
    Stats pk = stats(packedUs), np = stats(noParamUs);
    printf("bare, one packed buffer:      median %.2f us, p90 %.2f us, mean "
           "%.2f us per call\n",
           pk.median, pk.p90, pk.mean);
    printf("bare, kernel without params:  median %.2f us, p90 %.2f us, mean "
           "%.2f us per call\n",
           np.median, np.p90, np.mean);
  }
  tessel_stream_destroy(ctx, stream);
  tessel_free(ctx, k);
  tessel_free(ctx, slots);
  tessel_free(ctx, cache);
  tessel_context_destroy(ctx);
  return 0;
}
