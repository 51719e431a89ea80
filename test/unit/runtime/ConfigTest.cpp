//===- ConfigTest.cpp - The typed knob registry ---------------------------===//

#include "Config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

using namespace tessel;

TEST(Config, RegistryListsEveryKnob) {
  std::set<std::string> names;
  for (const auto &k : knobRegistry()) {
    names.insert(k.name);
    EXPECT_NE(std::string(k.doc), "");
  }
  for (const char *n :
       {"TESSEL_LOG_TUNED_CONFIG", "TESSEL_TUNED_DIR", "TESSEL_CACHE_DIR",
        "TESSEL_DEVICE", "TESSEL_BUNDLE", "TESSEL_EMU_LIBRARY"})
    EXPECT_EQ(names.count(n), 1u) << n;
}

TEST(Config, ReadsTheEnvironmentWithTypes) {
  setenv("TESSEL_LOG_TUNED_CONFIG", "1", 1);
  setenv("TESSEL_DEVICE", "emu:gfx950", 1);
  setenv("TESSEL_TUNED_DIR", "/some/dir", 1);
  setenv("TESSEL_CACHE_DIR", "/cache/here", 1);
  setenv("TESSEL_BUNDLE", "/b.tbundle", 1);
  setenv("TESSEL_EMU_LIBRARY", "/x/libtessel_emu.so", 1);
  reloadConfigFromEnvironment();
  Config c = currentConfig();
  EXPECT_TRUE(c.logTunedConfig);
  EXPECT_TRUE(logTunedConfigEnabled());
  EXPECT_EQ(c.device, "emu:gfx950");
  EXPECT_EQ(c.tunedDir, "/some/dir");
  EXPECT_EQ(c.cacheDir, "/cache/here");
  EXPECT_EQ(c.bundle, "/b.tbundle");
  EXPECT_EQ(c.emuLibrary, "/x/libtessel_emu.so");

  // An ill-typed environment value is ignored (with a message), not fatal.
  setenv("TESSEL_DEVICE", "tpu", 1);
  setenv("TESSEL_LOG_TUNED_CONFIG", "maybe", 1);
  reloadConfigFromEnvironment();
  c = currentConfig();
  EXPECT_EQ(c.device, "auto");
  EXPECT_FALSE(c.logTunedConfig);
  for (const char *n :
       {"TESSEL_LOG_TUNED_CONFIG", "TESSEL_DEVICE", "TESSEL_TUNED_DIR",
        "TESSEL_CACHE_DIR", "TESSEL_BUNDLE", "TESSEL_EMU_LIBRARY"})
    unsetenv(n);
  reloadConfigFromEnvironment();
  c = currentConfig();
  EXPECT_FALSE(c.cacheDir.empty()); // a default under $HOME or /tmp
  EXPECT_EQ(c.device, "auto");
}

TEST(Config, SetKnobValidates) {
  reloadConfigFromEnvironment();
  EXPECT_TRUE(setKnob("TESSEL_DEVICE", "hip").isOk());
  EXPECT_EQ(currentConfig().device, "hip");
  Status s = setKnob("TESSEL_DEVICE", "gpu");
  EXPECT_EQ(s.code(), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("TESSEL_DEVICE"), std::string::npos);
  EXPECT_EQ(currentConfig().device, "hip"); // unchanged
  s = setKnob("TESSEL_NOPE", "1");
  EXPECT_NE(s.message().find("unknown knob 'TESSEL_NOPE'"), std::string::npos);
  EXPECT_EQ(tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "yes"),
            TESSEL_SUCCESS);
  EXPECT_TRUE(logTunedConfigEnabled());
  EXPECT_EQ(tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "2"),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("TESSEL_LOG_TUNED_CONFIG"),
            std::string::npos);
  EXPECT_EQ(tessel_config_set(nullptr, "1"), TESSEL_ERROR_INVALID_ARGUMENT);
  reloadConfigFromEnvironment();
}
