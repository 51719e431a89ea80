//===- JitCache.cpp - Just-in-time compile on miss, cached on disk --------===//

#include "JitCache.h"

#include "Device.h"
#include "tessel/jit_plugin.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel {

JitCache::JitCache(std::string cacheDir, std::string pluginPath)
    : cacheDir_(std::move(cacheDir)), pluginPath_(std::move(pluginPath)) {}

std::string JitCache::key(const std::string &compilerVersion,
                          const std::string &source, const std::string &target,
                          KnobList knobs) {
  std::sort(knobs.begin(), knobs.end());
  // Length-prefixed fields, so that no two inputs serialize alike.
  std::string blob;
  auto add = [&](const std::string &s) {
    blob += std::to_string(s.size());
    blob += ':';
    blob += s;
  };
  add(compilerVersion);
  add(source);
  add(target);
  for (const auto &k : knobs) {
    add(k.first);
    add(std::to_string(k.second));
  }
  // Two independent seeds give a 128-bit name.
  return hex64(fnv1a64(blob.data(), blob.size())) +
         hex64(fnv1a64(blob.data(), blob.size(), 0x84222325cbf29ce4ull));
}

Status JitCache::loadPlugin() {
  if (lib_)
    return Status::ok();
  std::string path = pluginPath_.empty()
                         ? runtimeLibraryDir() + "/libtessel_jit.so"
                         : pluginPath_;
  // RTLD_GLOBAL: the emulator and the JIT compiler both carry MLIR's inline
  // template statics (TypeIDs of traits, ...). Loaded locally, each plugin
  // would bind its own copies and MLIR would see one trait under two ids.
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *e = dlerror();
    return Status::error(TESSEL_ERROR_NO_KERNEL,
                         format("just-in-time compilation needs the compiler "
                                "plugin libtessel_jit.so (%s): %s",
                                path.c_str(), e ? e : "dlopen failed"));
  }
  auto abi =
      reinterpret_cast<int (*)(void)>(dlsym(lib, "tessel_jit_abi_version"));
  auto ver = reinterpret_cast<const char *(*)(void)>(
      dlsym(lib, "tessel_jit_compiler_version"));
  compile_ =
      reinterpret_cast<decltype(compile_)>(dlsym(lib, "tessel_jit_compile"));
  free_ = reinterpret_cast<decltype(free_)>(dlsym(lib, "tessel_jit_free"));
  if (!abi || !ver || !compile_ || !free_)
    return Status::error(
        TESSEL_ERROR_NO_KERNEL,
        format("'%s' lacks the tessel_jit_* entry points", path.c_str()));
  if (abi() != TESSEL_JIT_PLUGIN_ABI_VERSION)
    return Status::error(TESSEL_ERROR_NO_KERNEL,
                         format("'%s' has JIT ABI version %d, the runtime "
                                "needs %d",
                                path.c_str(), abi(),
                                TESSEL_JIT_PLUGIN_ABI_VERSION));
  const char *v = ver();
  compilerVersion_ = v ? v : "";
  lib_ = lib;
  return Status::ok();
}

namespace {
// Creates dir and its missing parents, private to this user (0700).
Status makeDirs(const std::string &dir) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty())
      continue;
    if (mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error(TESSEL_ERROR_IO,
                           format("cannot create cache folder '%s': %s",
                                  cur.c_str(), strerror(errno)));
  }
  return Status::ok();
}

// Cache entries are loaded as device code, so the folder must be one that
// only this user can write: owned by the effective uid, no group or other
// write bit.
Status checkCacheDirTrusted(const std::string &dir) {
  struct stat st;
  if (Status s = statDirectory(dir, "cache folder", st))
    return s;
  if (st.st_uid != geteuid())
    return Status::error(TESSEL_ERROR_IO,
                         format("cache folder '%s' is owned by uid %u, not by "
                                "this user (uid %u)",
                                dir.c_str(), static_cast<unsigned>(st.st_uid),
                                static_cast<unsigned>(geteuid())));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return Status::error(TESSEL_ERROR_IO,
                         format("cache folder '%s' is writable by group or "
                                "others (mode %04o)",
                                dir.c_str(),
                                static_cast<unsigned>(st.st_mode & 07777)));
  return Status::ok();
}
} // namespace

Status JitCache::getOrCompile(const std::string &sourcePath,
                              const std::string &target, const KnobList &knobs,
                              BundleEntry &out, bool *hit) {
  if (hit)
    *hit = false;
  if (Status s = loadPlugin())
    return s;
  std::string source;
  if (Status s = readFile(sourcePath, source))
    return s;
  std::string path = cacheDir_ + "/" +
                     key(compilerVersion_, source, target, knobs) + ".tbundle";
  // An untrusted or unusable folder is neither read nor written; the
  // variant is compiled anyway.
  cacheProblem_.clear();
  Status usable = makeDirs(cacheDir_);
  if (usable.isOk())
    usable = checkCacheDirTrusted(cacheDir_);
  if (!usable.isOk()) {
    cacheProblem_ = usable.message() + "; compiling without the cache";
    fprintf(stderr, "tessel: %s\n", cacheProblem_.c_str());
  }
  bool useCache = usable.isOk();
  Bundle cached;
  std::string err;
  struct stat st;
  if (useCache && stat(path.c_str(), &st) == 0) {
    if (readBundleFile(path, cached, err) && cached.entries.size() == 1) {
      out = cached.entries[0];
      if (hit)
        *hit = true;
      return Status::ok();
    }
    // A corrupt entry falls through to a recompile that replaces it.
  }

  std::vector<const char *> names;
  std::vector<int64_t> values;
  for (const auto &k : knobs) {
    names.push_back(k.first.c_str());
    values.push_back(k.second);
  }
  void *code = nullptr;
  size_t codeLen = 0;
  char *manifest = nullptr;
  char cerr[2048];
  cerr[0] = '\0';
  if (compile_(sourcePath.c_str(), target.c_str(), names.data(), values.data(),
               knobs.size(), &code, &codeLen, &manifest, cerr,
               sizeof(cerr)) != 0)
    return Status::error(TESSEL_ERROR_NO_KERNEL,
                         format("compiling '%s' for %s failed: %s",
                                sourcePath.c_str(), target.c_str(), cerr));
  std::string codeBytes(static_cast<const char *>(code), code ? codeLen : 0);
  std::string entryJson = manifest ? manifest : "";
  free_(code);
  free_(manifest);

  BundleEntry e;
  if (!bundleEntryFromManifest(entryJson, std::move(codeBytes), e, err))
    return Status::error(TESSEL_ERROR_NO_KERNEL,
                         "the JIT plugin returned a bad code object: " + err);
  Bundle one;
  one.compilerVersion = compilerVersion_;
  one.entries.push_back(e);
  std::string image;
  if (!serializeBundle(one, image, err))
    return Status::error(TESSEL_ERROR_INTERNAL, err);
  // A failure to cache is not a failure to compile: return the code anyway.
  if (useCache)
    if (Status s = writeFileAtomic(path, image))
      fprintf(stderr, "tessel: %s\n", s.message().c_str());
  out = std::move(e);
  return Status::ok();
}

} // namespace tessel
