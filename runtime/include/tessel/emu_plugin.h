/*===- emu_plugin.h - C ABI between the runtime and the SIMT emulator -----===*
 *
 * The runtime core links no LLVM/MLIR. The SIMT emulator (which parses SIMT IR
 * with MLIR) is a separate shared library, libtessel_emu.so, that the runtime
 * dlopen()s when the `emu` device is used. This header is the whole contract
 * between the two.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TESSEL_EMU_PLUGIN_H
#define TESSEL_EMU_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_EMU_PLUGIN_ABI_VERSION 1

/* Workgroups the emulator holds resident at once (interleaved round robin).
 * A kernel with a grid barrier (tessel.grid_barrier) runs only on grids of
 * at most this many workgroups; larger launches fail with an error. */
#define TESSEL_EMU_MAX_RESIDENT_WORKGROUPS 64

typedef struct tessel_emu_module tessel_emu_module;

/* Returns TESSEL_EMU_PLUGIN_ABI_VERSION of the library. */
int tessel_emu_abi_version(void);

/* Parses and verifies SIMT IR text (lowering/SIMT_IR.md): a builtin.module
 * holding gpu.modules. On success stores a module in *out and returns 0. On
 * failure returns non-zero and writes a NUL-terminated message (truncated to
 * err_len bytes) into err. */
int tessel_emu_module_load(const char *simt_ir, size_t len,
                           tessel_emu_module **out, char *err, size_t err_len);

/* Frees a module. Null is allowed. */
void tessel_emu_module_unload(tessel_emu_module *m);

/* Runs the gpu.func kernel `kernel` over grid x block workgroups/threads.
 * params[i] points at the value of flattened launch parameter i, exactly as
 * for cuLaunchKernel (each memref argument is five parameters: allocated ptr,
 * aligned ptr, i64 offset, i64 size, i64 stride; see lowering/SIMT_IR.md).
 * num_params must equal the kernel's flattened parameter count. Pointers are
 * host addresses; each memref's size bounds its accesses. Returns 0 on
 * success. Returns non-zero with a message naming the op and its source
 * location on any emulated fault: out-of-bounds global or LDS access, read of
 * never-written LDS, unsupported op, bad launch shape, or a launch stopped by
 * the watchdog after TESSEL_EMU_TIMEOUT_S seconds (default 30; see
 * runtime/emulator/README.md). Concurrent launches
 * from several threads, on one module or several, are safe. */
int tessel_emu_launch(tessel_emu_module *m, const char *kernel,
                      const uint32_t grid[3], const uint32_t block[3],
                      void **params, size_t num_params, char *err,
                      size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_EMU_PLUGIN_H */
