//===- JitCache.h - Just-in-time compile on miss, cached on disk -*- C++
//-*-===//
//
// See tessel/jit_plugin.h. Cache entries are one-entry bundles named
// <cache dir>/<key>.tbundle, key = FNV-1a-64 content hash (hex) of the
// compiler version, the kernel source bytes, the target and the sorted knobs.
// A corrupt entry (verified like any bundle) is recompiled and replaced.
// Entries are loaded as device code, so the cache folder is created 0700 and
// is used only when this user owns it and no group or other may write it;
// otherwise the variant is compiled without the cache and a message says why.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_JITCACHE_H
#define TESSEL_RUNTIME_JITCACHE_H

#include "Support.h"
#include "tessel/bundle.h"

#include <string>
#include <utility>
#include <vector>

namespace tessel {

using KnobList = std::vector<std::pair<std::string, int64_t>>;

class JitCache {
public:
  /// pluginPath "" means: libtessel_jit.so next to the runtime library.
  JitCache(std::string cacheDir, std::string pluginPath);

  /// The cache key of a compile.
  static std::string key(const std::string &compilerVersion,
                         const std::string &source, const std::string &target,
                         KnobList knobs);

  /// Returns the code object for (source file, target, knobs): from the
  /// cache, or compiled by the plugin and then cached. hit tells which.
  Status getOrCompile(const std::string &sourcePath, const std::string &target,
                      const KnobList &knobs, BundleEntry &out, bool *hit);

  /// Why the last getOrCompile() did not use the cache folder ("" if it
  /// did); also logged to stderr.
  const std::string &cacheProblem() const { return cacheProblem_; }

private:
  Status loadPlugin();

  std::string cacheProblem_;
  std::string cacheDir_;
  std::string pluginPath_;
  void *lib_ = nullptr;
  int (*compile_)(const char *, const char *, const char *const *,
                  const int64_t *, size_t, void **, size_t *, char **, char *,
                  size_t) = nullptr;
  void (*free_)(void *) = nullptr;
  std::string compilerVersion_;
};

} // namespace tessel

#endif
