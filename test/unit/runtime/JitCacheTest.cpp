//===- JitCacheTest.cpp - JIT-on-miss cache with a fake compiler plugin ---===//

#include "JitCache.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace tessel;
using namespace tessel_test;

namespace {

class JitCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = tempPath("tessel-jit");
    unlink(dir.c_str());
    cacheDir = dir + "/cache/nested";
    ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
    source = dir + "/kernel.mlir";
    ASSERT_TRUE(writeBytes(source, "tile.func @k() {}\n"));
    counter = dir + "/count";
    setenv("FAKE_JIT_COUNTER", counter.c_str(), 1);
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(0, system(cmd.c_str()));
    unsetenv("FAKE_JIT_COUNTER");
  }
  int compiles() {
    struct stat st;
    return stat(counter.c_str(), &st) == 0 ? static_cast<int>(st.st_size) : 0;
  }
  std::vector<std::string> cacheFiles() {
    std::vector<std::string> out;
    if (DIR *d = opendir(cacheDir.c_str())) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
          out.push_back(e->d_name);
      closedir(d);
    }
    return out;
  }
  std::string dir, cacheDir, source, counter;
};

} // namespace

TEST_F(JitCacheTest, KeyDependsOnEveryInputButNotKnobOrder) {
  KnobList a = {{"x", 1}, {"y", 2}}, b = {{"y", 2}, {"x", 1}};
  std::string k = JitCache::key("v1", "src", "gfx942", a);
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, JitCache::key("v1", "src", "gfx942", b));
  EXPECT_NE(k, JitCache::key("v2", "src", "gfx942", a));
  EXPECT_NE(k, JitCache::key("v1", "src2", "gfx942", a));
  EXPECT_NE(k, JitCache::key("v1", "src", "gfx950", a));
  EXPECT_NE(k, JitCache::key("v1", "src", "gfx942", {{"x", 1}, {"y", 3}}));
  // Field boundaries matter ("ab"+"c" vs "a"+"bc").
  EXPECT_NE(JitCache::key("ab", "c", "t", {}),
            JitCache::key("a", "bc", "t", {}));
}

TEST_F(JitCacheTest, MissCompilesHitReadsAndCorruptionRecompiles) {
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  KnobList knobs = {{"k_bf16", 1}};
  BundleEntry e;
  bool hit = true;
  Status s = cache.getOrCompile(source, "emu-gfx950", knobs, e, &hit);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_FALSE(hit);
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(e.target, "gfx950");
  EXPECT_EQ(e.format, CodeFormat::Simt);
  EXPECT_NE(e.code.find("fp8=e4m3fn "), std::string::npos);
  ASSERT_EQ(cacheFiles().size(), 1u);

  // A second cache object (another process, say) hits the disk entry.
  JitCache again(cacheDir, FAKE_JIT_PATH);
  BundleEntry e2;
  ASSERT_TRUE(again.getOrCompile(source, "emu-gfx950", knobs, e2, &hit).isOk());
  EXPECT_TRUE(hit);
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(e2.code, e.code);

  // Other knobs or an edited source miss.
  ASSERT_TRUE(
      again.getOrCompile(source, "emu-gfx950", {{"k_bf16", 0}}, e2, &hit)
          .isOk());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(writeBytes(source, "tile.func @k() { edited }\n"));
  ASSERT_TRUE(again.getOrCompile(source, "emu-gfx950", knobs, e2, &hit).isOk());
  EXPECT_FALSE(hit);
  EXPECT_EQ(compiles(), 3);

  // Corrupt every entry: the next lookup recompiles and replaces it.
  for (const auto &f : cacheFiles())
    ASSERT_TRUE(writeBytes(cacheDir + "/" + f, "garbage"));
  ASSERT_TRUE(again.getOrCompile(source, "emu-gfx950", knobs, e2, &hit).isOk());
  EXPECT_FALSE(hit);
  EXPECT_EQ(compiles(), 4);
  ASSERT_TRUE(again.getOrCompile(source, "emu-gfx950", knobs, e2, &hit).isOk());
  EXPECT_TRUE(hit);
  for (const auto &f : cacheFiles())
    EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

TEST_F(JitCacheTest, CreatesPrivateFolders) {
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  BundleEntry e;
  ASSERT_TRUE(
      cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, nullptr)
          .isOk());
  EXPECT_EQ(cache.cacheProblem(), "");
  for (const std::string &d : {dir + "/cache", cacheDir}) {
    struct stat st;
    ASSERT_EQ(0, stat(d.c_str(), &st)) << d;
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
}

TEST_F(JitCacheTest, RefusesAGroupOrOtherWritableFolder) {
  ASSERT_EQ(0, mkdir((dir + "/cache").c_str(), 0700));
  ASSERT_EQ(0, mkdir(cacheDir.c_str(), 0700));
  ASSERT_EQ(0, chmod(cacheDir.c_str(), 0777));
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  BundleEntry e;
  bool hit = true;
  for (int i = 1; i <= 2; ++i) {
    Status s =
        cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, &hit);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_FALSE(hit);
    EXPECT_EQ(compiles(), i);
  }
  EXPECT_EQ(cache.cacheProblem(),
            "cache folder '" + cacheDir +
                "' is writable by group or others (mode 0777); compiling "
                "without the cache");
  EXPECT_TRUE(cacheFiles().empty());
  // An entry planted there is not loaded.
  ASSERT_EQ(0, chmod(cacheDir.c_str(), 0700));
  ASSERT_TRUE(cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, &hit)
                  .isOk());
  ASSERT_EQ(cacheFiles().size(), 1u);
  ASSERT_EQ(0, chmod(cacheDir.c_str(), 0770));
  ASSERT_TRUE(cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, &hit)
                  .isOk());
  EXPECT_FALSE(hit);
  EXPECT_EQ(compiles(), 4);
  EXPECT_NE(cache.cacheProblem().find("(mode 0770)"), std::string::npos)
      << cache.cacheProblem();
}

