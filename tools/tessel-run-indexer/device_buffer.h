//===- device_buffer.h - Device memory for the indexer driver ---*- C++ -*-===//
//
// A device allocation owned by a scope, and the copies in and out, for
// tessel-run-indexer. Any runtime failure here is a setup error: the driver
// prints it with the runtime's message and exits with status 2.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOOLS_RUN_INDEXER_DEVICE_BUFFER_H
#define TESSEL_TOOLS_RUN_INDEXER_DEVICE_BUFFER_H

#include "tessel/tessel.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace indexer {

/// Exits (status 2) with the runtime's last error, naming the program.
[[noreturn]] inline void fatal(const char *what) {
  fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
          tessel_last_error());
  exit(2);
}

struct DevBuf {
  tessel_context *ctx = nullptr;
  void *p = nullptr;
  DevBuf(tessel_context *c, size_t bytes) : ctx(c) {
    if (tessel_malloc(ctx, bytes ? bytes : 16, &p) != TESSEL_SUCCESS)
      fatal("tessel_malloc");
  }
  template <typename T>
  DevBuf(tessel_context *c, const std::vector<T> &host)
      : DevBuf(c, host.size() * sizeof(T)) {
    if (tessel_memcpy(ctx, p, host.data(), host.size() * sizeof(T), 0) !=
        TESSEL_SUCCESS)
      fatal("tessel_memcpy to the device");
  }
  ~DevBuf() { tessel_free(ctx, p); }
  DevBuf(const DevBuf &) = delete;
  DevBuf &operator=(const DevBuf &) = delete;

  template <typename T> std::vector<T> download(size_t count) const {
    std::vector<T> host(count);
    if (tessel_memcpy(ctx, host.data(), p, count * sizeof(T), 1) !=
        TESSEL_SUCCESS)
      fatal("tessel_memcpy from the device");
    return host;
  }
};

} // namespace indexer

#endif // TESSEL_TOOLS_RUN_INDEXER_DEVICE_BUFFER_H
