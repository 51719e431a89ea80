//===- Device.h - Device backends behind one interface ----------*- C++ -*-===//
//
// A Device is one GPU (or the emulator) of one backend. Devices are created
// once per (kind, ordinal) and live until the process exits, so handles that
// contexts hold never dangle. Module loading is cached per device by the code
// object's bytes and is thread-safe; launch() must not allocate.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_DEVICE_H
#define TESSEL_RUNTIME_DEVICE_H

#include "Config.h"
#include "Support.h"
#include "tessel/bundle.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessel {

class Device {
public:
  virtual ~Device() = default;

  virtual const char *kind() const = 0;
  const std::string &arch() const { return arch_; }
  int cuCount() const { return cuCount_; }
  int ordinal() const { return ordinal_; }
  /// The code-object format this device loads.
  virtual CodeFormat codeFormat() const = 0;
  /// True when device pointers are host pointers (emu).
  virtual bool hostMemory() const { return false; }

  /// Loads e.code (once per distinct code object) and returns the handle of
  /// e.kernel in it. Thread-safe.
  Status getFunction(const BundleEntry &e, void **fn);

  /// Launches fn. params is cuLaunchKernel-style. Allocates nothing.
  virtual Status launch(void *fn, const uint32_t grid[3],
                        const uint32_t block[3], void **params,
                        size_t numParams, void *stream) = 0;

  /// The most programs of code object `e` (whose function handle `fn`
  /// getFunction returned) that the whole device holds at once: the
  /// largest grid a kernel with a grid barrier may be launched with. On AMD
  /// from e's resources (Occupancy.h) times the CU count; on CUDA from the
  /// driver's occupancy calculator; on emu the emulator's resident
  /// capacity. Fails when the resources are unusable or nothing fits.
  virtual Status maxResidentPrograms(const BundleEntry &e, void *fn,
                                     int64_t &out);

  virtual Status streamCreate(void **s) = 0;
  virtual Status streamDestroy(void *s) = 0;
  virtual Status streamSynchronize(void *s) = 0;
  virtual Status memAlloc(size_t bytes, void **p) = 0;
  virtual Status memFree(void *p) = 0;
  virtual Status memcpy(void *dst, const void *src, size_t bytes, int kind) = 0;
  /// Zeroes `bytes` bytes of device memory from p (a copy from a zeroed host
  /// buffer, synchronous): for buffers that must start zero, when they are
  /// allocated, never on the launch path.
  Status memZero(void *p, size_t bytes);

  /// Checks that `bytes` bytes from p lie inside one buffer, on devices that
  /// know their buffers (emu: those from memAlloc). Memory the device did not
  /// allocate is not checked. Only host-memory devices check: the launch path
  /// reuses a validation for calls of the same shapes elsewhere. The message
  /// names the argument as "<op>: <name>"; both are plain strings, so that
  /// the launch path, which calls this for every tensor, formats nothing
  /// unless the check fails.
  virtual Status checkExtent(const void *p, uint64_t bytes, const char *op,
                             const char *name) const {
    return Status::ok();
  }

  /// Number of modules loaded so far (for tests of the cache).
  size_t loadedModuleCount();

protected:
  virtual Status loadModule(const std::string &code, void **module) = 0;
  virtual Status moduleFunction(void *module, const std::string &kernel,
                                void **fn) = 0;

  std::string arch_;
  int cuCount_ = 0;
  int ordinal_ = 0;

private:
  struct LoadedModule {
    std::string code;
    void *module;
    std::vector<std::pair<std::string, void *>> functions;
  };
  std::mutex mu_;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<LoadedModule>>>
      modules_;
};

/// The bytes a tensor spans from its data pointer:
/// (sum of (shape[i] - 1) * strides[i] + 1) * dtype size, and 0 for an empty
/// tensor. A dimension of size 0 or 1 adds nothing, whatever its stride.
/// False on overflow, a negative stride or an unknown dtype.
bool tensorByteExtent(const tessel_tensor &t, uint64_t &bytes);

/// Checks a validated tensor argument of op against the device's buffers:
/// the extent its shape, strides and dtype imply must fit. Every op calls it
/// for every tensor before the launch (and before reading host memory).
Status checkTensorArg(const Device &dev, const char *op, const char *name,
                      const tessel_tensor &t);
/// The same, for a tensor whose extent `bytes` the caller has computed.
Status checkTensorArg(const Device &dev, const char *op, const char *name,
                      const tessel_tensor &t, uint64_t bytes);

/// Returns the process-wide device for (kind, ordinal). kind is "emu",
/// "emu:gfx942", "emu:gfx950", "cuda", "hip" or "auto".
Status acquireDevice(const std::string &kind, int ordinal, const Config &cfg,
                     Device **out);

/// Backend factories (one file each).
Status createEmuDevice(const std::string &arch, const Config &cfg,
                       std::unique_ptr<Device> &out);
Status createCudaDevice(int ordinal, std::unique_ptr<Device> &out);
Status createHipDevice(int ordinal, std::unique_ptr<Device> &out);

/// The folder holding the runtime library (for finding plugins next to it).
std::string runtimeLibraryDir();

/// Test hook: the soname the hip backend dlopen()s.
void setHipLibraryNameForTesting(const char *name);
/// Test hook: the soname the cuda backend dlopen()s.
void setCudaLibraryNameForTesting(const char *name);

} // namespace tessel

#endif
