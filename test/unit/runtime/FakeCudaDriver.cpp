//===- FakeCudaDriver.cpp - A stand-in libcuda.so.1 for host-path tests ---===//
//
// The driver entry points the cuda backend resolves, answering for one
// sm_90 device with 132 SMs. Memory is host memory; launches do nothing but
// count (and keep the last grid and parameters), so tests and profiles of
// the launch path see only Tessel's own host cost.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
int gCtx;
int gModule;
int gFunction;
uint64_t gLaunches;
unsigned gLastGrid[3];
unsigned gLastBlockX;
constexpr unsigned kMaxKeptParams = 32;
unsigned gKeptParams; // how many launches keep (they cannot know the count)
uint64_t gLastParams[kMaxKeptParams]; // the first 8 bytes of each
thread_local void *gCurrent;
} // namespace

#define FAKE_API extern "C" __attribute__((visibility("default"))) int

FAKE_API cuInit(unsigned) { return 0; }
FAKE_API cuDeviceGetCount(int *n) {
  *n = 1;
  return 0;
}
FAKE_API cuDeviceGet(int *d, int ordinal) {
  *d = ordinal;
  return ordinal == 0 ? 0 : 101; // CUDA_ERROR_INVALID_DEVICE
}
FAKE_API cuDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 16: // multiprocessor count
    *v = 132;
    return 0;
  case 75: // compute capability major
    *v = 9;
    return 0;
  case 76: // minor
    *v = 0;
    return 0;
  default:
    *v = 0;
    return 0;
  }
}
FAKE_API cuDevicePrimaryCtxRetain(void **ctx, int) {
  *ctx = &gCtx;
  return 0;
}
FAKE_API cuCtxSetCurrent(void *ctx) {
  gCurrent = ctx;
  return 0;
}
FAKE_API cuCtxGetCurrent(void **ctx) {
  *ctx = gCurrent;
  return 0;
}
FAKE_API cuModuleLoadDataEx(void **m, const void *, unsigned, int *, void **) {
  *m = &gModule;
  return 0;
}
FAKE_API cuModuleLoadData(void **m, const void *) {
  *m = &gModule;
  return 0;
}
FAKE_API cuModuleGetFunction(void **f, void *, const char *) {
  *f = &gFunction;
  return 0;
}
FAKE_API cuLaunchKernel(void *, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned, unsigned, unsigned, void *,
                        void **params, void **) {
  if (!params)
    return 1; // CUDA_ERROR_INVALID_VALUE
  gLastGrid[0] = gx;
  gLastGrid[1] = gy;
  gLastGrid[2] = gz;
  gLastBlockX = bx;
  // The caller's parameter storage dies with the call: keep copies. (Every
  // parameter of Tessel's kernels takes an 8-byte slot.)
  for (unsigned i = 0; i < gKeptParams; ++i)
    memcpy(&gLastParams[i], params[i], sizeof(uint64_t));
  ++gLaunches;
  return 0;
}
FAKE_API cuStreamCreate(void **s, unsigned) {
  static int stream;
  *s = &stream;
  return 0;
}
FAKE_API cuStreamDestroy_v2(void *) { return 0; }
FAKE_API cuStreamSynchronize(void *) { return 0; }
// Fresh memory holds garbage, as a real allocation may: a buffer that must
// start zero has to be cleared.
static uint64_t gAllocs;
FAKE_API cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  ++gAllocs;
  size_t rounded = (bytes + 255) & ~size_t(255);
  void *m = aligned_alloc(256, rounded);
  if (!m)
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  memset(m, 0xa5, rounded);
  *p = reinterpret_cast<unsigned long long>(m);
  return 0;
}
FAKE_API cuMemFree_v2(unsigned long long p) {
  free(reinterpret_cast<void *>(p));
  return 0;
}
FAKE_API cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) {
  memcpy(reinterpret_cast<void *>(d), s, n);
  return 0;
}
FAKE_API cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) {
  memcpy(d, reinterpret_cast<const void *>(s), n);
  return 0;
}
FAKE_API cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n) {
  memcpy(reinterpret_cast<void *>(d), reinterpret_cast<const void *>(s), n);
  return 0;
}
// An SM of 2048 threads and at most 32 blocks, whatever the kernel uses.
FAKE_API cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *,
                                                     int blockSize, size_t) {
  *n = blockSize > 0 ? (2048 / blockSize < 32 ? 2048 / blockSize : 32) : 0;
  return 0;
}
FAKE_API cuGetErrorString(int, const char **s) {
  *s = "fake driver error";
  return 0;
}

/// For tests: launches so far, and the grid of the last one.
extern "C" __attribute__((visibility("default"))) uint64_t
fakeCudaLaunches(unsigned grid[3]) {
  if (grid)
    memcpy(grid, gLastGrid, sizeof(gLastGrid));
  return gLaunches;
}

/// For tests: cuMemAlloc calls so far.
extern "C" __attribute__((visibility("default"))) uint64_t fakeCudaAllocs() {
  return gAllocs;
}

/// For tests: the workgroup size (x) of the last launch.
extern "C" __attribute__((visibility("default"))) unsigned fakeCudaLastBlock() {
  return gLastBlockX;
}

/// For tests: later launches keep their first n parameters (the test
/// promises the kernels have that many), at most 32.
extern "C" __attribute__((visibility("default"))) void
fakeCudaKeepParams(unsigned n) {
  gKeptParams = n < kMaxKeptParams ? n : kMaxKeptParams;
}

/// For tests: the first 8 bytes of kept parameter i of the last launch.
extern "C" __attribute__((visibility("default"))) uint64_t
fakeCudaLastParam(unsigned i) {
  return i < kMaxKeptParams ? gLastParams[i] : 0;
}
