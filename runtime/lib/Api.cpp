//===- Api.cpp - The C API: contexts, bundles, streams, memory ------------===//

#include "Context.h"
#include "JitCache.h"

#include <algorithm>
#include <mutex>

using namespace tessel;

namespace tessel {

void embeddedBundle(const void **data, size_t *size);

void rebuildDispatch(tessel_context *ctx) {
  // Best-ranked code objects first, so that where two variants differ only
  // in their target (sm_90a and sm_90), dispatch finds the preferred one.
  std::vector<const Variant *> vs;
  for (const auto &v : ctx->variants)
    vs.push_back(v.get());
  Device *dev = ctx->device;
  auto rank = [&](const Variant *v) {
    return codeObjectRank(*v->entry, dev->arch(), dev->codeFormat());
  };
  std::stable_sort(
      vs.begin(), vs.end(),
      [&](const Variant *a, const Variant *b) { return rank(a) > rank(b); });
  ctx->warnings.clear();
  const auto &ops = opRegistry();
  for (size_t i = 0; i < ops.size(); ++i) {
    OpState &st = ctx->ops[i];
    st.dispatch.build(*ops[i], st.table, dev->arch(), vs, ctx->warnings);
    // The workspace exists before the first launch can need it.
    if (ops[i]->workspaceBytes && !st.workspace &&
        !st.dispatch.variants().empty()) {
      uint64_t bytes = ops[i]->workspaceBytes(dev->cuCount());
      if (Status s = allocWorkspace(*dev, *ops[i], bytes, &st.workspace))
        ctx->warnings.push_back(format("%s: cannot allocate its %llu-byte "
                                       "workspace: %s",
                                       ops[i]->name, (unsigned long long)bytes,
                                       s.message().c_str()));
      else
        st.workspaceBytes = bytes;
      for (int k = 0; st.workspace && k < kSpareStreamWorkspaces; ++k) {
        void *spare = nullptr;
        if (allocWorkspace(*dev, *ops[i], bytes, &spare))
          break; // later streams allocate theirs at their first launch
        st.spareWorkspaces.push_back(spare);
      }
    }
  }
  if (ctx->config.logTunedConfig)
    for (const auto &w : ctx->warnings)
      fprintf(stderr, "tessel: %s\n", w.c_str());
}

namespace {

// The launch ABIs the runtime marshals; a bundle whose entry disagrees is
// mismatched and rejected at load, not at launch.
Status checkKnownAbi(const BundleEntry &e) {
  const OpSpec *op = findOpByKernel(e.kernel);
  return op ? checkOpAbi(*op, e) : Status::ok();
}

// Adds the entries of b that run on the context's device. `what` names the
// bundle in messages.
Status addBundle(tessel_context *ctx, std::unique_ptr<Bundle> b,
                 const std::string &path) {
  Device *dev = ctx->device;
  std::vector<std::unique_ptr<Variant>> fresh;
  for (const BundleEntry &e : b->entries) {
    if (codeObjectRank(e, dev->arch(), dev->codeFormat()) < 0)
      continue;
    if (Status s = checkKnownAbi(e))
      return s.prefix("bundle '" + path + "': ");
    auto v = std::make_unique<Variant>();
    v->entry = &e;
    if (Status s = dev->getFunction(e, &v->fn))
      return s.prefix("bundle '" + path + "': ");
    // A device that cannot say leaves 0: no grid-barrier kernel is sized by it.
    int64_t resident = 0;
    if (!dev->maxResidentPrograms(e, v->fn, resident))
      v->residentPrograms = resident;
    fresh.push_back(std::move(v));
  }
  std::unique_lock<std::shared_mutex> lock(ctx->mu);
  for (const auto &nv : fresh)
    for (const auto &ov : ctx->variants)
      if (ov->entry->name == nv->entry->name)
        return Status::error(TESSEL_ERROR_BUNDLE,
                             format("bundle '%s': code object '%s' is "
                                    "already loaded from another bundle",
                                    path.c_str(), nv->entry->name.c_str()));
  for (auto &v : fresh)
    ctx->variants.push_back(std::move(v));
  ctx->bundles.push_back(std::move(b));
  rebuildDispatch(ctx);
  return Status::ok();
}

Status loadBundle(tessel_context *ctx, const std::string &path) {
  auto b = std::make_unique<Bundle>();
  std::string err;
  if (!readBundleFile(path, *b, err))
    return Status::error(TESSEL_ERROR_BUNDLE, err);
  return addBundle(ctx, std::move(b), path);
}

// Loads every op's tuned table, so that a malformed one fails context
// creation whichever op is used later.
Status loadTables(tessel_context *ctx) {
  std::vector<TunedTable> tables;
  std::vector<std::string> notes;
  if (Status s = loadTunedTables(ctx->config.tunedDir, tables, notes))
    return s;
  const auto &schemas = tunedTableSchemas();
  const auto &ops = opRegistry();
  ctx->ops.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t t = 0; t < schemas.size(); ++t)
      if (schemas[t] == &ops[i]->schema)
        ctx->ops[i].table = std::move(tables[t]);
  if (ctx->config.logTunedConfig)
    for (const auto &n : notes)
      fprintf(stderr, "tessel: %s\n", n.c_str());
  return Status::ok();
}

Status loadEmbeddedBundle(tessel_context *ctx) {
  const void *data = nullptr;
  size_t size = 0;
  embeddedBundle(&data, &size);
  if (!data || !size)
    return Status::ok();
  auto b = std::make_unique<Bundle>();
  std::string err;
  if (!parseBundle(data, size, *b, err))
    return Status::error(TESSEL_ERROR_BUNDLE,
                         "the bundle built into the library: " + err);
  return addBundle(ctx, std::move(b), "<built-in>");
}

} // namespace
} // namespace tessel

