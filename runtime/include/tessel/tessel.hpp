//===- tessel.hpp - Thin C++ layer over the Tessel C API --------*- C++ -*-===//
//
// Header-only RAII wrappers. Errors become tessel::Error exceptions carrying
// the status and the C API's message (compile with exceptions to use this
// header; the C API itself never throws).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TESSEL_HPP
#define TESSEL_TESSEL_HPP

#include "tessel/tessel.h"

#include <initializer_list>
#include <stdexcept>
#include <string>

namespace tessel {

class Error : public std::runtime_error {
public:
  Error(tessel_status s, const std::string &msg)
      : std::runtime_error(msg), status_(s) {}
  tessel_status status() const { return status_; }

private:
  tessel_status status_;
};

inline void check(tessel_status s) {
  if (s != TESSEL_SUCCESS)
    throw Error(s, std::string(tessel_status_string(s)) + ": " +
                       tessel_last_error());
}

/// Describes a tensor; strides default to contiguous (row-major).
inline tessel_tensor tensor(void *data, tessel_dtype dtype,
                            std::initializer_list<int64_t> shape,
                            std::initializer_list<int64_t> strides = {}) {
  tessel_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t s : shape)
    if (i < TESSEL_MAX_RANK)
      t.shape[i++] = s;
  if (strides.size() == shape.size()) {
    i = 0;
    for (int64_t s : strides)
      if (i < TESSEL_MAX_RANK)
        t.strides[i++] = s;
  } else {
    int64_t st = 1;
    for (int d = t.rank - 1; d >= 0; --d) {
      if (d < TESSEL_MAX_RANK)
        t.strides[d] = st;
      st *= d < TESSEL_MAX_RANK ? t.shape[d] : 1;
    }
  }
  return t;
}

class Context {
public:
  /// device: see tessel_context_create (nullptr = TESSEL_DEVICE).
  explicit Context(const char *device = nullptr, int ordinal = 0) {
    check(tessel_context_create(device, ordinal, &ctx_));
  }
  ~Context() { tessel_context_destroy(ctx_); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  tessel_context *get() const { return ctx_; }
  std::string deviceKind() const { return tessel_context_device_kind(ctx_); }
  std::string arch() const { return tessel_context_arch(ctx_); }
  int cuCount() const { return tessel_context_cu_count(ctx_); }

  void loadBundle(const std::string &path) {
    check(tessel_context_load_bundle(ctx_, path.c_str()));
  }

  /// DESIGN.md 3.4; see tessel_indexer_k_cache_write_opts.
  void indexerKCacheWrite(const tessel_tensor &k,
                          const tessel_tensor &slotMapping,
                          const tessel_tensor &kvCache,
                          tessel_stream stream = nullptr,
                          bool preshuffle = false,
                          tessel_scale_fmt scaleFmt = TESSEL_SCALE_FMT_F32) {
    tessel_k_cache_write_options o{preshuffle ? 1 : 0, scaleFmt};
    check(tessel_indexer_k_cache_write_opts(ctx_, &k, &slotMapping, &kvCache,
                                            &o, stream));
  }

  /// DESIGN.md 3.1; see tessel_paged_mqa_logits. flags: TESSEL_LOGITS_*.
  void pagedMqaLogits(const tessel_tensor &q, const tessel_tensor &kvCache,
                      const tessel_tensor &weights,
                      const tessel_tensor &contextLens,
                      const tessel_tensor &blockTables, int64_t maxModelLen,
                      const tessel_tensor &out, uint32_t flags = 0,
                      tessel_stream stream = nullptr) {
    check(tessel_paged_mqa_logits(ctx_, &q, &kvCache, &weights, &contextLens,
                                  &blockTables, maxModelLen, flags, &out,
                                  stream));
  }

  /// DESIGN.md 3.3; see tessel_paged_mqa_logits_metadata (numCus 0: the
  /// device's CU count).
  void pagedMqaLogitsMetadata(const tessel_tensor &contextLens,
                              int32_t splitTokens, int32_t numCus,
                              const tessel_tensor &schedule,
                              tessel_stream stream = nullptr) {
    check(tessel_paged_mqa_logits_metadata(ctx_, &contextLens, splitTokens,
                                           numCus, &schedule, stream));
  }

private:
  tessel_context *ctx_ = nullptr;
};

} // namespace tessel

#endif
