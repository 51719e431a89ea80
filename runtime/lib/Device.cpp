//===- Device.cpp - Module cache and the process-wide device registry -----===//

#include "Device.h"
#include "Occupancy.h"

#include <cinttypes>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <vector>

namespace tessel {

Status Device::getFunction(const BundleEntry &e, void **fn) {
  uint64_t h = fnv1a64(e.code.data(), e.code.size());
  std::lock_guard<std::mutex> lock(mu_);
  LoadedModule *lm = nullptr;
  for (auto &m : modules_[h])
    if (m->code == e.code) {
      lm = m.get();
      break;
    }
  if (!lm) {
    void *mod = nullptr;
    if (Status s = loadModule(e.code, &mod))
      return s.prefix(
          format("loading code object '%s' on %s: ", e.name.c_str(), kind()));
    auto owned = std::make_unique<LoadedModule>();
    owned->code = e.code;
    owned->module = mod;
    lm = owned.get();
    modules_[h].push_back(std::move(owned));
  }
  for (auto &f : lm->functions)
    if (f.first == e.kernel) {
      *fn = f.second;
      return Status::ok();
    }
  void *f = nullptr;
  if (Status s = moduleFunction(lm->module, e.kernel, &f))
    return s.prefix(format("code object '%s': ", e.name.c_str()));
  lm->functions.emplace_back(e.kernel, f);
  *fn = f;
  return Status::ok();
}

Status Device::maxResidentPrograms(const BundleEntry &e, void *, int64_t &out) {
  out = 0;
  const AmdComputeUnit *cu = findAmdComputeUnit(arch_.c_str());
  if (!cu)
    return Status::error(
        TESSEL_ERROR_UNSUPPORTED,
        format("no occupancy model for %s devices", arch_.c_str()));
  KernelResources r;
  Occupancy o;
  if (Status s = kernelResourcesOf(e, r))
    return s;
  if (Status s = amdOccupancy(*cu, r, o))
    return s;
  out = (int64_t)o.programsPerCU * cuCount_;
  return Status::ok();
}

Status Device::memZero(void *p, size_t bytes) {
  std::vector<unsigned char> zeros(bytes, 0);
  return memcpy(p, zeros.data(), bytes, /*host to device*/ 0);
}

size_t Device::loadedModuleCount() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (auto &kv : modules_)
    n += kv.second.size();
  return n;
}

bool tensorByteExtent(const tessel_tensor &t, uint64_t &bytes) {
  bytes = 0;
  int32_t dt;
  memcpy(&dt, &t.dtype, sizeof(dt)); // any value may be stored in the enum
  uint64_t esize = tessel_dtype_size(static_cast<tessel_dtype>(dt));
  if (!esize || t.rank < 0 || t.rank > TESSEL_MAX_RANK)
    return false;
  uint64_t last = 0; // element offset of the last element
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0)
      return false;
    if (t.shape[i] == 0)
      return true;
  }
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] == 1)
      continue;
    if (t.strides[i] < 0)
      return false;
    uint64_t step;
    if (__builtin_mul_overflow(static_cast<uint64_t>(t.shape[i] - 1),
                               static_cast<uint64_t>(t.strides[i]), &step) ||
        __builtin_add_overflow(last, step, &last))
      return false;
  }
  return !__builtin_add_overflow(last, uint64_t(1), &last) &&
         !__builtin_mul_overflow(last, esize, &bytes);
}

Status checkTensorArg(const Device &dev, const char *op, const char *name,
                      const tessel_tensor &t) {
  uint64_t bytes = 0;
  if (!tensorByteExtent(t, bytes))
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                         format("%s: %s: extent overflows 64 bits", op, name));
  return checkTensorArg(dev, op, name, t, bytes);
}

Status checkTensorArg(const Device &dev, const char *op, const char *name,
                      const tessel_tensor &t, uint64_t bytes) {
  if (bytes == 0)
    return Status::ok();
  Status s = dev.checkExtent(t.data, bytes, op, name);
  if (s)
    return Status::error(s.code(), s.message() +
                                       "; the extent follows from its shape, "
                                       "strides and dtype");
  return s;
}

std::string runtimeLibraryDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&runtimeLibraryDir), &info) &&
      info.dli_fname) {
    std::string p = info.dli_fname;
    size_t slash = p.rfind('/');
    if (slash != std::string::npos)
      return p.substr(0, slash);
  }
  return ".";
}

namespace {
std::mutex registryMutex;
std::map<std::pair<std::string, int>, std::unique_ptr<Device>> &registry() {
  // Intentionally leaked: devices outlive every context, including ones
  // destroyed from static destructors.
  static auto *r =
      new std::map<std::pair<std::string, int>, std::unique_ptr<Device>>();
  return *r;
}

Status create(const std::string &kind, int ordinal, const Config &cfg,
              std::unique_ptr<Device> &out) {
  if (kind == "cuda")
    return createCudaDevice(ordinal, out);
  if (kind == "hip")
    return createHipDevice(ordinal, out);
  if (kind == "emu" || kind == "emu:gfx942")
    return createEmuDevice("gfx942", cfg, out);
  if (kind == "emu:gfx950")
    return createEmuDevice("gfx950", cfg, out);
  return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                       format("unknown device '%s' (expected emu, emu:gfx942, "
                              "emu:gfx950, cuda, hip or auto)",
                              kind.c_str()));
}
} // namespace

Status acquireDevice(const std::string &kindIn, int ordinal, const Config &cfg,
                     Device **out) {
  if (ordinal < 0)
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                         format("device ordinal %d is negative (valid: 0 and "
                                "up, below the device count)",
                                ordinal));
  std::lock_guard<std::mutex> lock(registryMutex);
  auto get = [&](const std::string &kind) -> Status {
    // The emulator is one device, ordinal 0.
    bool emu = kind.compare(0, 3, "emu") == 0;
    if (emu && ordinal != 0)
      return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                           format("device ordinal %d is out of range for %s "
                                  "(valid: 0)",
                                  ordinal, kind.c_str()));
    int ord = ordinal;
    std::string key = kind == "emu" ? "emu:gfx942" : kind;
    auto it = registry().find({key, ord});
    if (it != registry().end()) {
      *out = it->second.get();
      return Status::ok();
    }
    std::unique_ptr<Device> d;
    if (Status s = create(kind, ord, cfg, d))
      return s;
    *out = d.get();
    registry()[{key, ord}] = std::move(d);
    return Status::ok();
  };
  if (kindIn != "auto")
    return get(kindIn);
  Status cuda = get("cuda");
  if (cuda.isOk())
    return cuda;
  Status hip = get("hip");
  if (hip.isOk())
    return hip;
  Status emu = get("emu");
  if (emu.isOk())
    return emu;
  return Status::error(TESSEL_ERROR_NO_DEVICE,
                       "no device available: cuda: " + cuda.message() +
                           "; hip: " + hip.message() +
                           "; emu: " + emu.message());
}

} // namespace tessel