TEST_F(JitCacheTest, RefusesAFolderOfAnotherUser) {
  ASSERT_EQ(0, mkdir((dir + "/cache").c_str(), 0700));
  ASSERT_EQ(0, mkdir(cacheDir.c_str(), 0700));
  // Compile once so that a valid entry is there, then give the folder away.
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  BundleEntry e;
  bool hit = true;
  ASSERT_TRUE(cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, &hit)
                  .isOk());
  ASSERT_EQ(cacheFiles().size(), 1u);
  if (chown(cacheDir.c_str(), 65534, static_cast<gid_t>(-1)) != 0)
    GTEST_SKIP() << "cannot chown to uid 65534 (not root): " << strerror(errno);
  ASSERT_TRUE(cache.getOrCompile(source, "emu-gfx950", {{"k_bf16", 1}}, e, &hit)
                  .isOk());
  EXPECT_FALSE(hit);
  EXPECT_EQ(compiles(), 2);
  EXPECT_EQ(cache.cacheProblem(),
            "cache folder '" + cacheDir +
                "' is owned by uid 65534, not by this user (uid " +
                std::to_string(geteuid()) + "); compiling without the cache");
}

TEST_F(JitCacheTest, ErrorsAreClear) {
  JitCache noPlugin(cacheDir, dir + "/libtessel_jit.so");
  BundleEntry e;
  Status s = noPlugin.getOrCompile(source, "emu-gfx950", {}, e, nullptr);
  EXPECT_EQ(s.code(), TESSEL_ERROR_NO_KERNEL);
  EXPECT_NE(s.message().find("needs the compiler plugin libtessel_jit.so"),
            std::string::npos)
      << s.message();
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  s = cache.getOrCompile(source, "sm_90", {}, e, nullptr);
  EXPECT_NE(s.message().find("fake JIT compiles only emu targets"),
            std::string::npos)
      << s.message();
  s = cache.getOrCompile(dir + "/missing.mlir", "emu-gfx950", {}, e, nullptr);
  EXPECT_EQ(s.code(), TESSEL_ERROR_IO);
}

