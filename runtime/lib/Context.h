//===- Context.h - Contexts, variants and the dispatcher --------*- C++ -*-===//
#ifndef TESSEL_RUNTIME_CONTEXT_H
#define TESSEL_RUNTIME_CONTEXT_H

#include "Config.h"
#include "Device.h"
#include "TunedTable.h"
#include "ops/OpRegistry.h"
#include "tessel/bundle.h"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace tessel {

/// One loaded code object: the manifest entry and its function on the device
/// (fn is null in tests that exercise dispatch without a device).
struct Variant {
  const BundleEntry *entry = nullptr;
  void *fn = nullptr;
  /// The most programs of it the device holds at once
  /// (Device::maxResidentPrograms), read once when it is loaded: the bound
  /// on the grid of a kernel with grid barriers. 0 where the device cannot
  /// say.
  int64_t residentPrograms = 0;
  /// A knob's value, or dflt. Compares in place: no std::string is built
  /// (hooks call this on the launch path).
  int64_t knob(const char *name, int64_t dflt) const {
    for (const auto &k : entry->knobs)
      if (k.first == name)
        return k.second;
    return dflt;
  }
};

/// The dispatcher state of one op in one context.
struct OpState {
  TunedTable table;
  OpDispatch dispatch;
  /// The op's device buffer (OpSpec::workspaceBytes) for the default (null)
  /// stream, allocated when a bundle brings its first variant, never on the
  /// launch path.
  void *workspace = nullptr;
  uint64_t workspaceBytes = 0;
  /// One buffer of workspaceBytes per other stream, so that launches on two
  /// streams never share one: taken by the first launch on that stream that
  /// needs it (under tessel_context::workspaceMu) from the spares, else
  /// allocated, then reused.
  struct StreamWorkspace {
    void *stream;
    void *data;
  };
  std::vector<StreamWorkspace> streamWorkspaces;
  /// Buffers allocated with the default stream's for the first
  /// kSpareStreamWorkspaces other streams, so that their first launch
  /// allocates nothing: it may be inside a CUDA-graph capture (torch
  /// captures on a stream of its own), where allocating fails.
  std::vector<void *> spareWorkspaces;
};

/// Spare workspaces per op (OpState::spareWorkspaces).
constexpr int kSpareStreamWorkspaces = 3;

} // namespace tessel

/// The context behind the opaque C handle.
struct tessel_context {
  tessel::Device *device = nullptr;
  tessel::Config config;
  std::shared_mutex mu; // exclusive for bundle loads, shared for launches
  std::vector<std::unique_ptr<tessel::Bundle>> bundles;
  std::vector<std::unique_ptr<tessel::Variant>> variants;
  std::vector<tessel::OpState> ops; // one per opRegistry() entry
  std::mutex workspaceMu;           // guards OpState::streamWorkspaces
  std::vector<std::string> warnings;
  ~tessel_context();
};

namespace tessel {
/// Rebuilds every op's dispatcher from the loaded variants (holding mu).
void rebuildDispatch(tessel_context *ctx);
} // namespace tessel

#endif
