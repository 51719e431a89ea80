//===- FileInputTest.cpp - Endless, blocking and oversized input files ----===//
//
// Every file the runtime reads (bundles, tuned tables, JIT sources) goes
// through readFile(): only regular files, with a size cap, never blocking.
// No C++ exception crosses the C API.
//
//===----------------------------------------------------------------------===//

#include "Support.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace tessel;
using namespace tessel_test;

namespace {

bool contains(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

class FileInput : public ::testing::Test {
protected:
  void SetUp() override {
    dir = tempPath("tessel-files");
    unlink(dir.c_str());
    ASSERT_EQ(0, mkdir(dir.c_str(), 0700));
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
              TESSEL_SUCCESS);
  }
  void TearDown() override {
    tessel_config_set("TESSEL_BUNDLE", "");
    tessel_config_set("TESSEL_TUNED_DIR", "");
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(0, system(cmd.c_str()));
  }
  std::string dir;
};

} // namespace

TEST_F(FileInput, ReadFileRefusesDevicesFifosAndDirectories) {
  std::string out;
  Status s = readFile("/dev/zero", out);
  EXPECT_EQ(s.code(), TESSEL_ERROR_IO);
  EXPECT_TRUE(contains(s.message(), "'/dev/zero': it is a character device, "
                                    "not a regular file"))
      << s.message();

  std::string fifo = dir + "/fifo";
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  s = readFile(fifo, out); // would block forever without O_NONBLOCK
  EXPECT_TRUE(contains(s.message(), "it is a FIFO")) << s.message();

  s = readFile(dir, out);
  EXPECT_TRUE(contains(s.message(), "it is a directory")) << s.message();

  s = readFile(dir + "/missing", out);
  EXPECT_TRUE(contains(s.message(), "cannot open")) << s.message();
}

TEST_F(FileInput, ReadFileCapsTheSize) {
  std::string path = dir + "/big";
  ASSERT_TRUE(writeBytes(path, std::string(100, 'x')));
  std::string out;
  EXPECT_TRUE(readFile(path, out, 100).isOk());
  EXPECT_EQ(out, std::string(100, 'x'));
  Status s = readFile(path, out, 99);
  EXPECT_EQ(s.code(), TESSEL_ERROR_IO);
  EXPECT_TRUE(contains(s.message(), "larger than the limit of 99 bytes"))
      << s.message();
}

TEST_F(FileInput, LoadBundleFromDevZeroFails) {
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(tessel_context_load_bundle(ctx, "/dev/zero"), TESSEL_ERROR_BUNDLE);
  EXPECT_TRUE(contains(tessel_last_error(), "not a regular file"))
      << tessel_last_error();
  std::string fifo = dir + "/bundle.fifo";
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  EXPECT_EQ(tessel_context_load_bundle(ctx, fifo.c_str()), TESSEL_ERROR_BUNDLE);
  EXPECT_TRUE(contains(tessel_last_error(), "it is a FIFO"))
      << tessel_last_error();
  tessel_context_destroy(ctx);
}

TEST_F(FileInput, TesselBundleDevZeroFails) {
  ASSERT_EQ(tessel_config_set("TESSEL_BUNDLE", "/dev/zero"), TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_BUNDLE);
  EXPECT_EQ(ctx, nullptr);
  std::string msg = tessel_last_error();
  EXPECT_TRUE(contains(msg, "TESSEL_BUNDLE: ")) << msg;
  EXPECT_TRUE(contains(msg, "'/dev/zero': it is a character device")) << msg;
}

TEST_F(FileInput, TunedTableLinkedToDevZeroFails) {
  std::string csv = dir + "/indexer_k_cache_write.csv";
  ASSERT_EQ(0, symlink("/dev/zero", csv.c_str()));
  ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", dir.c_str()), TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_NE(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_TRUE(contains(tessel_last_error(), csv + "': it is a character "
                                                  "device"))
      << tessel_last_error();
  // A FIFO in place of the CSV is refused at once.
  ASSERT_EQ(0, unlink(csv.c_str()));
  ASSERT_EQ(0, mkfifo(csv.c_str(), 0600));
  EXPECT_NE(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS);
  EXPECT_TRUE(contains(tessel_last_error(), "it is a FIFO"))
      << tessel_last_error();
}

#if !defined(__SANITIZE_ADDRESS__)
// An allocation failure inside a call becomes TESSEL_ERROR_INTERNAL, not an
// exception through the C API (which would terminate the process). Runs in a
// child with a small address-space limit; ASan reserves terabytes of shadow
// memory, so this test is left out of sanitizer builds.
TEST_F(FileInput, OutOfMemoryIsAnErrorNotACrash) {
  std::string path = dir + "/sparse.tbundle";
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(0, ftruncate(fd, off_t(900) << 20)); // sparse: no disk used
  close(fd);
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct rlimit rl;
    getrlimit(RLIMIT_AS, &rl);
    rl.rlim_cur = rlim_t(512) << 20; // well below the file's 900 MiB
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      _exit(3);
    tessel_status st = tessel_context_load_bundle(ctx, path.c_str());
    bool named = contains(tessel_last_error(), "out of host memory");
    _exit(st == TESSEL_ERROR_INTERNAL && named ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  tessel_context_destroy(ctx);
}
#endif