TEST_F(JitCacheTest, ConcurrentProcessesShareOneValidEntry) {
  const int kProcs = 6;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      JitCache cache(cacheDir, FAKE_JIT_PATH);
      BundleEntry e;
      Status s =
          cache.getOrCompile(source, "emu-gfx942", {{"k_bf16", 1}}, e, nullptr);
      _exit(s.isOk() && e.code.find("e4m3fnuz") != std::string::npos ? 0 : 1);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // Exactly one entry, complete and valid, and no temp files left behind.
  std::vector<std::string> files = cacheFiles();
  ASSERT_EQ(files.size(), 1u);
  Bundle b;
  std::string err;
  EXPECT_TRUE(readBundleFile(cacheDir + "/" + files[0], b, err)) << err;
  EXPECT_GE(compiles(), 1);
  JitCache cache(cacheDir, FAKE_JIT_PATH);
  BundleEntry e;
  bool hit = false;
  ASSERT_TRUE(cache.getOrCompile(source, "emu-gfx942", {{"k_bf16", 1}}, e, &hit)
                  .isOk());
  EXPECT_TRUE(hit);
}

TEST_F(JitCacheTest, ContextCompilesAMissingVariant) {
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH), 0);
  ASSERT_EQ(tessel_config_set("TESSEL_JIT_LIBRARY", FAKE_JIT_PATH), 0);
  ASSERT_EQ(tessel_config_set("TESSEL_CACHE_DIR", cacheDir.c_str()), 0);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  alignas(64) static uint16_t k[3 * 128];
  alignas(64) static int64_t slots[3] = {5, -1, 0};
  alignas(64) static uint8_t cache[2 * 4 * 132];
  for (int i = 0; i < 3 * 128; ++i)
    k[i] = static_cast<uint16_t>(0x3f80 + (i % 64)); // bf16 values near 1..2
  tessel_tensor tk = makeTensor(k, TESSEL_DTYPE_BF16, {3, 128}, {128, 1});
  tessel_tensor ts = makeTensor(slots, TESSEL_DTYPE_I64, {3}, {1});
  tessel_tensor tc = makeTensor(cache, TESSEL_DTYPE_U8, {2, 4, 1, 132},
                                {4 * 132, 132, 132, 1});
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr),
            TESSEL_ERROR_NO_KERNEL);

  const char *names[] = {"k_bf16", "tokens_per_program"};
  int64_t values[] = {1, 2};
  ASSERT_EQ(
      tessel_context_compile_variant(ctx, source.c_str(), names, values, 2),
      TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(compiles(), 1);
  // Again: no compile, no duplicate-variant error.
  ASSERT_EQ(
      tessel_context_compile_variant(ctx, source.c_str(), names, values, 2),
      TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  // Slot 5 is block 1, offset 1: its scale is amax/448 of row 0.
  float scale;
  memcpy(&scale, cache + 4 * 132 + 4 * 128 + 1 * 4, 4);
  float amax = 0;
  for (int d = 0; d < 128; ++d) {
    uint32_t u = static_cast<uint32_t>(k[d]) << 16;
    float f;
    memcpy(&f, &u, 4);
    amax = std::max(amax, f);
  }
  EXPECT_FLOAT_EQ(scale, amax / 448.0f);
  tessel_context_destroy(ctx);

  // A new context hits the on-disk cache.
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &ctx), TESSEL_SUCCESS);
  ASSERT_EQ(
      tessel_context_compile_variant(ctx, source.c_str(), names, values, 2),
      TESSEL_SUCCESS);
  EXPECT_EQ(compiles(), 1);
  // No plugin: a clear error.
  ASSERT_EQ(tessel_config_set("TESSEL_JIT_LIBRARY", "/none/libtessel_jit.so"),
            0);
  tessel_context_destroy(ctx);
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &ctx), TESSEL_SUCCESS);
  EXPECT_EQ(
      tessel_context_compile_variant(ctx, source.c_str(), names, values, 2),
      TESSEL_ERROR_NO_KERNEL);
  EXPECT_NE(std::string(tessel_last_error()).find("libtessel_jit.so"),
            std::string::npos);
  tessel_context_destroy(ctx);
  tessel_config_set("TESSEL_JIT_LIBRARY", "");
  tessel_config_set("TESSEL_CACHE_DIR", "");
}
