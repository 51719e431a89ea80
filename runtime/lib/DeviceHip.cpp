//===- DeviceHip.cpp - The hip device through the HIP module API ----------===//
//
// libamdhip64.so is dlopen()ed with RTLD_NOLOAD first, so a copy that the
// process already has (e.g. PyTorch's) is reused rather than a second HIP
// runtime being loaded. The entry points are declared here; no ROCm headers
// are needed at build time. Modules are hsaco code objects.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

#include <cstring>
#include <dlfcn.h>

namespace tessel {

namespace {

using hipError_t = int;
constexpr int kHipAttrMultiprocessorCount = 63;

const char *hipLibraryName = "libamdhip64.so";

struct HipApi {
  hipError_t (*init)(unsigned);
  hipError_t (*getDeviceCount)(int *);
  hipError_t (*setDevice)(int);
  hipError_t (*getDevice)(int *);
  hipError_t (*deviceGetAttribute)(int *, int, int);
  hipError_t (*getDeviceProperties)(void *, int);
  hipError_t (*moduleLoadData)(void **, const void *);
  hipError_t (*moduleGetFunction)(void **, void *, const char *);
  hipError_t (*moduleLaunchKernel)(void *, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   void *, void **, void **);
  hipError_t (*streamCreate)(void **);
  hipError_t (*streamDestroy)(void *);
  hipError_t (*streamSynchronize)(void *);
  hipError_t (*malloc)(void **, size_t);
  hipError_t (*free)(void *);
  hipError_t (*memcpy)(void *, const void *, size_t, int);
  const char *(*getErrorString)(hipError_t);
};

std::mutex hipMutex;
HipApi *hipApi = nullptr;
std::string hipLoadError;

template <typename F> bool sym(void *lib, const char *name, F &f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

Status loadHip(HipApi **out) {
  std::lock_guard<std::mutex> lock(hipMutex);
  if (hipApi) {
    *out = hipApi;
    return Status::ok();
  }
  if (!hipLoadError.empty())
    return Status::error(TESSEL_ERROR_NO_DEVICE, hipLoadError);
  void *lib = dlopen(hipLibraryName, RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen(hipLibraryName, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *e = dlerror();
    hipLoadError = format("the hip device needs the HIP runtime (%s), which "
                          "is not installed on this machine: %s",
                          hipLibraryName, e ? e : "dlopen failed");
    return Status::error(TESSEL_ERROR_NO_DEVICE, hipLoadError);
  }
  auto *a = new HipApi();
  bool ok = sym(lib, "hipInit", a->init) &&
            sym(lib, "hipGetDeviceCount", a->getDeviceCount) &&
            sym(lib, "hipSetDevice", a->setDevice) &&
            sym(lib, "hipGetDevice", a->getDevice) &&
            sym(lib, "hipDeviceGetAttribute", a->deviceGetAttribute) &&
            sym(lib, "hipModuleLoadData", a->moduleLoadData) &&
            sym(lib, "hipModuleGetFunction", a->moduleGetFunction) &&
            sym(lib, "hipModuleLaunchKernel", a->moduleLaunchKernel) &&
            sym(lib, "hipStreamCreate", a->streamCreate) &&
            sym(lib, "hipStreamDestroy", a->streamDestroy) &&
            sym(lib, "hipStreamSynchronize", a->streamSynchronize) &&
            sym(lib, "hipMalloc", a->malloc) && sym(lib, "hipFree", a->free) &&
            sym(lib, "hipMemcpy", a->memcpy) &&
            sym(lib, "hipGetErrorString", a->getErrorString);
  // ROCm 6 renamed the properties entry point; either layout holds the
  // gcnArchName string, which is all Tessel reads from it.
  if (ok && !sym(lib, "hipGetDevicePropertiesR0600", a->getDeviceProperties))
    ok = sym(lib, "hipGetDeviceProperties", a->getDeviceProperties);
  if (!ok) {
    delete a;
    hipLoadError =
        format("%s lacks a HIP entry point Tessel needs", hipLibraryName);
    return Status::error(TESSEL_ERROR_NO_DEVICE, hipLoadError);
  }
  hipError_t r = a->init(0);
  if (r != 0) {
    hipLoadError = format("hipInit failed: %s (%d)", a->getErrorString(r), r);
    delete a;
    return Status::error(TESSEL_ERROR_NO_DEVICE, hipLoadError);
  }
  hipApi = a;
  *out = a;
  return Status::ok();
}

// Finds "gfxNNN" in the properties struct without depending on its layout.
std::string findGfxName(const unsigned char *p, size_t n) {
  for (size_t i = 0; i + 6 <= n; ++i) {
    if (memcmp(p + i, "gfx", 3) != 0)
      continue;
    size_t j = i + 3;
    while (j < n &&
           ((p[j] >= '0' && p[j] <= '9') || (p[j] >= 'a' && p[j] <= 'f')))
      ++j;
    if (j - i >= 6 && j - i <= 8)
      return std::string(reinterpret_cast<const char *>(p + i), j - i);
  }
  return "";
}

class HipDevice final : public Device {
public:
  HipDevice(HipApi *api, int ordinal, std::string arch, int cus) : api_(api) {
    ordinal_ = ordinal;
    arch_ = std::move(arch);
    cuCount_ = cus;
  }
  const char *kind() const override { return "hip"; }
  CodeFormat codeFormat() const override { return CodeFormat::Hsaco; }

  Status launch(void *fn, const uint32_t grid[3], const uint32_t block[3],
                void **params, size_t, void *stream) override {
    if (Status s = makeCurrent())
      return s;
    return check(api_->moduleLaunchKernel(fn, grid[0], grid[1], grid[2],
                                          block[0], block[1], block[2], 0,
                                          stream, params, nullptr),
                 "hipModuleLaunchKernel", TESSEL_ERROR_LAUNCH);
  }
  Status streamCreate(void **s) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->streamCreate(s), "hipStreamCreate");
  }
  Status streamDestroy(void *s) override {
    return check(api_->streamDestroy(s), "hipStreamDestroy");
  }
  Status streamSynchronize(void *s) override {
    return check(api_->streamSynchronize(s), "hipStreamSynchronize");
  }
  Status memAlloc(size_t bytes, void **p) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->malloc(p, bytes ? bytes : 1), "hipMalloc");
  }
  Status memFree(void *p) override { return check(api_->free(p), "hipFree"); }
  Status memcpy(void *dst, const void *src, size_t bytes, int kind) override {
    // hipMemcpyHostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3.
    return check(api_->memcpy(dst, src, bytes, kind + 1), "hipMemcpy");
  }

protected:
  Status loadModule(const std::string &code, void **module) override {
    if (Status st = makeCurrent())
      return st;
    return check(api_->moduleLoadData(module, code.data()), "hipModuleLoadData",
                 TESSEL_ERROR_BUNDLE);
  }
  Status moduleFunction(void *module, const std::string &kernel,
                        void **fn) override {
    return check(api_->moduleGetFunction(fn, module, kernel.c_str()),
                 "hipModuleGetFunction", TESSEL_ERROR_BUNDLE);
  }

private:
  Status makeCurrent() {
    int cur = -1;
    api_->getDevice(&cur);
    if (cur != ordinal_)
      return check(api_->setDevice(ordinal_), "hipSetDevice");
    return Status::ok();
  }
  Status check(hipError_t r, const char *what,
               tessel_status code = TESSEL_ERROR_DEVICE) {
    if (r == 0)
      return Status::ok();
    return Status::error(
        code, format("%s failed: %s (%d)", what, api_->getErrorString(r), r));
  }
  HipApi *api_;
};

} // namespace

