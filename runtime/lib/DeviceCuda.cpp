//===- DeviceCuda.cpp - The cuda device through the CUDA driver API -------===//
//
// libcuda.so.1 is dlopen()ed; the few driver entry points Tessel needs are
// declared here, so no CUDA header or library is needed at build time.
// Modules are PTX text that the driver JIT-compiles (cuModuleLoadDataEx).
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <dlfcn.h>

namespace tessel {

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUdeviceptr = unsigned long long;

constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;

const char *cudaLibraryName = "libcuda.so.1";

struct CudaApi {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetAttribute)(int *, int, CUdevice);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxGetCurrent)(CUcontext *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*occupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int,
                                                        size_t);
};

std::mutex cudaMutex;
CudaApi *cudaApi = nullptr;
std::string cudaLoadError;

template <typename F> bool sym(void *lib, const char *name, F &f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

Status loadCuda(CudaApi **out) {
  std::lock_guard<std::mutex> lock(cudaMutex);
  if (cudaApi) {
    *out = cudaApi;
    return Status::ok();
  }
  if (!cudaLoadError.empty())
    return Status::error(TESSEL_ERROR_NO_DEVICE, cudaLoadError);
  void *lib = dlopen(cudaLibraryName, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *e = dlerror();
    cudaLoadError = format("the cuda device needs the CUDA driver (%s), which "
                           "is not installed on this machine: %s",
                           cudaLibraryName, e ? e : "dlopen failed");
    return Status::error(TESSEL_ERROR_NO_DEVICE, cudaLoadError);
  }
  auto *a = new CudaApi();
  bool ok = sym(lib, "cuInit", a->init) &&
            sym(lib, "cuDeviceGetCount", a->deviceGetCount) &&
            sym(lib, "cuDeviceGet", a->deviceGet) &&
            sym(lib, "cuDeviceGetAttribute", a->deviceGetAttribute) &&
            sym(lib, "cuDevicePrimaryCtxRetain", a->primaryCtxRetain) &&
            sym(lib, "cuCtxSetCurrent", a->ctxSetCurrent) &&
            sym(lib, "cuCtxGetCurrent", a->ctxGetCurrent) &&
            sym(lib, "cuModuleLoadDataEx", a->moduleLoadDataEx) &&
            sym(lib, "cuModuleGetFunction", a->moduleGetFunction) &&
            sym(lib, "cuLaunchKernel", a->launchKernel) &&
            sym(lib, "cuStreamCreate", a->streamCreate) &&
            sym(lib, "cuStreamDestroy_v2", a->streamDestroy) &&
            sym(lib, "cuStreamSynchronize", a->streamSynchronize) &&
            sym(lib, "cuMemAlloc_v2", a->memAlloc) &&
            sym(lib, "cuMemFree_v2", a->memFree) &&
            sym(lib, "cuMemcpyHtoD_v2", a->memcpyHtoD) &&
            sym(lib, "cuMemcpyDtoH_v2", a->memcpyDtoH) &&
            sym(lib, "cuMemcpyDtoD_v2", a->memcpyDtoD) &&
            sym(lib, "cuGetErrorString", a->getErrorString) &&
            sym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                a->occupancyMaxActiveBlocksPerMultiprocessor);
  if (!ok) {
    delete a;
    cudaLoadError = format("%s lacks a CUDA driver entry point Tessel needs",
                           cudaLibraryName);
    return Status::error(TESSEL_ERROR_NO_DEVICE, cudaLoadError);
  }
  CUresult r = a->init(0);
  if (r != 0) {
    const char *msg = nullptr;
    a->getErrorString(r, &msg);
    cudaLoadError = format("cuInit failed: %s (%d)", msg ? msg : "?", r);
    delete a;
    return Status::error(TESSEL_ERROR_NO_DEVICE, cudaLoadError);
  }
  cudaApi = a;
  *out = a;
  return Status::ok();
}

class CudaDevice final : public Device {
public:
  CudaDevice(CudaApi *api, CUcontext ctx, int ordinal, std::string arch,
             int cus)
      : api_(api), ctx_(ctx) {
    ordinal_ = ordinal;
    arch_ = std::move(arch);
    cuCount_ = cus;
  }
  const char *kind() const override { return "cuda"; }
  CodeFormat codeFormat() const override { return CodeFormat::Ptx; }

