//===- Support.h - Status, hashing and string helpers -----------*- C++ -*-===//
//
// Internal to the Tessel runtime. The runtime uses no C++ exceptions: every
// fallible function returns a Status carrying a tessel_status code and a
// message that names the problem.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_SUPPORT_H
#define TESSEL_RUNTIME_SUPPORT_H

#include "tessel/tessel.h"

#include <cstdarg>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <sys/stat.h>

namespace tessel {

class Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(tessel_status code, std::string msg) {
    Status s;
    s.code_ = code;
    s.msg_ = std::move(msg);
    return s;
  }
  bool isOk() const { return code_ == TESSEL_SUCCESS; }
  explicit operator bool() const { return !isOk(); } // true on error
  tessel_status code() const { return code_; }
  const std::string &message() const { return msg_; }
  /// Prefixes the message with context, e.g. the file being read.
  Status &prefix(const std::string &p) {
    msg_ = p + msg_;
    return *this;
  }

private:
  tessel_status code_ = TESSEL_SUCCESS;
  std::string msg_;
};

/// printf-style formatting into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// Stores the message of a failed call for tessel_last_error() on this thread
/// without allocating (fixed-size thread-local buffer), and returns the code.
tessel_status setLastError(tessel_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
tessel_status setLastError(const Status &s);
void clearLastError();

/// Runs the body of a C entry point, so that no C++ exception crosses the C
/// API: one becomes TESSEL_ERROR_INTERNAL with a message naming fn.
template <class F> tessel_status guardApi(const char *fn, F &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return setLastError(TESSEL_ERROR_INTERNAL, "%s: out of host memory", fn);
  } catch (const std::exception &e) {
    return setLastError(TESSEL_ERROR_INTERNAL, "%s: internal error: %s", fn,
                        e.what());
  } catch (...) {
    return setLastError(TESSEL_ERROR_INTERNAL,
                        "%s: internal error: unknown exception", fn);
  }
}

/// 64-bit FNV-1a; used for bundle checksums and content-hash cache keys.
/// Detects corruption; it is not a cryptographic hash.
uint64_t fnv1a64(const void *data, size_t len,
                 uint64_t seed = 0xcbf29ce484222325ull);
std::string hex64(uint64_t v);

/// The default cap of readFile(): larger than any bundle Tessel writes.
constexpr size_t kMaxFileBytes = size_t(1) << 30;

/// Reads a whole regular file of at most maxBytes bytes. It never blocks and
/// never reads without end: the file is opened with O_NONBLOCK and anything
/// but a regular file (a FIFO, /dev/zero, a directory) is refused. Fails with
/// TESSEL_ERROR_IO naming the path and the problem.
Status readFile(const std::string &path, std::string &out,
                size_t maxBytes = kMaxFileBytes);
/// Fails with TESSEL_ERROR_IO, naming it as `what` (e.g. "cache folder"),
/// when `dir` does not exist or is not a directory; else fills `st` with its
/// stat().
Status statDirectory(const std::string &dir, const char *what,
                     struct stat &st);
/// Writes a file atomically: a unique temp file in the same directory, then
/// rename(), so concurrent writers and readers never see a partial file.
Status writeFileAtomic(const std::string &path, const std::string &data);

/// Parses a whole string as a signed decimal integer. False on any junk.
bool parseInt64(const std::string &s, int64_t &out);

} // namespace tessel

#endif
