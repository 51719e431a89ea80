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
  int64_t tpp = 1, bf16 = 1;
  std::string knobs;
  for (size_t i = 0; i < n; ++i) {
    knobs += std::string(i ? "," : "") + "\"" + names[i] +
             "\":" + std::to_string(values[i]);
    if (std::string(names[i]) == "tokens_per_program")
      tpp = values[i];
    if (std::string(names[i]) == "k_bf16")
      bf16 = values[i];
  }
  std::string text =
      "FAKE-SIMT kernel=indexer_k_cache_write fp8=" +
      std::string(std::string(target) == "emu-gfx942" ? "e4m3fnuz" : "e4m3fn") +
      " tpp=" + std::to_string(tpp);
  // The op's launch ABI: three memrefs of five parameters, then scalars.
  std::string args;
  for (const char *mem : {"k", "slot_mapping", "cache"})
    for (int f = 0; f < 5; ++f)
      args += std::string(args.empty() ? "" : ",") + "{\"name\":\"" + mem +
              "." + std::to_string(f) + "\",\"kind\":\"" +
              (f < 2 ? "ptr" : "i64") + "\"}";
  args += ",{\"name\":\"num_tokens\",\"kind\":\"i32\"}"
          ",{\"name\":\"k_row_stride\",\"kind\":\"i64\"}"
          ",{\"name\":\"block_size\",\"kind\":\"i32\"}"
          ",{\"name\":\"num_slots\",\"kind\":\"i64\"}";
  std::string m = "{\"name\":\"jit.indexer.bf16_" + std::to_string(bf16) +
                  ".tpp_" + std::to_string(tpp) +
                  "\",\"kernel\":\"indexer_k_cache_write\","
                  "\"target\":\"" +
                  std::string(target) + "\",\"knobs\":{" + knobs +
                  "},\"args\":[" + args + "],\"block\":[64]}";
  *code = malloc(text.size());
  memcpy(*code, text.data(), text.size());
  *codeLen = text.size();
  *manifest = strdup(m.c_str());
  usleep(20000); // widen the window for concurrent compiles
  return 0;
}

void tessel_jit_free(void *p) { free(p); }
}