void setHipLibraryNameForTesting(const char *name) {
  std::lock_guard<std::mutex> lock(hipMutex);
  hipLibraryName = name;
  hipLoadError.clear();
}

Status createHipDevice(int ordinal, std::unique_ptr<Device> &out) {
  HipApi *a = nullptr;
  if (Status s = loadHip(&a))
    return s;
  int n = 0;
  if (a->getDeviceCount(&n) != 0 || n == 0)
    return Status::error(TESSEL_ERROR_NO_DEVICE,
                         "the HIP runtime reports no device");
  if (ordinal >= n)
    return Status::error(
        TESSEL_ERROR_INVALID_ARGUMENT,
        format("device ordinal %d is out of range for hip (valid: 0 to %d, "
               "%d devices)",
               ordinal, n - 1, n));
  int cus = 0;
  if (a->deviceGetAttribute(&cus, kHipAttrMultiprocessorCount, ordinal) != 0)
    return Status::error(TESSEL_ERROR_NO_DEVICE,
                         format("cannot query hip device %d", ordinal));
  // Large enough for every hipDeviceProp_t layout so far.
  std::vector<unsigned char> props(64 * 1024, 0);
  std::string arch;
  if (a->getDeviceProperties(props.data(), ordinal) == 0)
    arch = findGfxName(props.data(), props.size());
  if (arch.empty())
    return Status::error(
        TESSEL_ERROR_NO_DEVICE,
        format("cannot read the gfx arch of hip device %d", ordinal));
  out = std::make_unique<HipDevice>(a, ordinal, arch, cus);
  return Status::ok();
}

} // namespace tessel
