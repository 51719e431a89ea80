//===- metadata_bench.cpp - paged_mqa_logits_metadata time on a CUDA device
//===//
//
// tessel-metadata-bench: the device time of tessel_paged_mqa_logits_metadata
// for B in {1, 64, 256, 1024, 4096} 1-D lengths, num_cus 132 (the H200's
// SMs), split_tokens 256 (a benchmark program, not a test).
//
//   tessel-metadata-bench [--bundle FILE] [--iters N] [--ctx C]
//
// Lengths are uniform in [0.7, 1.3] * C (default 8192). Each call is timed
// with CUDA events around it alone, median of N (default 200) after 5
// warm-up calls; "vs empty" is the time over an empty one-block kernel
// timed the same way in the same run. Rows: the dispatcher's pick, then
// each code object of the device's targets alone. Every row's schedule is
// checked once against a host reference of the contract (tessel.h) before
// it is timed. Without a CUDA device it prints that it skips and exits 0.
//
//===----------------------------------------------------------------------===//

#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace {

// The CUDA driver entry points the timing needs (no CUDA headers).
struct Cuda {
  int (*eventCreate)(void **, unsigned) = nullptr;
  int (*eventRecord)(void *, void *) = nullptr;
  int (*eventSynchronize)(void *) = nullptr;
  int (*eventElapsed)(float *, void *, void *) = nullptr;
  int (*moduleLoadData)(void **, const void *) = nullptr;
  int (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **) = nullptr;

  bool load() {
    // The runtime has loaded the driver and made its context current.
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
      return false;
    auto sym = [&](const char *n, auto &f) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, n));
      return f != nullptr;
    };
    bool ok = sym("cuEventCreate", eventCreate) &&
              sym("cuEventRecord", eventRecord) &&
              sym("cuEventSynchronize", eventSynchronize) &&
              sym("cuModuleLoadData", moduleLoadData) &&
              sym("cuModuleGetFunction", moduleGetFunction) &&
              sym("cuLaunchKernel", launchKernel);
    if (!sym("cuEventElapsedTime_v2", eventElapsed))
      ok = ok && sym("cuEventElapsedTime", eventElapsed);
    return ok;
  }
};

Cuda cu;

[[noreturn]] void fatal(const char *what) {
  fprintf(stderr, "tessel-metadata-bench: %s: %s\n", what, tessel_last_error());
  exit(2);
}

