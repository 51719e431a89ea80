//===- bench_support.h - What the GPU benchmark drivers share ---*- C++ -*-===//
//
// The CUDA driver entry points the benchmarks time with (through dlopen: the
// drivers link only the runtime), the event-timed median of a call, the
// empty kernel's launch as the floor, the default kernel library, and a
// context holding a single code object for the per-variant rows. Any driver
// failure is a setup error: the message names the call and the program
// exits with status 2.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOOLS_RUN_INDEXER_BENCH_SUPPORT_H
#define TESSEL_TOOLS_RUN_INDEXER_BENCH_SUPPORT_H

#include "device_buffer.h"
#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using indexer::fatal;

struct CudaDriver {
  int (*init)(unsigned) = nullptr;
  int (*deviceGet)(int *, int) = nullptr;
  int (*primaryCtxRetain)(void **, int) = nullptr;
  int (*ctxSetCurrent)(void *) = nullptr;
  int (*eventCreate)(void **, unsigned) = nullptr;
  int (*eventRecord)(void *, void *) = nullptr;
  int (*eventSynchronize)(void *) = nullptr;
  int (*eventElapsed)(float *, void *, void *) = nullptr;
  int (*memcpyDtoDAsync)(uint64_t, uint64_t, size_t, void *) = nullptr;
  int (*moduleLoadData)(void **, const void *) = nullptr;
  int (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **) = nullptr;
  int (*streamBeginCapture)(void *, int) = nullptr;
  int (*streamEndCapture)(void *, void **) = nullptr;
  int (*graphInstantiate)(void **, void *, unsigned long long) = nullptr;
  int (*graphLaunch)(void *, void *) = nullptr;
  int (*graphExecDestroy)(void *) = nullptr;
  int (*graphDestroy)(void *) = nullptr;

  /// False when libcuda.so.1 or one of the entry points is missing.
  bool load();
};

extern CudaDriver cu;

/// Exits (status 2) when a driver call failed.
void check(int rc, const char *what);

double median(std::vector<double> v);

/// The median over `iters` calls (after 5 warm-up calls) of the device time
/// between two events on `stream` around `launch(i)` (i from -5), or -1
/// when a launch returns false.
double medianEventUs(void *stream, void *ev0, void *ev1, int iters,
                     const std::function<bool(int)> &launch);

/// Kernel time without the host's launch latency: `nodes` calls of
/// `launch(i)` (i from 0) captured into one CUDA graph, replayed `replays`
/// times (after 2 warm-up replays) between two events; the median replay
/// time divided by `nodes`, or -1 when a launch returns false. Back-to-back
/// launches of the same kernel would time the host's launch rate instead.
double graphReplayUs(void *stream, void *ev0, void *ev1, int nodes, int replays,
                     const std::function<bool(int)> &launch);

/// An empty one-block kernel's launch: the floor of both timings.
struct EmptyKernel {
  void *fn = nullptr;
  EmptyKernel();
  bool launch(void *stream) const;
};

/// The same for an empty one-block kernel: the launch floor.
double emptyKernelUs(void *stream, void *ev0, void *ev1, int iters);

/// ../kernels/tessel_kernels.tbundle next to this program.
std::string defaultBundlePath();

/// A benchmark's CUDA set-up: the context with the bundle loaded, a
/// stream, and two events, with the driver's primary context current.
struct CudaBench {
  tessel_context *ctx = nullptr;
  tessel::Bundle bundle;
  tessel_stream stream = nullptr;
  void *ev0 = nullptr, *ev1 = nullptr;
};
/// False (after printing SKIP and why) without a CUDA device; exits on a
/// bad bundle or a failing driver.
bool openCudaBench(const std::string &bundlePath, CudaBench &b);

/// A context on `device` whose only code object is `e` (of bundle `b`).
tessel_context *oneVariantContext(const char *device, const tessel::Bundle &b,
                                  const tessel::BundleEntry &e);

} // namespace bench

#endif // TESSEL_TOOLS_RUN_INDEXER_BENCH_SUPPORT_H
