//===- Plugin.cpp - C ABI of libtessel_emu.so (emu_plugin.h) --------------===//
#include "tessel/Emulator/Emulator.h"
#include "tessel/emu_plugin.h"

#include <cstring>
#include <string>

struct tessel_emu_module {
  std::unique_ptr<tessel::emu::Module> m;
};

namespace {
void writeErr(char *err, size_t len, const std::string &msg) {
  if (!err || len == 0)
    return;
  size_t n = std::min(len - 1, msg.size());
  std::memcpy(err, msg.data(), n);
  err[n] = '\0';
}
} // namespace

extern "C" {

int tessel_emu_abi_version(void) { return TESSEL_EMU_PLUGIN_ABI_VERSION; }

int tessel_emu_module_load(const char *simt_ir, size_t len,
                           tessel_emu_module **out, char *err, size_t err_len) {
  if (!simt_ir || !out) {
    writeErr(err, err_len, "tessel_emu_module_load: null argument");
    return 1;
  }
  *out = nullptr;
  auto m = tessel::emu::Module::parse(llvm::StringRef(simt_ir, len));
  if (!m) {
    writeErr(err, err_len, llvm::toString(m.takeError()));
    return 1;
  }
  *out = new tessel_emu_module{std::move(*m)};
  return 0;
}

void tessel_emu_module_unload(tessel_emu_module *m) { delete m; }

int tessel_emu_launch(tessel_emu_module *m, const char *kernel,
                      const uint32_t grid[3], const uint32_t block[3],
                      void **params, size_t num_params, char *err,
                      size_t err_len) {
  if (!m || !kernel || !grid || !block) {
    writeErr(err, err_len, "tessel_emu_launch: null argument");
    return 1;
  }
  llvm::Error e = m->m->launch(kernel, {grid[0], grid[1], grid[2]},
                               {block[0], block[1], block[2]},
                               llvm::ArrayRef<void *>(params, num_params));
  if (e) {
    writeErr(err, err_len, llvm::toString(std::move(e)));
    return 1;
  }
  return 0;
}

} // extern "C"
