//===- FakeJitPlugin.cpp - A stand-in for libtessel_jit.so in tests -------===//
//
// "Compiles" by emitting fake SIMT text naming the source size and knobs, and
// counts its compiles in a file named by FAKE_JIT_COUNTER (so that counts
// from several processes add up).
//
//===----------------------------------------------------------------------===//

#include "tessel/jit_plugin.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

extern "C" {

int tessel_jit_abi_version(void) { return TESSEL_JIT_PLUGIN_ABI_VERSION; }
const char *tessel_jit_compiler_version(void) { return "fake-jit 1"; }

int tessel_jit_compile(const char *sourcePath, const char *target,
                       const char *const *names, const int64_t *values,
                       size_t n, void **code, size_t *codeLen, char **manifest,
                       char *err, size_t errLen) {
  if (const char *c = getenv("FAKE_JIT_COUNTER")) {
    int fd = open(c, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      (void)!write(fd, "x", 1);
      close(fd);
    }
  }
  FILE *f = fopen(sourcePath, "rb");
  if (!f) {
    snprintf(err, errLen, "cannot open %s", sourcePath);
    return 1;
  }
  fclose(f);
  if (std::string(target) != "emu-gfx942" &&
      std::string(target) != "emu-gfx950") {
    snprintf(err, errLen, "fake JIT compiles only emu targets, not %s", target);
    return 1;
  }
  std::string text =
      "FAKE-SIMT kernel=indexer_k_cache_write fp8=" +
      std::string(std::string(target) == "emu-gfx942" ? "e4m3fnuz" : "e4m3fn") +
      " tpp=1";
  std::string knobs;
  for (size_t i = 0; i < n; ++i)
    knobs += std::string(i ? "," : "") + "\"" + names[i] +
             "\":" + std::to_string(values[i]);
  std::string m = "{\"name\":\"jit.v\",\"kernel\":\"indexer_k_cache_write\","
                  "\"target\":\"" +
                  std::string(target) + "\",\"knobs\":{" + knobs +
                  "},\"args\":[{\"name\":\"n\",\"kind\":\"i32\"}],"
                  "\"block\":[64]}";
  *code = malloc(text.size());
  memcpy(*code, text.data(), text.size());
  *codeLen = text.size();
  *manifest = strdup(m.c_str());
  usleep(20000); // widen the window for concurrent compiles
  return 0;
}

void tessel_jit_free(void *p) { free(p); }
}
