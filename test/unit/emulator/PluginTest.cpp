//===- PluginTest.cpp - the C ABI of libtessel_emu.so ---------------------===//
#include "TestUtil.h"
#include "tessel/emu_plugin.h"

#include <dlfcn.h>

#include <thread>

#include <vector>

using namespace tessel::emu::test;

namespace {

const char *kIR = R"(module attributes {gpu.container_module} {
gpu.module @m {
gpu.func @scale(%A: memref<?xf32, #gpu.address_space<global>>, %s: f32, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = "gfx950"} {
  %t = gpu.thread_id x
  %b = gpu.block_id x
  %c64 = arith.constant 64 : index
  %o = arith.muli %b, %c64 : index
  %i = arith.addi %o, %t : index
  %ii = arith.index_cast %i : index to i32
  %in = arith.cmpi slt, %ii, %n : i32
  scf.if %in {
    %x = memref.load %A[%i] : memref<?xf32, #gpu.address_space<global>>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %A[%i] : memref<?xf32, #gpu.address_space<global>> loc("scale.mlir":14:5)
  }
  gpu.return
}
}
})";

struct Plugin {
  void *h = nullptr;
  decltype(&tessel_emu_abi_version) version = nullptr;
  decltype(&tessel_emu_module_load) loadFn = nullptr;
  decltype(&tessel_emu_module_unload) unload = nullptr;
  decltype(&tessel_emu_launch) launch = nullptr;
  Plugin() {
    h = dlopen(TESSEL_EMU_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return;
    version = (decltype(version))dlsym(h, "tessel_emu_abi_version");
    loadFn = (decltype(loadFn))dlsym(h, "tessel_emu_module_load");
    unload = (decltype(unload))dlsym(h, "tessel_emu_module_unload");
    launch = (decltype(launch))dlsym(h, "tessel_emu_launch");
  }
};

TEST(EmulatorPlugin, LoadLaunchAndErrors) {
  Plugin p;
  ASSERT_TRUE(p.h) << dlerror();
  ASSERT_TRUE(p.version && p.loadFn && p.unload && p.launch);
  EXPECT_EQ(p.version(), TESSEL_EMU_PLUGIN_ABI_VERSION);
  char err[512];
  tessel_emu_module *m = nullptr;
  ASSERT_EQ(p.loadFn(kIR, strlen(kIR), &m, err, sizeof(err)), 0) << err;
  std::vector<float> A(100);
  for (int i = 0; i < 100; ++i)
    A[i] = (float)i;
  void *ptr = A.data();
  int64_t off = 0, size = 100, stride = 1;
  float s = 2.5f;
  int32_t n = 100;
  void *params[] = {&ptr, &ptr, &off, &size, &stride, &s, &n};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
  EXPECT_EQ(p.launch(m, "scale", grid, block, params, 7, err, sizeof(err)), 0)
      << err;
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(A[i], i * 2.5f);
  // Wrong parameter count.
  EXPECT_NE(p.launch(m, "scale", grid, block, params, 6, err, sizeof(err)), 0);
  EXPECT_NE(std::string(err).find("7 flattened parameters"), std::string::npos)
      << err;
  // The guard lets 128 threads through, but the buffer holds 100: caught.
  n = 128;
  EXPECT_NE(p.launch(m, "scale", grid, block, params, 7, err, sizeof(err)), 0);
  EXPECT_NE(std::string(err).find("<simt-ir>:12:10: 'memref.load'"),
            std::string::npos)
      << err;
  EXPECT_NE(std::string(err).find("index [100]"), std::string::npos) << err;
  // A non-contiguous stride would let accesses escape the buffer.
  n = 100;
  stride = 2;
  EXPECT_NE(p.launch(m, "scale", grid, block, params, 7, err, sizeof(err)), 0);
  EXPECT_NE(std::string(err).find("stride 2"), std::string::npos) << err;
  stride = 1;
  // Truncated error message stays NUL-terminated.
  char small[8];
  EXPECT_NE(p.launch(m, "nope", grid, block, params, 7, small, sizeof(small)),
            0);
  EXPECT_EQ(strlen(small), 7u);
  p.unload(m);
  p.unload(nullptr);
  // Parse errors are reported.
  EXPECT_NE(p.loadFn("module {", 8, &m, err, sizeof(err)), 0);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(err).find("parse"), std::string::npos) << err;
}

// Concurrent launches on one module from several threads.
TEST(EmulatorPlugin, ConcurrentLaunches) {
  Plugin p;
  ASSERT_TRUE(p.h) << dlerror();
  char err[512];
  tessel_emu_module *m = nullptr;
  ASSERT_EQ(p.loadFn(kIR, strlen(kIR), &m, err, sizeof(err)), 0) << err;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      std::vector<float> A(1000);
      for (int rep = 0; rep < 10; ++rep) {
        for (int i = 0; i < 1000; ++i)
          A[i] = (float)(i + th);
        void *ptr = A.data();
        int64_t off = 0, size = 1000, stride = 1;
        float s = 0.5f;
        int32_t n = 1000;
        void *params[] = {&ptr, &ptr, &off, &size, &stride, &s, &n};
        uint32_t grid[3] = {16, 1, 1}, block[3] = {64, 1, 1};
        char e[256];
        if (p.launch(m, "scale", grid, block, params, 7, e, sizeof(e)) != 0)
          ++failures[th];
        for (int i = 0; i < 1000; ++i)
          if (A[i] != (i + th) * 0.5f)
            ++failures[th];
      }
    });
  for (auto &t : threads)
    t.join();
  for (int th = 0; th < 4; ++th)
    EXPECT_EQ(failures[th], 0) << th;
  p.unload(m);
}

} // namespace
