//===- Config.h - The typed knob registry -----------------------*- C++ -*-===//
//
// Every runtime knob, with its type, default and documentation, lives here.
// This file's Config.cpp is the only place in the runtime that reads the
// environment. tessel_config_set() overrides a knob for the process.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_CONFIG_H
#define TESSEL_RUNTIME_CONFIG_H

#include "Support.h"

#include <string>
#include <vector>

namespace tessel {

enum class KnobType { Bool, String, Path, DeviceKind };

struct KnobInfo {
  const char *name;
  KnobType type;
  const char *defaultValue;
  const char *doc;
};

/// A snapshot of all knobs. Cheap to copy; taken once per context.
struct Config {
  bool logTunedConfig = false; // TESSEL_LOG_TUNED_CONFIG
  std::string tunedDir;        // TESSEL_TUNED_DIR ("" = built-in tables)
  std::string cacheDir;        // TESSEL_CACHE_DIR (JIT code-object cache)
  std::string device = "auto"; // TESSEL_DEVICE
  std::string bundle;          // TESSEL_BUNDLE ("" = none)
  std::string emuLibrary;      // TESSEL_EMU_LIBRARY ("" = search)
  std::string jitLibrary;      // TESSEL_JIT_LIBRARY ("" = search)
};

/// All knobs, for documentation and `tessel_config_set` validation.
const std::vector<KnobInfo> &knobRegistry();

/// The current configuration: environment (read once, on first use) plus
/// tessel_config_set() overrides.
Config currentConfig();

/// Sets a knob by name. Fails for an unknown name or an ill-typed value.
Status setKnob(const std::string &name, const std::string &value);

/// Re-reads the environment, dropping overrides (for tests).
void reloadConfigFromEnvironment();

/// Lock-free read of TESSEL_LOG_TUNED_CONFIG for the launch path.
bool logTunedConfigEnabled();

} // namespace tessel

#endif