void check(int rc, const char *what) {
  if (rc != 0) {
    fprintf(stderr, "tessel-metadata-bench: %s failed (CUresult %d)\n", what,
            rc);
    exit(2);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times `launch` alone between two events, `iters` times after 5 warm-ups.
template <typename F>
double timeUs(void *stream, void *ev0, void *ev1, int iters, F launch) {
  std::vector<double> us;
  for (int i = -5; i < iters; ++i) {
    check(cu.eventRecord(ev0, stream), "cuEventRecord");
    if (!launch())
      return -1;
    check(cu.eventRecord(ev1, stream), "cuEventRecord");
    check(cu.eventSynchronize(ev1), "cuEventSynchronize");
    float ms = 0;
    check(cu.eventElapsed(&ms, ev0, ev1), "cuEventElapsedTime");
    if (i >= 0)
      us.push_back(ms * 1e3);
  }
  return median(us);
}

// The contract of tessel.h, serially in int64: unit i starts at global
// segment i*q + min(i, rem), held by the first batch whose inclusive prefix
// passes it.
std::vector<int32_t> reference(const std::vector<int32_t> &lens, int split,
                               int n) {
  std::vector<int64_t> incl(lens.size());
  int64_t s = 0;
  for (size_t b = 0; b < lens.size(); ++b) {
    s += (std::max(lens[b], 0) + int64_t(split) - 1) / split;
    incl[b] = s;
  }
  std::vector<int32_t> out(2 * (n + 1));
  const int64_t q = s / n, rem = s % n;
  for (int i = 0; i <= n; ++i) {
    const int64_t g = i == n ? s : i * q + std::min<int64_t>(i, rem);
    const size_t b =
        std::upper_bound(incl.begin(), incl.end(), g) - incl.begin();
    out[2 * i] = static_cast<int32_t>(b);
    out[2 * i + 1] =
        b == lens.size() ? 0 : static_cast<int32_t>(g - (b ? incl[b - 1] : 0));
  }
  return out;
}

const char *kEmptyPtx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry empty() { ret; }\n";

constexpr int kNumCus = 132;
constexpr int kSplit = 256;

} // namespace

int main(int argc, char **argv) {
  std::string bundlePath;
  int iters = 200;
  double ctxTokens = 8192;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bundle" && i + 1 < argc)
      bundlePath = argv[++i];
    else if (a == "--iters" && i + 1 < argc)
      iters = std::max(5, atoi(argv[++i]));
    else if (a == "--ctx" && i + 1 < argc)
      ctxTokens = std::max(1.0, atof(argv[++i]));
    else {
      fprintf(stderr, "usage: %s [--bundle FILE] [--iters N] [--ctx C]\n",
              argv[0]);
      return 2;
    }
  }
  if (bundlePath.empty()) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string self = n > 0 ? std::string(buf, n) : "./x";
    bundlePath =
        self.substr(0, self.rfind('/')) + "/../kernels/tessel_kernels.tbundle";
  }
  tessel_context *ctx = nullptr;
  if (tessel_context_create("cuda", 0, &ctx) != TESSEL_SUCCESS) {
    printf("SKIP: no CUDA device (%s); this benchmark needs one\n",
           tessel_last_error());
    return 0;
  }
  if (!cu.load()) {
    printf("SKIP: libcuda.so.1 lacks the event entry points\n");
    return 0;
  }
  tessel::Bundle bundle;
  std::string err;
  if (!tessel::readBundleFile(bundlePath, bundle, err)) {
    fprintf(stderr, "tessel-metadata-bench: %s\n", err.c_str());
    return 2;
  }
  if (tessel_context_load_bundle(ctx, bundlePath.c_str()) != TESSEL_SUCCESS)
    fatal("tessel_context_load_bundle");
  const std::string arch = tessel_context_arch(ctx);
  printf("device: cuda %s, %d SMs; bundle %s\n", arch.c_str(),
         tessel_context_cu_count(ctx), bundlePath.c_str());
  tessel_stream stream = nullptr;
  if (tessel_stream_create(ctx, &stream) != TESSEL_SUCCESS)
    fatal("tessel_stream_create");
  void *ev0 = nullptr, *ev1 = nullptr;
  check(cu.eventCreate(&ev0, 0), "cuEventCreate");
  check(cu.eventCreate(&ev1, 0), "cuEventCreate");

  void *mod = nullptr, *empty = nullptr;
  check(cu.moduleLoadData(&mod, kEmptyPtx), "cuModuleLoadData");
  check(cu.moduleGetFunction(&empty, mod, "empty"), "cuModuleGetFunction");
  const double emptyUs = timeUs(stream, ev0, ev1, iters, [&] {
    check(
        cu.launchKernel(empty, 1, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr),
        "cuLaunchKernel");
    return true;
  });
  printf("empty kernel (1 block, CUDA events): %.2f us (median of %d)\n",
         emptyUs, iters);

  // One context per code object of this device, for the per-variant rows.
  std::vector<std::pair<std::string, tessel_context *>> rows = {
      {"dispatcher's pick", ctx}};
  for (const tessel::BundleEntry &e : bundle.entries) {
    if (e.kernel != "paged_mqa_logits_metadata" ||
        e.format == tessel::CodeFormat::Simt ||
        tessel::codeObjectRank(e, arch, e.format) < 0)
      continue;
    tessel::Bundle one;
    one.compilerVersion = bundle.compilerVersion;
    one.entries.push_back(e);
    std::string bytes;
    char path[] = "/tmp/tessel-metadata-bench-XXXXXX";
    int fd = mkstemp(path);
    if (!tessel::serializeBundle(one, bytes, err) || fd < 0 ||
        write(fd, bytes.data(), bytes.size()) !=
            static_cast<ssize_t>(bytes.size())) {
      fprintf(stderr, "tessel-metadata-bench: cannot write a one-variant "
                      "bundle\n");
      return 2;
    }
    close(fd);
    tessel_context *v = nullptr;
    if (tessel_context_create("cuda", 0, &v) != TESSEL_SUCCESS ||
        tessel_context_load_bundle(v, path) != TESSEL_SUCCESS)
      fatal("one-variant context");
    unlink(path);
    int64_t waves = 0;
    e.knob("num_waves", waves);
    rows.push_back({e.target + " waves=" + std::to_string(waves), v});
  }

  printf("\n%-6s %-24s %12s %9s %7s\n", "B", "kernel", "us (median)",
         "vs empty", "check");
  std::mt19937 rng(11);
  bool allOk = true;
  for (int B : {1, 64, 256, 1024, 4096}) {
    std::uniform_int_distribution<int> len(int(0.7 * ctxTokens),
                                           int(1.3 * ctxTokens));
    std::vector<int32_t> lens(B);
    for (int32_t &l : lens)
      l = len(rng);
    const std::vector<int32_t> want = reference(lens, kSplit, kNumCus);
    void *dLens = nullptr, *dSched = nullptr;
    const size_t schedBytes = want.size() * sizeof(int32_t);
    if (tessel_malloc(ctx, B * sizeof(int32_t), &dLens) ||
        tessel_malloc(ctx, schedBytes, &dSched) ||
        tessel_memcpy(ctx, dLens, lens.data(), B * sizeof(int32_t), 0))
      fatal("set up the inputs");
    tessel_tensor tl{}, ts{};
    tl.data = dLens;
    tl.dtype = TESSEL_DTYPE_I32;
    tl.rank = 1;
    tl.shape[0] = B;
    tl.strides[0] = 1;
    ts.data = dSched;
    ts.dtype = TESSEL_DTYPE_I32;
    ts.rank = 2;
    ts.shape[0] = kNumCus + 1;
    ts.shape[1] = 2;
    ts.strides[0] = 2;
    ts.strides[1] = 1;
    for (auto &[name, c] : rows) {
      auto launch = [&, c = c] {
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
      const double us = ok ? timeUs(stream, ev0, ev1, iters, launch) : -1;
      printf("%-6d %-24s %12.2f %+9.2f %7s\n", B, name.c_str(), us,
             us - emptyUs, ok ? "ok" : "WRONG");
      fflush(stdout);
    }
    tessel_free(ctx, dLens);
    tessel_free(ctx, dSched);
  }
  for (size_t i = 1; i < rows.size(); ++i)
    tessel_context_destroy(rows[i].second);
  tessel_stream_destroy(ctx, stream);
  tessel_context_destroy(ctx);
  return allOk ? 0 : 1;
}
