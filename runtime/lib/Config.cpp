//===- Config.cpp - The typed knob registry -------------------------------===//
//
// The only file of the runtime that calls getenv().
//
//===----------------------------------------------------------------------===//

#include "Config.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace tessel {

namespace {

std::mutex configMutex;
bool configLoaded = false;
Config config;
std::atomic<bool> logTuned{false};

const char *knobNames[] = {"TESSEL_LOG_TUNED_CONFIG", "TESSEL_TUNED_DIR",
                           "TESSEL_CACHE_DIR",        "TESSEL_DEVICE",
                           "TESSEL_BUNDLE",           "TESSEL_EMU_LIBRARY",
                           "TESSEL_JIT_LIBRARY"};

std::string defaultCacheDir() {
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/tessel";
  if (const char *h = getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/tessel";
  return "/tmp/tessel-cache";
}

Status parseBool(const std::string &name, const std::string &v, bool &out) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") {
    out = true;
    return Status::ok();
  }
  if (v.empty() || v == "0" || v == "false" || v == "off" || v == "no") {
    out = false;
    return Status::ok();
  }
  return Status::error(
      TESSEL_ERROR_INVALID_ARGUMENT,
      format("%s: expected 0/1/true/false, got '%s'", name.c_str(), v.c_str()));
}

bool validDevice(const std::string &v) {
  return v == "auto" || v == "emu" || v == "emu:gfx942" || v == "emu:gfx950" ||
         v == "cuda" || v == "hip";
}

Status applyKnob(Config &c, const std::string &name, const std::string &v) {
  if (name == "TESSEL_LOG_TUNED_CONFIG")
    return parseBool(name, v, c.logTunedConfig);
  if (name == "TESSEL_TUNED_DIR") {
    c.tunedDir = v;
    return Status::ok();
  }
  if (name == "TESSEL_CACHE_DIR") {
    c.cacheDir = v.empty() ? defaultCacheDir() : v;
    return Status::ok();
  }
  if (name == "TESSEL_DEVICE") {
    std::string d = v.empty() ? "auto" : v;
    if (!validDevice(d))
      return Status::error(
          TESSEL_ERROR_INVALID_ARGUMENT,
          format("TESSEL_DEVICE: expected emu, emu:gfx942, emu:gfx950, cuda, "
                 "hip or auto, got '%s'",
                 v.c_str()));
    c.device = d;
    return Status::ok();
  }
  if (name == "TESSEL_BUNDLE") {
    c.bundle = v;
    return Status::ok();
  }
  if (name == "TESSEL_EMU_LIBRARY") {
    c.emuLibrary = v;
    return Status::ok();
  }
  if (name == "TESSEL_JIT_LIBRARY") {
    c.jitLibrary = v;
    return Status::ok();
  }
  return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                       format("unknown knob '%s'", name.c_str()));
}

// Caller holds configMutex.
void loadLocked() {
  Config c;
  c.cacheDir = defaultCacheDir();
  for (const char *n : knobNames) {
    const char *v = getenv(n);
    if (!v)
      continue;
    // An ill-typed environment value is reported once and ignored, so that a
    // typo does not make every call fail.
    if (Status s = applyKnob(c, n, v))
      fprintf(stderr, "tessel: ignoring %s\n", s.message().c_str());
  }
  config = c;
  logTuned.store(c.logTunedConfig, std::memory_order_relaxed);
  configLoaded = true;
}

} // namespace

const std::vector<KnobInfo> &knobRegistry() {
  static const std::vector<KnobInfo> knobs = {
      {"TESSEL_LOG_TUNED_CONFIG", KnobType::Bool, "0",
       "Log every dispatcher pick (op, key, chosen variant, rule) to stderr."},
      {"TESSEL_TUNED_DIR", KnobType::Path, "",
       "Directory of tuned tables <op>.csv that replace the built-in ones."},
      {"TESSEL_CACHE_DIR", KnobType::Path, "$XDG_CACHE_HOME/tessel",
       "On-disk cache of just-in-time compiled code objects."},
      {"TESSEL_DEVICE", KnobType::DeviceKind, "auto",
       "emu | emu:gfx942 | emu:gfx950 | cuda | hip | auto."},
      {"TESSEL_BUNDLE", KnobType::Path, "",
       "Bundle file loaded by every new context."},
      {"TESSEL_EMU_LIBRARY", KnobType::Path, "",
       "Path of libtessel_emu.so (default: next to the runtime library)."},
      {"TESSEL_JIT_LIBRARY", KnobType::Path, "",
       "Path of libtessel_jit.so (default: next to the runtime library)."},
  };
  return knobs;
}

Config currentConfig() {
  std::lock_guard<std::mutex> lock(configMutex);
  if (!configLoaded)
    loadLocked();
  return config;
}

Status setKnob(const std::string &name, const std::string &value) {
  std::lock_guard<std::mutex> lock(configMutex);
  if (!configLoaded)
    loadLocked();
  Config c = config;
  if (Status s = applyKnob(c, name, value))
    return s;
  config = c;
  logTuned.store(c.logTunedConfig, std::memory_order_relaxed);
  return Status::ok();
}

void reloadConfigFromEnvironment() {
  std::lock_guard<std::mutex> lock(configMutex);
  loadLocked();
}

bool logTunedConfigEnabled() {
  {
    // First use loads the environment; afterwards this is one atomic load.
    static bool once = (currentConfig(), true);
    (void)once;
  }
  return logTuned.load(std::memory_order_relaxed);
}

} // namespace tessel
