//===- bench_support.cpp - What the GPU benchmark drivers share -----------===//

#include "bench_support.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>
#include <unistd.h>

namespace bench {

CudaDriver cu;

bool CudaDriver::load() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib)
    return false;
  auto sym = [&](const char *n, auto &f) {
    f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, n));
    return f != nullptr;
  };
  bool ok = sym("cuInit", init) && sym("cuDeviceGet", deviceGet) &&
            sym("cuDevicePrimaryCtxRetain", primaryCtxRetain) &&
            sym("cuCtxSetCurrent", ctxSetCurrent) &&
            sym("cuEventCreate", eventCreate) &&
            sym("cuEventRecord", eventRecord) &&
            sym("cuEventSynchronize", eventSynchronize) &&
            sym("cuMemcpyDtoDAsync_v2", memcpyDtoDAsync) &&
            sym("cuModuleLoadData", moduleLoadData) &&
            sym("cuModuleGetFunction", moduleGetFunction) &&
            sym("cuLaunchKernel", launchKernel) &&
            sym("cuStreamBeginCapture_v2", streamBeginCapture) &&
            sym("cuStreamEndCapture", streamEndCapture) &&
            sym("cuGraphInstantiateWithFlags", graphInstantiate) &&
            sym("cuGraphLaunch", graphLaunch) &&
            sym("cuGraphExecDestroy", graphExecDestroy) &&
            sym("cuGraphDestroy", graphDestroy);
  if (!sym("cuEventElapsedTime_v2", eventElapsed))
    ok = ok && sym("cuEventElapsedTime", eventElapsed);
  return ok;
}

void check(int rc, const char *what) {
  if (rc == 0)
    return;
  fprintf(stderr, "%s: %s failed (CUresult %d)\n",
          program_invocation_short_name, what, rc);
  exit(2);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double medianEventUs(void *stream, void *ev0, void *ev1, int iters,
                     const std::function<bool(int)> &launch) {
  std::vector<double> us;
  for (int i = -5; i < iters; ++i) {
    check(cu.eventRecord(ev0, stream), "cuEventRecord");
    if (!launch(i))
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

double graphReplayUs(void *stream, void *ev0, void *ev1, int nodes, int replays,
                     const std::function<bool(int)> &launch) {
  constexpr int kCaptureThreadLocal = 1; // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
  void *graph = nullptr, *exec = nullptr;
  check(cu.streamBeginCapture(stream, kCaptureThreadLocal),
        "cuStreamBeginCapture");
  bool ok = true;
  for (int i = 0; i < nodes && ok; ++i)
    ok = launch(i);
  // End the capture also after a failed launch, so the stream is usable.
  check(cu.streamEndCapture(stream, &graph), "cuStreamEndCapture");
  if (!ok) {
    cu.graphDestroy(graph);
    return -1;
  }
  check(cu.graphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  std::vector<double> us;
  for (int r = -2; r < replays; ++r) {
    check(cu.eventRecord(ev0, stream), "cuEventRecord");
    check(cu.graphLaunch(exec, stream), "cuGraphLaunch");
    check(cu.eventRecord(ev1, stream), "cuEventRecord");
    check(cu.eventSynchronize(ev1), "cuEventSynchronize");
    float ms = 0;
    check(cu.eventElapsed(&ms, ev0, ev1), "cuEventElapsedTime");
    if (r >= 0)
      us.push_back(ms * 1e3 / nodes);
  }
  check(cu.graphExecDestroy(exec), "cuGraphExecDestroy");
  check(cu.graphDestroy(graph), "cuGraphDestroy");
  return median(us);
}

EmptyKernel::EmptyKernel() {
  static const char *kEmptyPtx = ".version 8.0\n.target sm_90\n"
                                 ".address_size 64\n"
                                 ".visible .entry empty() { ret; }\n";
  void *mod = nullptr;
  check(cu.moduleLoadData(&mod, kEmptyPtx), "cuModuleLoadData");
  check(cu.moduleGetFunction(&fn, mod, "empty"), "cuModuleGetFunction");
}

bool EmptyKernel::launch(void *stream) const {
  check(cu.launchKernel(fn, 1, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr),
        "cuLaunchKernel");
  return true;
}

double emptyKernelUs(void *stream, void *ev0, void *ev1, int iters) {
  EmptyKernel empty;
  return medianEventUs(stream, ev0, ev1, iters,
                       [&](int) { return empty.launch(stream); });
}

std::string defaultBundlePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self = n > 0 ? std::string(buf, n) : "./x";
  return self.substr(0, self.rfind('/')) + "/../kernels/tessel_kernels.tbundle";
}

bool openCudaBench(const std::string &bundlePath, CudaBench &b) {
  if (tessel_context_create("cuda", 0, &b.ctx) != TESSEL_SUCCESS) {
    printf("SKIP: no CUDA device (%s); this benchmark needs one\n",
           tessel_last_error());
    return false;
  }
  if (!cu.load()) {
    printf("SKIP: libcuda.so.1 lacks the event entry points\n");
    return false;
  }
  check(cu.init(0), "cuInit");
  int dev = 0;
  void *pctx = nullptr;
  check(cu.deviceGet(&dev, 0), "cuDeviceGet");
  check(cu.primaryCtxRetain(&pctx, dev), "cuDevicePrimaryCtxRetain");
  check(cu.ctxSetCurrent(pctx), "cuCtxSetCurrent");
  std::string err;
  if (!tessel::readBundleFile(bundlePath, b.bundle, err)) {
    fprintf(stderr, "%s: %s\n", program_invocation_short_name, err.c_str());
    exit(2);
  }
  if (tessel_context_load_bundle(b.ctx, bundlePath.c_str()) != TESSEL_SUCCESS)
    fatal("tessel_context_load_bundle");
  printf("device: cuda %s, %d SMs; bundle %s\n", tessel_context_arch(b.ctx),
         tessel_context_cu_count(b.ctx), bundlePath.c_str());
  if (tessel_stream_create(b.ctx, &b.stream) != TESSEL_SUCCESS)
    fatal("tessel_stream_create");
  check(cu.eventCreate(&b.ev0, 0), "cuEventCreate");
  check(cu.eventCreate(&b.ev1, 0), "cuEventCreate");
  return true;
}

tessel_context *oneVariantContext(const char *device, const tessel::Bundle &b,
                                  const tessel::BundleEntry &e) {
  tessel::Bundle one;
  one.compilerVersion = b.compilerVersion;
  one.entries.push_back(e);
  std::string bytes, err;
  char path[] = "/tmp/tessel-variant-XXXXXX";
  int fd = mkstemp(path);
  bool written = fd >= 0 && tessel::serializeBundle(one, bytes, err) &&
                 write(fd, bytes.data(), bytes.size()) ==
                     static_cast<ssize_t>(bytes.size());
  if (fd >= 0)
    close(fd);
  if (!written) {
    fprintf(stderr, "%s: cannot write a one-variant bundle for %s %s\n",
            program_invocation_short_name, e.name.c_str(), err.c_str());
    exit(2);
  }
  tessel_context *ctx = nullptr;
  bool ok = tessel_context_create(device, 0, &ctx) == TESSEL_SUCCESS &&
            tessel_context_load_bundle(ctx, path) == TESSEL_SUCCESS;
  unlink(path);
  if (!ok)
    fatal(("a context for " + e.name).c_str());
  return ctx;
}

} // namespace bench
