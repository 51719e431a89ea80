//===- TestUtil.h - Shared helpers of the runtime unit tests --------------===//
#ifndef TESSEL_TEST_RUNTIME_TESTUTIL_H
#define TESSEL_TEST_RUNTIME_TESTUTIL_H

#include "tessel/bundle.h"
#include "tessel/tessel.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tessel_test {

/// The launch ABI of indexer_k_cache_write, spelled out independently of the
/// runtime's own table.
inline std::vector<tessel::BundleArg> indexerArgs() {
  std::vector<tessel::BundleArg> a;
  for (const char *m : {"k", "slot_mapping", "cache"})
    for (const char *f : {"allocated", "aligned", "offset", "size", "stride"}) {
      bool ptr = std::string(f) == "allocated" || std::string(f) == "aligned";
      a.push_back({std::string(m) + "." + f,
                   ptr ? tessel::ArgKind::Ptr : tessel::ArgKind::I64, 8});
    }
  a.push_back({"num_tokens", tessel::ArgKind::I32, 4});
  a.push_back({"k_row_stride", tessel::ArgKind::I64, 8});
  a.push_back({"block_size", tessel::ArgKind::I32, 4});
  a.push_back({"num_slots", tessel::ArgKind::I64, 8});
  return a;
}

/// An emu (SIMT) variant for the fake emulator.
inline tessel::BundleEntry fakeIndexerEntry(const std::string &arch, int bf16,
                                            int tpp, int numWaves = 1,
                                            int preshuffle = 0, int ue8m0 = 0) {
  tessel::BundleEntry e;
  e.name = "indexer_k_cache_write." + std::string(bf16 ? "bf16" : "f32") +
           ".t" + std::to_string(tpp) + ".w" + std::to_string(numWaves) + "." +
           arch;
  if (preshuffle || ue8m0)
    e.name += ".p" + std::to_string(preshuffle) + ".u" + std::to_string(ue8m0);
  e.kernel = "indexer_k_cache_write";
  e.target = arch;
  e.format = tessel::CodeFormat::Simt;
  e.knobs = {{"k_bf16", bf16},
             {"tokens_per_program", tpp},
             {"num_waves", numWaves},
             {"waves_per_eu", 0}};
  if (preshuffle || ue8m0) {
    e.knobs.push_back({"preshuffle", preshuffle});
    e.knobs.push_back({"scale_ue8m0", ue8m0});
  }
  e.args = indexerArgs();
  e.block[0] = 64 * numWaves;
  e.resources = "{\"vgpr\":32}";
  e.sourceHash = "0123abcd";
  e.code = "FAKE-SIMT kernel=indexer_k_cache_write fp8=" +
           std::string(arch == "gfx942" ? "e4m3fnuz" : "e4m3fn") +
           " tpp=" + std::to_string(tpp);
  if (preshuffle || ue8m0)
    e.code += " preshuffle=" + std::to_string(preshuffle) +
              " ue8m0=" + std::to_string(ue8m0);
  return e;
}

inline tessel::Bundle fakeIndexerBundle() {
  tessel::Bundle b;
  b.compilerVersion = "tessel-test 0";
  for (const char *arch : {"gfx942", "gfx950"})
    for (int bf16 = 0; bf16 < 2; ++bf16)
      for (int tpp : {1, 4})
        b.entries.push_back(fakeIndexerEntry(arch, bf16, tpp));
  return b;
}

/// A fresh temp path (the file is created empty).
inline std::string tempPath(const char *stem) {
  std::string p = std::string("/tmp/") + stem + "-XXXXXX";
  int fd = mkstemp(&p[0]);
  if (fd >= 0)
    close(fd);
  return p;
}

inline bool writeBytes(const std::string &path, const std::string &bytes) {
  FILE *f = fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return fclose(f) == 0 && ok;
}

inline std::string writeBundle(const tessel::Bundle &b) {
  std::string bytes, err;
  if (!tessel::serializeBundle(b, bytes, err))
    return "";
  std::string p = tempPath("tessel-test-bundle");
  return writeBytes(p, bytes) ? p : "";
}

inline tessel_tensor makeTensor(void *data, tessel_dtype dt,
                                std::initializer_list<int64_t> shape,
                                std::initializer_list<int64_t> strides) {
  tessel_tensor t{};
  t.data = data;
  t.dtype = dt;
  t.rank = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t s : shape)
    t.shape[i++] = s;
  i = 0;
  for (int64_t s : strides)
    t.strides[i++] = s;
  return t;
}

} // namespace tessel_test

#endif
