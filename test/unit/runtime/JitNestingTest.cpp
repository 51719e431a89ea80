//===- JitNestingTest.cpp - Deeply nested source through the JIT ----------===//
//
// tessel_context_compile_variant runs Tessel's compiler inside the host's
// process, so input that recurses deeply in MLIR's parser must neither
// overflow the host's stack nor take the process down: too deep is an error
// naming the limit, and what is within it compiles on the plugin's own
// stack even when the calling thread's stack is small.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <string>
#include <sys/stat.h>

using namespace tessel_test;

namespace {

/// A kernel whose body holds `depth` nested scf.if regions (empty: the
/// canonicalizer removes them once parsed).
std::string nestedKernel(int depth) {
  std::string s = "tile.kernel @nested(%n: i32) {\n"
                  "  %c0 = arith.constant 0 : i32\n"
                  "  %b = arith.cmpi slt, %c0, %n : i32\n";
  for (int i = 0; i < depth; ++i)
    s += "scf.if %b {\n";
  s += std::string(depth, '}') + "\n  tile.return\n}\n";
  return s;
}

class JitNesting : public testing::Test {
protected:
  void SetUp() override {
    cacheDir_ = tempPath("tessel-jit-nesting");
    unlink(cacheDir_.c_str());
    ASSERT_EQ(0, mkdir(cacheDir_.c_str(), 0755));
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", TESSEL_EMU_PATH),
              TESSEL_SUCCESS);
    ASSERT_EQ(tessel_config_set("TESSEL_JIT_LIBRARY", TESSEL_JIT_PATH),
              TESSEL_SUCCESS);
    ASSERT_EQ(tessel_config_set("TESSEL_CACHE_DIR", cacheDir_.c_str()),
              TESSEL_SUCCESS);
    ASSERT_EQ(tessel_context_create("emu:gfx942", 0, &ctx_), TESSEL_SUCCESS)
        << tessel_last_error();
  }
  void TearDown() override {
    if (ctx_)
      tessel_context_destroy(ctx_);
    tessel_config_set("TESSEL_JIT_LIBRARY", "");
    tessel_config_set("TESSEL_CACHE_DIR", "");
  }
  std::string writeSource(const std::string &name, const std::string &text) {
    std::string path = cacheDir_ + "/" + name;
    EXPECT_TRUE(writeBytes(path, text));
    return path;
  }

  std::string cacheDir_;
  tessel_context *ctx_ = nullptr;
};

TEST_F(JitNesting, TooDeepSourceIsAnErrorNotACrash) {
  std::string path = writeSource("deep.mlir", nestedKernel(5000));
  EXPECT_NE(
      tessel_context_compile_variant(ctx_, path.c_str(), nullptr, nullptr, 0),
      TESSEL_SUCCESS);
  std::string error = tessel_last_error();
  // The body is depth 1, so the 256th scf.if (line 259) crosses the limit.
  EXPECT_NE(error.find("deep.mlir\":259:11"), std::string::npos) << error;
  EXPECT_NE(error.find("nesting depth 5001 exceeds the limit 256"),
            std::string::npos)
      << error;
}

struct SmallStackCall {
  tessel_context *ctx;
  std::string path;
  tessel_status status = TESSEL_ERROR_INTERNAL;
  std::string error = {};
};

// 250 nested regions take about 600 KiB of parser stack; the calling thread
// here has 256 KiB, so this passes only if the plugin parses on its own
// stack.
TEST_F(JitNesting, CompilesOnItsOwnStackFromASmallStackThread) {
  SmallStackCall call{ctx_, writeSource("nested.mlir", nestedKernel(250))};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 << 10), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void *arg) -> void * {
                  auto *c = static_cast<SmallStackCall *>(arg);
                  c->status = tessel_context_compile_variant(
                      c->ctx, c->path.c_str(), nullptr, nullptr, 0);
                  if (c->status != TESSEL_SUCCESS)
                    c->error = tessel_last_error();
                  return nullptr;
                },
                &call),
            0);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  EXPECT_EQ(call.status, TESSEL_SUCCESS) << call.error;
}

} // namespace
