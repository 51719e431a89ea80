//===- Fp8Check.cpp - fp8 conversions of the NVIDIA back end on a GPU -----===//
//
// Runs the sm_90 PTX that tessel-translate made from fp8_convert.mlir on a
// CUDA device and compares it with a brute-force e4m3fn reference: truncf
// must round to nearest even, saturate to +-448 and keep NaN; extf must be
// exact for all 256 encodings. Needs no LLVM: it loads libcuda.so.1 at run
// time and exits with 77 (skipped) when there is no driver or device.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void *;

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(Handle *, CUdevice);
  CUresult (*ctxSetCurrent)(Handle);
  CUresult (*moduleLoadData)(Handle *, const void *);
  CUresult (*moduleGetFunction)(Handle *, Handle, const char *);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*launchKernel)(Handle, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, Handle, void **,
                           void **);
  CUresult (*ctxSynchronize)();
};

template <typename F> bool load(void *lib, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

/// The value of an e4m3fn encoding (bias 7, 3 mantissa bits, 0x7f/0xff NaN).
float decode(uint8_t b) {
  int sign = b >> 7, exp = (b >> 3) & 15, man = b & 7;
  float v;
  if (exp == 15 && man == 7)
    v = NAN;
  else if (exp == 0)
    v = std::ldexp(man / 8.0f, -6);
  else
    v = std::ldexp(1.0f + man / 8.0f, exp - 7);
  return sign ? -v : v;
}

/// Round to nearest even among all finite encodings, saturating.
uint8_t encode(float x) {
  if (std::isnan(x))
    return 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(static_cast<double>(x));
  if (a >= 448.0)
    return sign | 0x7e;
  uint8_t best = 0;
  double bestErr = INFINITY;
  for (int b = 0; b <= 0x7e; ++b) {
    double err = std::fabs(static_cast<double>(decode(b)) - a);
    if (err < bestErr || (err == bestErr && (b & 1) == 0)) {
      best = static_cast<uint8_t>(b);
      bestErr = err;
    }
  }
  return sign | best;
}

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult r = (call);                                                       \
    if (r != 0) {                                                              \
      std::fprintf(stderr, "%s failed: %d\n", #call, r);                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s fp8_convert.ptx\n", argv[0]);
    return 2;
  }
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    std::printf("SKIP: no libcuda.so.1\n");
    return 77;
  }
  Driver d;
  bool ok = load(lib, "cuInit", d.init) &&
            load(lib, "cuDeviceGet", d.deviceGet) &&
            load(lib, "cuDevicePrimaryCtxRetain", d.primaryCtxRetain) &&
            load(lib, "cuCtxSetCurrent", d.ctxSetCurrent) &&
            load(lib, "cuModuleLoadData", d.moduleLoadData) &&
            load(lib, "cuModuleGetFunction", d.moduleGetFunction) &&
            load(lib, "cuMemAlloc_v2", d.memAlloc) &&
            load(lib, "cuMemcpyHtoD_v2", d.memcpyHtoD) &&
            load(lib, "cuMemcpyDtoH_v2", d.memcpyDtoH) &&
            load(lib, "cuLaunchKernel", d.launchKernel) &&
            load(lib, "cuCtxSynchronize", d.ctxSynchronize);
  if (!ok) {
    std::fprintf(stderr, "libcuda.so.1 lacks a driver API entry point\n");
    return 1;
  }
  CUdevice dev;
  if (d.init(0) != 0 || d.deviceGet(&dev, 0) != 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  if (ptx.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  Handle ctx, module, truncFn, extFn;
  CHECK_CU(d.primaryCtxRetain(&ctx, dev));
  CHECK_CU(d.ctxSetCurrent(ctx));
  CHECK_CU(d.moduleLoadData(&module, ptx.c_str()));
  CHECK_CU(d.moduleGetFunction(&truncFn, module, "trunc"));
  CHECK_CU(d.moduleGetFunction(&extFn, module, "ext"));

  // truncf: special values, every encoding's value and the midpoints between
  // neighbours (the ties), then random values across the range.
  std::vector<float> in = {0.0f,      -0.0f,  1.0f,    -1.0f,  448.0f,
                           -448.0f,   464.0f, 1000.0f, -1e30f, INFINITY,
                           -INFINITY, NAN,    1e-9f,   -1e-9f, 0.001953125f};
  for (int b = 0; b < 0x7e; ++b) {
    float lo = decode(b), hi = decode(b + 1);
    in.push_back(lo);
    in.push_back(-(lo + hi) / 2);
    in.push_back((lo + hi) / 2);
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-12.0f, 10.0f);
  std::bernoulli_distribution negative(0.5);
  while (in.size() % 256 != 0)
    in.push_back((negative(rng) ? -1.0f : 1.0f) * std::exp2(exponent(rng)));
  size_t n = in.size();

  CUdeviceptr dIn, dOut, dQ, dF;
  CHECK_CU(d.memAlloc(&dIn, n * 4));
  CHECK_CU(d.memAlloc(&dOut, n));
  CHECK_CU(d.memAlloc(&dQ, 256));
  CHECK_CU(d.memAlloc(&dF, 256 * 4));
  CHECK_CU(d.memcpyHtoD(dIn, in.data(), n * 4));
  long long zero = 0, one = 1, count = static_cast<long long>(n), c256 = 256;
  // Memrefs are (allocated, aligned, offset, size, stride).
  void *truncArgs[] = {&dIn,  &dIn,  &zero, &count, &one,
                       &dOut, &dOut, &zero, &count, &one};
  CHECK_CU(d.launchKernel(truncFn, static_cast<unsigned>(n / 256), 1, 1, 64, 1,
                          1, 0, nullptr, truncArgs, nullptr));
  CHECK_CU(d.ctxSynchronize());
  std::vector<uint8_t> got(n);
  CHECK_CU(d.memcpyDtoH(got.data(), dOut, n));
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t want = encode(in[i]);
    bool match = std::isnan(in[i]) ? (got[i] & 0x7f) == 0x7f : got[i] == want;
    if (!match && bad++ < 10)
      std::printf("truncf(%a) = 0x%02x, want 0x%02x\n", in[i], got[i], want);
  }

  std::vector<uint8_t> q(256);
  for (int i = 0; i < 256; ++i)
    q[i] = static_cast<uint8_t>(i);
  CHECK_CU(d.memcpyHtoD(dQ, q.data(), 256));
  void *extArgs[] = {&dQ, &dQ, &zero, &c256, &one,
                     &dF, &dF, &zero, &c256, &one};
  CHECK_CU(
      d.launchKernel(extFn, 1, 1, 1, 64, 1, 1, 0, nullptr, extArgs, nullptr));
  CHECK_CU(d.ctxSynchronize());
  std::vector<float> f(256);
  CHECK_CU(d.memcpyDtoH(f.data(), dF, 256 * 4));
  for (int i = 0; i < 256; ++i) {
    float want = decode(static_cast<uint8_t>(i));
    bool match = std::isnan(want) ? std::isnan(f[i])
                                  : (f[i] == want &&
                                     std::signbit(f[i]) == std::signbit(want));
    if (!match && bad++ < 20)
      std::printf("extf(0x%02x) = %a, want %a\n", i, f[i], want);
  }
  std::printf("%s: %zu truncf values, 256 extf encodings, %d mismatches\n",
              bad ? "FAIL" : "PASS", n, bad);
  return bad ? 1 : 0;
}
