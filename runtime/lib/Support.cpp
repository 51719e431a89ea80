//===- Support.cpp - Status, hashing and string helpers -------------------===//

#include "Support.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel {

namespace {
thread_local char lastError[2048];
} // namespace

std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0)
    return std::string();
  if (static_cast<size_t>(n) < sizeof(buf))
    return std::string(buf, n);
  std::string s(n + 1, '\0');
  va_start(ap, fmt);
  vsnprintf(&s[0], s.size(), fmt, ap);
  va_end(ap);
  s.resize(n);
  return s;
}

tessel_status setLastError(tessel_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lastError, sizeof(lastError), fmt, ap);
  va_end(ap);
  return code;
}

tessel_status setLastError(const Status &s) {
  snprintf(lastError, sizeof(lastError), "%s", s.message().c_str());
  return s.code();
}

void clearLastError() { lastError[0] = '\0'; }

} // namespace tessel

extern "C" const char *tessel_last_error(void) { return tessel::lastError; }

namespace tessel {

uint64_t fnv1a64(const void *data, size_t len, uint64_t seed) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  snprintf(buf, sizeof(buf), "%016" PRIx64, v);
  return buf;
}

namespace {
const char *fileKindName(mode_t m) {
  if (S_ISDIR(m))
    return "a directory";
  if (S_ISFIFO(m))
    return "a FIFO";
  if (S_ISCHR(m))
    return "a character device";
  if (S_ISBLK(m))
    return "a block device";
  if (S_ISSOCK(m))
    return "a socket";
  return "not a regular file";
}
} // namespace

Status statDirectory(const std::string &dir, const char *what,
                     struct stat &st) {
  if (stat(dir.c_str(), &st) != 0)
    return Status::error(TESSEL_ERROR_IO, format("%s '%s': %s", what,
                                                 dir.c_str(), strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    return Status::error(TESSEL_ERROR_IO, format("%s '%s' is not a directory",
                                                 what, dir.c_str()));
  return Status::ok();
}

Status readFile(const std::string &path, std::string &out, size_t maxBytes) {
  auto ioError = [&](const char *what, int e) {
    return Status::error(TESSEL_ERROR_IO, format("cannot %s '%s': %s", what,
                                                 path.c_str(), strerror(e)));
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return ioError("open", errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return ioError("stat", e);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Status::error(TESSEL_ERROR_IO,
                         format("cannot read '%s': it is %s, not a regular "
                                "file",
                                path.c_str(), fileKindName(st.st_mode)));
  }
  auto tooBig = [&]() {
    close(fd);
    return Status::error(TESSEL_ERROR_IO,
                         format("cannot read '%s': it is larger than the "
                                "limit of %zu bytes",
                                path.c_str(), maxBytes));
  };
  if (static_cast<uint64_t>(st.st_size) > maxBytes)
    return tooBig();
  out.clear();
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int e = errno;
      close(fd);
      return ioError("read", e);
    }
    if (n == 0)
      break;
    // The file may grow while it is read.
    if (out.size() + static_cast<size_t>(n) > maxBytes)
      return tooBig();
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::ok();
}

Status writeFileAtomic(const std::string &path, const std::string &data) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(&tmp[0]);
  if (fd < 0)
    return Status::error(TESSEL_ERROR_IO,
                         format("cannot create a temp file for '%s': %s",
                                path.c_str(), strerror(errno)));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = write(fd, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return Status::error(TESSEL_ERROR_IO, format("cannot write '%s': %s",
                                                   tmp.c_str(), strerror(e)));
    }
    done += static_cast<size_t>(w);
  }
  fchmod(fd, 0644);
  if (close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Status::error(TESSEL_ERROR_IO, format("cannot write '%s': %s",
                                                 path.c_str(), strerror(e)));
  }
  return Status::ok();
}

bool parseInt64(const std::string &s, int64_t &out) {
  if (s.empty() || s.size() > 20)
    return false;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size())
    return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1)
      return false;
    out = v == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN
                                                    : -static_cast<int64_t>(v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX))
      return false;
    out = static_cast<int64_t>(v);
  }
  return true;
}

} // namespace tessel
