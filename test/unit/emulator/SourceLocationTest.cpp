//===- SourceLocationTest.cpp - faults name the DSL line ------------------===//
//
// data/kernels/oob_store.mlir stores past the end of a short buffer at line
// 11, column 3. Compiled to SIMT IR by each producer the emulator gets code
// from (tessel-translate --emit=simt, the library builder's bundle, the JIT
// plugin), the fault must name that line, not a line of the SIMT text.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "tessel/bundle.h"
#include "tessel/jit_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

using namespace tessel::emu;
using namespace tessel::emu::test;

namespace {

const std::string kKernelsDir = TESSEL_EMU_TEST_DATA "/kernels";
const std::string kSource = kKernelsDir + "/oob_store.mlir";
// The tile.store of oob_store.mlir, which becomes a vector.store.
const char *kStoreAt = "oob_store.mlir:11:3: 'vector.store'";

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string freshDir(const std::string &tag) {
  std::string tmpl = testing::TempDir() + "tessel-loc-" + tag + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const char *d = mkdtemp(buf.data());
  return d ? std::string(d) : std::string();
}

// Runs a shell command; returns its exit status.
int shell(const std::string &cmd) { return std::system(cmd.c_str()); }

// Runs oob_store's SIMT IR on a 100-element buffer that its 128 stores
// overrun, and returns the emulator's message.
std::string faultOf(const std::string &simt) {
  std::unique_ptr<Module> m = load(simt);
  if (!m)
    return "(load failed)";
  std::vector<int32_t> out(100);
  return errOf(m->launchArgs("oob_store", {1, 1, 1}, {64, 1, 1},
                             {KernelArg::buffer(out.data(), 100)}));
}

TEST(EmulatorSourceLocations, TranslateEmitSimt) {
  std::string dir = freshDir("translate");
  ASSERT_FALSE(dir.empty());
  std::string simt = dir + "/oob_store.simt.mlir";
  ASSERT_EQ(shell("'" TESSEL_TRANSLATE_PATH "' '" + kSource +
                  "' --target=gfx942 --emit=simt --knob=num_waves=1 -o '" +
                  simt + "'"),
            0);
  std::string e = faultOf(slurp(simt));
  EXPECT_NE(e.find(kKernelsDir + "/" + kStoreAt), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds"), std::string::npos) << e;
  EXPECT_EQ(e.find(".simt.mlir"), std::string::npos) << e;
  shell("rm -rf '" + dir + "'");
}

// The library builder names sources relative to the folder above the
// kernels folder, so the bundle does not depend on where it was built.
TEST(EmulatorSourceLocations, LibraryBundle) {
  std::string dir = freshDir("bundle");
  ASSERT_FALSE(dir.empty());
  std::string bundlePath = dir + "/lib.tbundle";
  ASSERT_EQ(shell("'" TESSEL_PYTHON "' '" TESSEL_BUILD_LIBRARY "' --kernels '" +
                  kKernelsDir +
                  "' --translate '" TESSEL_TRANSLATE_PATH
                  "' --bundle '" TESSEL_BUNDLE_TOOL "' -o '" +
                  bundlePath + "' --jobs 1 > /dev/null"),
            0);
  tessel::Bundle bundle;
  std::string error;
  ASSERT_TRUE(tessel::readBundleFile(bundlePath, bundle, error)) << error;
  ASSERT_EQ(bundle.entries.size(), 1u);
  const tessel::BundleEntry &entry = bundle.entries[0];
  ASSERT_EQ(entry.format, tessel::CodeFormat::Simt);
  EXPECT_EQ(entry.code.find(TESSEL_EMU_TEST_DATA), std::string::npos)
      << "the bundle holds a build-machine path";
  std::string e = faultOf(entry.code);
  EXPECT_NE(e.find(std::string("kernels/") + kStoreAt), std::string::npos) << e;
}

TEST(EmulatorSourceLocations, JitPlugin) {
  void *h = dlopen(TESSEL_JIT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(h) << dlerror();
  auto compile = (decltype(&tessel_jit_compile))dlsym(h, "tessel_jit_compile");
  auto release = (decltype(&tessel_jit_free))dlsym(h, "tessel_jit_free");
  ASSERT_TRUE(compile && release);
  const char *names[] = {"num_waves"};
  const int64_t values[] = {1};
  void *code = nullptr;
  size_t len = 0;
  char *manifest = nullptr;
  char err[2048];
  ASSERT_EQ(compile(kSource.c_str(), "emu-gfx942", names, values, 1, &code,
                    &len, &manifest, err, sizeof(err)),
            0)
      << err;
  std::string simt((const char *)code, len);
  release(code);
  release(manifest);
  std::string e = faultOf(simt);
  EXPECT_NE(e.find(kKernelsDir + "/" + kStoreAt), std::string::npos) << e;
  // Left loaded, as the runtime leaves it.
}

} // namespace
