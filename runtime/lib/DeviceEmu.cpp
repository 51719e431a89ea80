//===- DeviceEmu.cpp - The emu device: SIMT IR on the CPU emulator --------===//
//
// The emulator (libtessel_emu.so, runtime/include/tessel/emu_plugin.h) links
// MLIR, so it is dlopen()ed only when the emu device is used. Its "device
// memory" is host memory and every launch runs synchronously.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "tessel/emu_plugin.h"

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>

namespace tessel {

namespace {

struct EmuApi {
  void *lib = nullptr;
  std::string path;
  int (*abiVersion)(void) = nullptr;
  int (*moduleLoad)(const char *, size_t, tessel_emu_module **, char *,
                    size_t) = nullptr;
  void (*moduleUnload)(tessel_emu_module *) = nullptr;
  int (*launch)(tessel_emu_module *, const char *, const uint32_t *,
                const uint32_t *, void **, size_t, char *, size_t) = nullptr;
};

std::mutex emuApiMutex;
EmuApi *emuApi = nullptr; // loaded once per process, never unloaded

Status tryLoad(const std::string &path, EmuApi &api, std::string &why) {
  // RTLD_GLOBAL: the emulator and the JIT compiler both carry MLIR's inline
  // template statics (TypeIDs of traits, ...). Loaded locally, each plugin
  // would bind its own copies and MLIR would see one trait under two ids.
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *e = dlerror();
    why = e ? e : "dlopen failed";
    return Status::error(TESSEL_ERROR_NO_DEVICE, why);
  }
  api.lib = lib;
  api.path = path;
  api.abiVersion =
      reinterpret_cast<int (*)(void)>(dlsym(lib, "tessel_emu_abi_version"));
  api.moduleLoad = reinterpret_cast<decltype(api.moduleLoad)>(
      dlsym(lib, "tessel_emu_module_load"));
  api.moduleUnload = reinterpret_cast<decltype(api.moduleUnload)>(
      dlsym(lib, "tessel_emu_module_unload"));
  api.launch =
      reinterpret_cast<decltype(api.launch)>(dlsym(lib, "tessel_emu_launch"));
  if (!api.abiVersion || !api.moduleLoad || !api.moduleUnload || !api.launch)
    return Status::error(
        TESSEL_ERROR_NO_DEVICE,
        format("'%s' lacks the tessel_emu_* entry points", path.c_str()));
  int v = api.abiVersion();
  if (v != TESSEL_EMU_PLUGIN_ABI_VERSION)
    return Status::error(TESSEL_ERROR_NO_DEVICE,
                         format("'%s' has emulator ABI version %d, the runtime "
                                "needs %d",
                                path.c_str(), v,
                                TESSEL_EMU_PLUGIN_ABI_VERSION));
  return Status::ok();
}

Status loadEmuApi(const Config &cfg, EmuApi **out) {
  std::lock_guard<std::mutex> lock(emuApiMutex);
  if (emuApi) {
    *out = emuApi;
    return Status::ok();
  }
  // An explicit TESSEL_EMU_LIBRARY wins; then the copy installed next to the
  // runtime library; then the loader's search path.
  std::vector<std::string> candidates;
  if (!cfg.emuLibrary.empty())
    candidates.push_back(cfg.emuLibrary);
  else {
    candidates.push_back(runtimeLibraryDir() + "/libtessel_emu.so");
    candidates.push_back("libtessel_emu.so");
  }
  std::string tried;
  for (const auto &c : candidates) {
    auto api = std::make_unique<EmuApi>();
    std::string why;
    Status s = tryLoad(c, *api, why);
    if (s.isOk()) {
      emuApi = api.release();
      *out = emuApi;
      return Status::ok();
    }
    if (api->lib) // found but unusable: report that, do not keep searching
      return s;
    tried += "\n  " + c + ": " + why;
  }
  return Status::error(TESSEL_ERROR_NO_DEVICE,
                       "the emu device needs the SIMT emulator library "
                       "libtessel_emu.so (set TESSEL_EMU_LIBRARY); tried:" +
                           tried);
}

// The live buffers of every emu device (base -> bytes). Emu memory is host
// memory, shared by the gfx942 and gfx950 emu devices, so one registry serves
// both. Leaked on purpose: buffers may be freed from static destructors.
struct EmuBuffers {
  std::mutex mu;
  std::map<uintptr_t, uint64_t> live;
};
EmuBuffers &emuBuffers() {
  static auto *b = new EmuBuffers();
  return *b;
}

struct EmuFunction {
  tessel_emu_module *module;
  std::string kernel;
};

class EmuDevice final : public Device {
public:
  EmuDevice(const std::string &arch, EmuApi *api) : api_(api) {
    arch_ = arch;
    // The CU counts of the parts the targets stand for (MI300X, MI355X);
    // they key the tuned tables.
    cuCount_ = arch == "gfx950" ? 256 : 304;
  }
  const char *kind() const override { return "emu"; }
  CodeFormat codeFormat() const override { return CodeFormat::Simt; }
  bool hostMemory() const override { return true; }

