/*===- jit_plugin.h - C ABI between the runtime and the JIT compiler ------===*
 *
 * The compiler links MLIR, so it is not part of the runtime. When it is
 * installed as libtessel_jit.so (next to the runtime library, or named by
 * TESSEL_JIT_LIBRARY), the runtime dlopen()s it to compile a kernel variant
 * that no loaded bundle holds. Results go to an on-disk cache keyed by a
 * content hash of (compiler version, kernel source, target, knobs), stored as
 * one-entry bundles written to a temp file and renamed, so concurrent
 * processes never see a partial entry.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TESSEL_JIT_PLUGIN_H
#define TESSEL_JIT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_JIT_PLUGIN_ABI_VERSION 1

/* Returns TESSEL_JIT_PLUGIN_ABI_VERSION of the library. */
int tessel_jit_abi_version(void);

/* A string that changes whenever generated code may change (part of the
 * cache key). */
const char *tessel_jit_compiler_version(void);

/* Compiles the tile-dialect kernel in the file source_path for target
 * ("gfx942", "gfx950", "sm_90a", "sm_90", or "emu-gfx942"/"emu-gfx950" for
 * SIMT IR), with num_knobs knob values. The runtime asks for the device's
 * preferred target: sm_90a on an sm_90 device.
 * On success returns 0 and stores:
 *   *code, *code_len:     the code object (hsaco, PTX or SIMT IR text);
 *   *manifest:            a NUL-terminated JSON object describing it, with
 *                         the members of a bundle manifest entry (name,
 *                         kernel, target, format, knobs, args, block,
 *                         resources, source_hash; see tessel/bundle.h)
 *                         except "blob";
 * both allocated by the plugin and released with tessel_jit_free().
 * On failure returns non-zero and writes a NUL-terminated message (truncated
 * to err_len bytes) into err. Must be safe to call from several threads. */
int tessel_jit_compile(const char *source_path, const char *target,
                       const char *const *knob_names,
                       const int64_t *knob_values, size_t num_knobs,
                       void **code, size_t *code_len, char **manifest,
                       char *err, size_t err_len);

/* Frees memory returned by tessel_jit_compile. Null is allowed. */
void tessel_jit_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_JIT_PLUGIN_H */