tessel_context::~tessel_context() {
  for (tessel::OpState &st : ops) {
    if (st.workspace && device)
      (void)device->memFree(st.workspace);
    for (void *p : st.spareWorkspaces)
      if (device)
        (void)device->memFree(p);
    for (const auto &w : st.streamWorkspaces)
      if (device)
        (void)device->memFree(w.data);
  }
}

static tessel_status finish(const Status &s) {
  if (s)
    return setLastError(s);
  clearLastError();
  return TESSEL_SUCCESS;
}

extern "C" {

const char *tessel_status_string(tessel_status s) {
  switch (s) {
  case TESSEL_SUCCESS:
    return "success";
  case TESSEL_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TESSEL_ERROR_UNSUPPORTED:
    return "unsupported";
  case TESSEL_ERROR_NO_DEVICE:
    return "no device";
  case TESSEL_ERROR_BUNDLE:
    return "bad bundle";
  case TESSEL_ERROR_TABLE:
    return "bad tuned table";
  case TESSEL_ERROR_NO_KERNEL:
    return "no kernel";
  case TESSEL_ERROR_LAUNCH:
    return "launch failed";
  case TESSEL_ERROR_DEVICE:
    return "device error";
  case TESSEL_ERROR_IO:
    return "i/o error";
  case TESSEL_ERROR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

size_t tessel_dtype_size(tessel_dtype t) {
  switch (t) {
  case TESSEL_DTYPE_F32:
  case TESSEL_DTYPE_I32:
    return 4;
  case TESSEL_DTYPE_BF16:
  case TESSEL_DTYPE_F16:
    return 2;
  case TESSEL_DTYPE_U8:
  case TESSEL_DTYPE_FP8_E4M3FN:
  case TESSEL_DTYPE_FP8_E4M3FNUZ:
    return 1;
  case TESSEL_DTYPE_I64:
    return 8;
  default:
    return 0;
  }
}

tessel_status tessel_config_set(const char *name, const char *value) {
  return guardApi("tessel_config_set", [&]() -> tessel_status {
    if (!name || !value)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_config_set: name or value is null");
    if (Status s = setKnob(name, value))
      return setLastError(s);
    clearLastError();
    return TESSEL_SUCCESS;
  });
}

tessel_status tessel_context_create(const char *device, int ordinal,
                                    tessel_context **out) {
  return guardApi("tessel_context_create", [&]() -> tessel_status {
    if (!out)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_context_create: out is null");
    *out = nullptr;
    auto ctx = std::make_unique<tessel_context>();
    ctx->config = currentConfig();
    for (const OpSpec *op : opRegistry())
      if (!op->defect.empty())
        return setLastError(TESSEL_ERROR_INTERNAL, "op registry: %s",
                            op->defect.c_str());
    ctx->ops.resize(opRegistry().size());
    std::string kind = device ? device : ctx->config.device;
    if (Status s = acquireDevice(kind, ordinal, ctx->config, &ctx->device))
      return setLastError(s);
    if (Status s = loadTables(ctx.get()))
      return setLastError(s);
    {
      std::unique_lock<std::shared_mutex> lock(ctx->mu);
      rebuildDispatch(ctx.get());
    }
    // TESSEL_BUNDLE replaces the built-in bundle rather than adding to it, so
    // that a rebuilt bundle with the same variant names can be tried.
    if (!ctx->config.bundle.empty()) {
      if (Status s = loadBundle(ctx.get(), ctx->config.bundle))
        return setLastError(s.prefix("TESSEL_BUNDLE: "));
    } else if (Status s = loadEmbeddedBundle(ctx.get())) {
      return setLastError(s);
    }
    *out = ctx.release();
    clearLastError();
    return TESSEL_SUCCESS;
  });
}

void tessel_context_destroy(tessel_context *ctx) { delete ctx; }

tessel_status tessel_context_load_bundle(tessel_context *ctx,
                                         const char *path) {
  return guardApi("tessel_context_load_bundle", [&]() -> tessel_status {
    if (!ctx || !path)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_context_load_bundle: ctx or path is null");
    if (Status s = loadBundle(ctx, path))
      return setLastError(s);
    clearLastError();
    return TESSEL_SUCCESS;
  });
}

tessel_status tessel_context_compile_variant(tessel_context *ctx,
                                             const char *source_path,
                                             const char *const *knob_names,
                                             const int64_t *knob_values,
                                             size_t num_knobs) {
  return guardApi("tessel_context_compile_variant", [&]() -> tessel_status {
    if (!ctx || !source_path || (num_knobs && (!knob_names || !knob_values)))
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_context_compile_variant: null argument");
    KnobList knobs;
    for (size_t i = 0; i < num_knobs; ++i) {
      if (!knob_names[i])
        return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                            "tessel_context_compile_variant: knob name %zu is "
                            "null",
                            i);
      knobs.emplace_back(knob_names[i], knob_values[i]);
    }
    Device *dev = ctx->device;
    const CodeTarget *best = preferredCodeTarget(dev->arch());
    if (!best)
      return setLastError(TESSEL_ERROR_NO_KERNEL,
                          "no code-object target runs on this %s device (%s)",
                          dev->kind(), dev->arch().c_str());
    std::string target = dev->codeFormat() == CodeFormat::Simt
                             ? "emu-" + dev->arch()
                             : std::string(best->name);
    JitCache cache(ctx->config.cacheDir, ctx->config.jitLibrary);
    auto b = std::make_unique<Bundle>();
    b->entries.emplace_back();
    bool hit = false;
    if (Status s =
            cache.getOrCompile(source_path, target, knobs, b->entries[0], &hit))
      return setLastError(s);
    if (codeObjectRank(b->entries[0], dev->arch(), dev->codeFormat()) < 0)
      return setLastError(TESSEL_ERROR_NO_KERNEL,
                          "the JIT plugin returned code for %s (%s), not for "
                          "this %s device (%s)",
                          b->entries[0].target.c_str(),
                          codeFormatName(b->entries[0].format), dev->kind(),
                          dev->arch().c_str());
    {
      // Compiling the same variant again is a no-op.
      std::shared_lock<std::shared_mutex> lock(ctx->mu);
      for (const auto &v : ctx->variants)
        if (v->entry->name == b->entries[0].name &&
            v->entry->code == b->entries[0].code)
          return finish(Status::ok());
    }
    if (ctx->config.logTunedConfig)
      fprintf(stderr, "tessel: JIT %s for %s: %s\n", source_path,
              target.c_str(), hit ? "cache hit" : "compiled");
    return finish(addBundle(ctx, std::move(b), source_path));
  });
}

const char *tessel_context_device_kind(const tessel_context *ctx) {
  return ctx ? ctx->device->kind() : "";
}
const char *tessel_context_arch(const tessel_context *ctx) {
  return ctx ? ctx->device->arch().c_str() : "";
}
int tessel_context_cu_count(const tessel_context *ctx) {
  return ctx ? ctx->device->cuCount() : 0;
}

#define TESSEL_CHECK_CTX(fn)                                                   \
  if (!ctx)                                                                    \
    return setLastError(TESSEL_ERROR_INVALID_ARGUMENT, fn ": ctx is null");

tessel_status tessel_stream_create(tessel_context *ctx, tessel_stream *out) {
  return guardApi("tessel_stream_create", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_stream_create");
    if (!out)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_stream_create: out is null");
    void *s = nullptr;
    Status st = ctx->device->streamCreate(&s);
    *out = static_cast<tessel_stream>(s);
    return finish(st);
  });
}

tessel_status tessel_stream_destroy(tessel_context *ctx, tessel_stream s) {
  return guardApi("tessel_stream_destroy", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_stream_destroy");
    return finish(ctx->device->streamDestroy(s));
  });
}

tessel_status tessel_stream_synchronize(tessel_context *ctx, tessel_stream s) {
  return guardApi("tessel_stream_synchronize", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_stream_synchronize");
    return finish(ctx->device->streamSynchronize(s));
  });
}

tessel_status tessel_malloc(tessel_context *ctx, size_t bytes, void **out) {
  return guardApi("tessel_malloc", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_malloc");
    if (!out)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_malloc: out is null");
    return finish(ctx->device->memAlloc(bytes, out));
  });
}

tessel_status tessel_free(tessel_context *ctx, void *p) {
  return guardApi("tessel_free", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_free");
    if (!p)
      return finish(Status::ok());
    return finish(ctx->device->memFree(p));
  });
}

tessel_status tessel_memcpy(tessel_context *ctx, void *dst, const void *src,
                            size_t bytes, int kind) {
  return guardApi("tessel_memcpy", [&]() -> tessel_status {
    TESSEL_CHECK_CTX("tessel_memcpy");
    if (kind < 0 || kind > 2)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_memcpy: kind must be 0, 1 or 2, got %d",
                          kind);
    if (bytes && (!dst || !src))
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_memcpy: dst or src is null");
    return finish(ctx->device->memcpy(dst, src, bytes, kind));
  });
}

} // extern "C"