  Status launch(void *fn, const uint32_t grid[3], const uint32_t block[3],
                void **params, size_t numParams, void *) override {
    auto *f = static_cast<EmuFunction *>(fn);
    char err[1024];
    err[0] = '\0';
    if (api_->launch(f->module, f->kernel.c_str(), grid, block, params,
                     numParams, err, sizeof(err)) != 0)
      return Status::error(TESSEL_ERROR_LAUNCH,
                           format("emulator: %s: %s", f->kernel.c_str(), err));
    return Status::ok();
  }
  // The emulator models no register file: its bound is the workgroups it
  // interleaves.
  Status maxResidentPrograms(const BundleEntry &, void *,
                             int64_t &out) override {
    out = TESSEL_EMU_MAX_RESIDENT_WORKGROUPS;
    return Status::ok();
  }
  Status streamCreate(void **s) override {
    *s = nullptr;
    return Status::ok();
  }
  Status streamDestroy(void *) override { return Status::ok(); }
  Status streamSynchronize(void *) override { return Status::ok(); }
  Status memAlloc(size_t bytes, void **p) override {
    *p = nullptr;
    // Rounded up to 256 bytes plus 256 bytes of slack; reject sizes where
    // that overflows rather than allocate a wrapped-around small buffer.
    size_t total = 0;
    if (__builtin_add_overflow(bytes, size_t(511), &total))
      return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                           format("cannot allocate %zu bytes on the emu "
                                  "device: the size overflows",
                                  bytes));
    total = total / 256 * 256;
    *p = aligned_alloc(256, total);
    if (!*p)
      return Status::error(
          TESSEL_ERROR_DEVICE,
          format("cannot allocate %zu bytes on the emu device: out of host "
                 "memory",
                 bytes));
    EmuBuffers &bufs = emuBuffers();
    std::lock_guard<std::mutex> lock(bufs.mu);
    bufs.live[reinterpret_cast<uintptr_t>(*p)] = bytes;
    return Status::ok();
  }
  Status memFree(void *p) override {
    {
      EmuBuffers &bufs = emuBuffers();
      std::lock_guard<std::mutex> lock(bufs.mu);
      auto it = bufs.live.find(reinterpret_cast<uintptr_t>(p));
      if (it == bufs.live.end())
        return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                             format("tessel_free: %p is not a live buffer of "
                                    "the emu device (freed twice, or not "
                                    "from tessel_malloc)",
                                    p));
      bufs.live.erase(it);
    }
    free(p);
    return Status::ok();
  }
  Status checkExtent(const void *p, uint64_t bytes, const char *op,
                     const char *name) const override {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    EmuBuffers &bufs = emuBuffers();
    std::lock_guard<std::mutex> lock(bufs.mu);
    // The buffer that starts at or below p, if p lies inside it.
    auto it = bufs.live.upper_bound(a);
    if (it == bufs.live.begin())
      return Status::ok();
    --it;
    uintptr_t base = it->first;
    uint64_t size = it->second;
    if (a != base && a - base >= size)
      return Status::ok(); // not emu memory: the caller's host memory
    uint64_t left = size - (a - base);
    if (bytes <= left)
      return Status::ok();
    return Status::error(
        TESSEL_ERROR_INVALID_ARGUMENT,
        format("%s: %s: the %" PRIu64 " bytes from %p run past the end of its "
               "buffer (%" PRIu64 " bytes allocated at %p, %" PRIu64
               " left from %p)",
               op, name, bytes, p, size, reinterpret_cast<void *>(base), left,
               p));
  }
  Status memcpy(void *dst, const void *src, size_t bytes, int) override {
    if (Status s = checkExtent(dst, bytes, "tessel_memcpy", "dst"))
      return s;
    if (Status s = checkExtent(src, bytes, "tessel_memcpy", "src"))
      return s;
    std::memmove(dst, src, bytes);
    return Status::ok();
  }

protected:
  Status loadModule(const std::string &code, void **module) override {
    char err[2048];
    err[0] = '\0';
    tessel_emu_module *m = nullptr;
    if (api_->moduleLoad(code.data(), code.size(), &m, err, sizeof(err)) != 0)
      return Status::error(TESSEL_ERROR_BUNDLE,
                           format("emulator rejected the SIMT IR: %s", err));
    *module = m;
    return Status::ok();
  }
  Status moduleFunction(void *module, const std::string &kernel,
                        void **fn) override {
    // The emulator resolves the kernel at launch (and reports a missing one
    // then); keep the pair.
    functions_.push_back(std::make_unique<EmuFunction>(
        EmuFunction{static_cast<tessel_emu_module *>(module), kernel}));
    *fn = functions_.back().get();
    return Status::ok();
  }

private:
  EmuApi *api_;
  std::vector<std::unique_ptr<EmuFunction>> functions_; // under the cache lock
};

} // namespace

Status createEmuDevice(const std::string &arch, const Config &cfg,
                       std::unique_ptr<Device> &out) {
  EmuApi *api = nullptr;
  if (Status s = loadEmuApi(cfg, &api))
    return s;
  out = std::make_unique<EmuDevice>(arch, api);
  return Status::ok();
}

} // namespace tessel