  Status launch(void *fn, const uint32_t grid[3], const uint32_t block[3],
                void **params, size_t, void *stream) override {
    if (Status s = makeCurrent())
      return s;
    CUresult r =
        api_->launchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
                           block[2], 0, stream, params, nullptr);
    return check(r, "cuLaunchKernel", TESSEL_ERROR_LAUNCH);
  }
  // The driver knows the kernel's registers and shared memory (Tessel's
  // PTX declares it statically, so no dynamic bytes) and the SM's limits.
  Status maxResidentPrograms(const BundleEntry &e, void *fn,
                             int64_t &out) override {
    out = 0;
    if (Status st = makeCurrent())
      return st;
    int threads = (int)(e.block[0] * e.block[1] * e.block[2]);
    int blocks = 0;
    if (Status st = check(api_->occupancyMaxActiveBlocksPerMultiprocessor(
                              &blocks, fn, threads, 0),
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
      return st;
    if (blocks <= 0)
      return Status::error(TESSEL_ERROR_UNSUPPORTED,
                           format("%s: no block of %d threads fits on an SM",
                                  e.name.c_str(), threads));
    out = (int64_t)blocks * cuCount_;
    return Status::ok();
  }
  Status streamCreate(void **s) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->streamCreate(s, 1 /*non-blocking*/), "cuStreamCreate");
  }
  Status streamDestroy(void *s) override {
    return check(api_->streamDestroy(s), "cuStreamDestroy");
  }
  Status streamSynchronize(void *s) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->streamSynchronize(s), "cuStreamSynchronize");
  }
  Status memAlloc(size_t bytes, void **p) override {
    if (Status st = makeCurrent())
      return st;
    CUdeviceptr d = 0;
    if (Status st = check(api_->memAlloc(&d, bytes ? bytes : 1), "cuMemAlloc"))
      return st;
    *p = reinterpret_cast<void *>(d);
    return Status::ok();
  }
  Status memFree(void *p) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->memFree(reinterpret_cast<CUdeviceptr>(p)), "cuMemFree");
  }
  Status memcpy(void *dst, const void *src, size_t bytes, int kind) override {
    if (Status st = makeCurrent())
      return st;
    auto d = reinterpret_cast<CUdeviceptr>(dst);
    auto s = reinterpret_cast<CUdeviceptr>(src);
    if (kind == 0)
      return check(api_->memcpyHtoD(d, src, bytes), "cuMemcpyHtoD");
    if (kind == 1)
      return check(api_->memcpyDtoH(dst, s, bytes), "cuMemcpyDtoH");
    return check(api_->memcpyDtoD(d, s, bytes), "cuMemcpyDtoD");
  }

protected:
  Status loadModule(const std::string &code, void **module) override {
    if (Status st = makeCurrent())
      return st;
    char log[4096];
    log[0] = '\0';
    int opts[2] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    void *vals[2] = {log, reinterpret_cast<void *>(sizeof(log))};
    // code is a std::string, so c_str() gives the NUL the driver needs.
    CUresult r = api_->moduleLoadDataEx(module, code.c_str(), 2, opts, vals);
    if (r != 0) {
      Status s = check(r, "cuModuleLoadDataEx", TESSEL_ERROR_BUNDLE);
      return Status::error(s.code(), s.message() + ": " + log);
    }
    return Status::ok();
  }
  Status moduleFunction(void *module, const std::string &kernel,
                        void **fn) override {
    return check(api_->moduleGetFunction(fn, module, kernel.c_str()),
                 "cuModuleGetFunction", TESSEL_ERROR_BUNDLE);
  }

private:
  Status makeCurrent() {
    // Each launching thread needs the primary context current. The engine
    // may switch contexts between calls, so ask the driver (a TLS read).
    CUcontext cur = nullptr;
    api_->ctxGetCurrent(&cur);
    if (cur != ctx_)
      return check(api_->ctxSetCurrent(ctx_), "cuCtxSetCurrent");
    return Status::ok();
  }
  Status check(CUresult r, const char *what,
               tessel_status code = TESSEL_ERROR_DEVICE) {
    if (r == 0)
      return Status::ok();
    const char *msg = nullptr;
    api_->getErrorString(r, &msg);
    return Status::error(code, format("%s failed: %s (%d)", what,
                                      msg ? msg : "unknown error", r));
  }

  CudaApi *api_;
  CUcontext ctx_;
};

} // namespace

void setCudaLibraryNameForTesting(const char *name) {
  std::lock_guard<std::mutex> lock(cudaMutex);
  cudaLibraryName = name;
  cudaLoadError.clear();
}

Status createCudaDevice(int ordinal, std::unique_ptr<Device> &out) {
  CudaApi *a = nullptr;
  if (Status s = loadCuda(&a))
    return s;
  int n = 0;
  if (a->deviceGetCount(&n) != 0 || n == 0)
    return Status::error(TESSEL_ERROR_NO_DEVICE,
                         "the CUDA driver reports no device");
  if (ordinal >= n)
    return Status::error(
        TESSEL_ERROR_INVALID_ARGUMENT,
        format("device ordinal %d is out of range for cuda (valid: 0 to %d, "
               "%d devices)",
               ordinal, n - 1, n));
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  int major = 0, minor = 0, sms = 0;
  if (a->deviceGet(&dev, ordinal) != 0 || a->primaryCtxRetain(&ctx, dev) != 0 ||
      a->deviceGetAttribute(&major, kAttrComputeCapabilityMajor, dev) != 0 ||
      a->deviceGetAttribute(&minor, kAttrComputeCapabilityMinor, dev) != 0 ||
      a->deviceGetAttribute(&sms, kAttrMultiprocessorCount, dev) != 0)
    return Status::error(TESSEL_ERROR_NO_DEVICE,
                         format("cannot open cuda device %d", ordinal));
  out = std::make_unique<CudaDevice>(a, ctx, ordinal,
                                     format("sm_%d%d", major, minor), sms);
  return Status::ok();
}

} // namespace tessel
