/*===- tessel.h - Tessel runtime C API -------------------------------------===*
 *
 * The public C API of the Tessel runtime (libtessel_runtime.so). It links no
 * LLVM/MLIR and no GPU runtime: the device (emu, cuda, hip) is picked at run
 * time and its runtime library is dlopen()ed.
 *
 * Conventions:
 *  - Every function returns a tessel_status. On failure the calling thread's
 *    last-error message (tessel_last_error()) names the problem, e.g. the
 *    argument and the check that failed. Bad input never crashes, and no
 *    C++ exception escapes (an allocation failure is TESSEL_ERROR_INTERNAL).
 *  - Files (bundles, tuned tables) must be regular files; anything else
 *    (a FIFO, /dev/zero) is an error, never a hang.
 *  - Tensors are described by tessel_tensor: a device pointer, a dtype, a rank,
 *    a shape and strides counted in elements (not bytes).
 *  - Op entry points allocate nothing and never synchronize the host with the
 *    device, so they are safe inside CUDA/HIP graph capture. Everything a
 *launch needs (bundle, modules, functions, tuned table) is prepared by
 *    tessel_context_create() / tessel_context_load_bundle().
 *  - A context may be used from several threads at once.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TESSEL_TESSEL_H
#define TESSEL_TESSEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TESSEL_API __attribute__((visibility("default")))
#else
#define TESSEL_API
#endif

#define TESSEL_MAX_RANK 8

typedef enum tessel_status {
  TESSEL_SUCCESS = 0,
  TESSEL_ERROR_INVALID_ARGUMENT = 1, /* bad tensor, null pointer, bad value */
  TESSEL_ERROR_UNSUPPORTED = 2,      /* valid but not supported (dtype, arch) */
  TESSEL_ERROR_NO_DEVICE = 3,        /* backend runtime missing / no device */
  TESSEL_ERROR_BUNDLE = 4,           /* corrupt or mismatched bundle */
  TESSEL_ERROR_TABLE = 5,            /* malformed tuned table */
  TESSEL_ERROR_NO_KERNEL = 6,        /* no code object for this call */
  TESSEL_ERROR_LAUNCH = 7,           /* the device refused the launch */
  TESSEL_ERROR_DEVICE = 8,           /* other device runtime failure */
  TESSEL_ERROR_IO = 9,               /* file could not be read/written */
  TESSEL_ERROR_INTERNAL = 10
} tessel_status;

typedef enum tessel_dtype {
  TESSEL_DTYPE_INVALID = 0,
  TESSEL_DTYPE_F32 = 1,
  TESSEL_DTYPE_BF16 = 2,
  TESSEL_DTYPE_F16 = 3,
  TESSEL_DTYPE_U8 = 4,
  TESSEL_DTYPE_I32 = 5,
  TESSEL_DTYPE_I64 = 6,
  TESSEL_DTYPE_FP8_E4M3FN = 7,
  TESSEL_DTYPE_FP8_E4M3FNUZ = 8
} tessel_dtype;

/* A strided tensor. shape[i] and strides[i] for i < rank; strides are in
 * elements and must be >= 0. The stride of a dimension of size 1, and every
 * stride of a tensor with no elements, is ignored. */
typedef struct tessel_tensor {
  void *data;
  tessel_dtype dtype;
  int32_t rank;
  int64_t shape[TESSEL_MAX_RANK];
  int64_t strides[TESSEL_MAX_RANK];
} tessel_tensor;

typedef struct tessel_context tessel_context;
/* A device stream/queue. For cuda it is a CUstream, for hip a hipStream_t,
 * cast to this pointer type; NULL is the device's default stream. The emu
 * device runs every launch synchronously and ignores the stream. */
typedef struct tessel_stream_opaque *tessel_stream;

/* The calling thread's message for the last failed call ("" if none). Valid
 * until the next Tessel call on this thread. */
TESSEL_API const char *tessel_last_error(void);
TESSEL_API const char *tessel_status_string(tessel_status s);
TESSEL_API size_t tessel_dtype_size(tessel_dtype t);

/* Overrides a runtime knob (the same names as the environment variables, e.g.
 * "TESSEL_TUNED_DIR"), for this process. Contexts created afterwards see it. */
TESSEL_API tessel_status tessel_config_set(const char *name, const char *value);

/* Creates a context on a device.
 * device: "emu", "emu:gfx942", "emu:gfx950", "cuda", "hip", "auto", or NULL
 * for the TESSEL_DEVICE knob (default "auto": cuda if it initializes with at
 * least one device, else hip, else emu). ordinal: the device index, from 0 to
 * the device count - 1; the emu device has ordinal 0 only.
 * The bundle named by TESSEL_BUNDLE is loaded if set, else the bundle built
 * into the library (CMake TESSEL_EMBED_BUNDLE) if any; so is the tuned table
 * directory (TESSEL_TUNED_DIR, default: the tables built into the library). */
TESSEL_API tessel_status tessel_context_create(const char *device, int ordinal,
                                               tessel_context **out);
TESSEL_API void tessel_context_destroy(tessel_context *ctx);

/* Loads a bundle file into the context, verifying it fully, and loads the
 * code objects of the context's target on its device. Later bundles add
 * variants; a variant name seen before is an error. */
TESSEL_API tessel_status tessel_context_load_bundle(tessel_context *ctx,
                                                    const char *path);

/* Just-in-time compiles the tile-dialect kernel in source_path for the
 * context's target with the given knob values (or finds it in the on-disk
 * cache, TESSEL_CACHE_DIR) and adds it as a variant, as if from a bundle.
 * Needs the compiler plugin libtessel_jit.so (tessel/jit_plugin.h) next to
 * the runtime library or named by TESSEL_JIT_LIBRARY; without it, returns
 * TESSEL_ERROR_NO_KERNEL. Not for the launch path (it compiles and loads). */
TESSEL_API tessel_status tessel_context_compile_variant(
    tessel_context *ctx, const char *source_path, const char *const *knob_names,
    const int64_t *knob_values, size_t num_knobs);

/* The device kind ("emu", "cuda", "hip") and the device arch ("gfx942",
 * "gfx950", "sm_90", ...) of the context. An sm_90 device runs code objects
 * for sm_90a and sm_90 and prefers sm_90a. */
TESSEL_API const char *tessel_context_device_kind(const tessel_context *ctx);
TESSEL_API const char *tessel_context_arch(const tessel_context *ctx);
TESSEL_API int tessel_context_cu_count(const tessel_context *ctx);

/* Stream helpers for callers without their own device runtime. */
TESSEL_API tessel_status tessel_stream_create(tessel_context *ctx,
                                              tessel_stream *out);
TESSEL_API tessel_status tessel_stream_destroy(tessel_context *ctx,
                                               tessel_stream s);
TESSEL_API tessel_status tessel_stream_synchronize(tessel_context *ctx,
                                                   tessel_stream s);

/* Device memory helpers (host memory on emu). On emu, a size whose rounding
 * overflows is an error, freeing a pointer that is not a live buffer is an
 * error, and every op checks each tensor's extent against the emu buffer its
 * pointer lies in. */
TESSEL_API tessel_status tessel_malloc(tessel_context *ctx, size_t bytes,
                                       void **out);
TESSEL_API tessel_status tessel_free(tessel_context *ctx, void *p);
/* kind: 0 host->device, 1 device->host, 2 device->device. Synchronous. */
TESSEL_API tessel_status tessel_memcpy(tessel_context *ctx, void *dst,
                                       const void *src, size_t bytes, int kind);

/* Quantizes k to fp8 and writes it with its per-token scale into the paged
 * indexer K cache (DESIGN.md 3.4).
 *  k            [T, 128] bf16 or f32; row stride >= 128 and a multiple of 8
 *               elements, unit inner stride; 16-byte aligned base.
 *  slot_mapping [T] int64, unit stride (slot = block*block_size + offset;
 *               negative slots are skipped). On the emu device every slot
 *               must be < num_blocks*block_size; on GPUs slots past the
 *               cache are skipped by the kernel.
 *  kv_cache     [num_blocks, block_size, 1, 132] uint8, contiguous; per block
 *               block_size*128 fp8 values then block_size f32 scales.
 * For token t: scale = max(amax_t, 1e-4) / fp8_max, with fp8_max = 448 for
 * e4m3fn and 224 for e4m3fnuz (the target's format: e4m3fnuz on gfx942,
 * e4m3fn otherwise); with scale_fmt = TESSEL_SCALE_FMT_UE8M0 the scale is
 * rounded up to 2^ceil(log2(scale)). Values are fp8(k / scale), rounded to
 * nearest even and saturated. */
typedef enum tessel_scale_fmt {
  TESSEL_SCALE_FMT_F32 = 0,  /* the f32 scale as computed */
  TESSEL_SCALE_FMT_UE8M0 = 1 /* rounded up to a power of two */
} tessel_scale_fmt;

typedef struct tessel_k_cache_write_options {
  /* 0: plain layout. 1: each block's value region is stored as
   * [block_size/16][128/16][16 tokens][16 bytes] (byte (o, d) of a block at
   * ((o/16)*8 + d/16)*256 + (o%16)*16 + d%16), scales unchanged; needs
   * block_size % 16 == 0. */
  int32_t preshuffle;
  int32_t scale_fmt; /* a tessel_scale_fmt */
} tessel_k_cache_write_options;

/* options may be NULL (plain layout, f32 scale). */
TESSEL_API tessel_status tessel_indexer_k_cache_write_opts(
    tessel_context *ctx, const tessel_tensor *k,
    const tessel_tensor *slot_mapping, const tessel_tensor *kv_cache,
    const tessel_k_cache_write_options *options, tessel_stream stream);
/* The same with the default options. */
TESSEL_API tessel_status tessel_indexer_k_cache_write(
    tessel_context *ctx, const tessel_tensor *k,
    const tessel_tensor *slot_mapping, const tessel_tensor *kv_cache,
    tessel_stream stream);

/* Fp8 paged MQA logits of the sparse-attention indexer (DESIGN.md 3.1).
 *  q            [B, next_n, H, 128] fp8 (the target's format: an fp8 dtype
 *               equal to it, or uint8 holding its bytes), contiguous, 16-byte
 *               aligned. H in {16, 32, 64, 128}, next_n in 1..8.
 *  kv_cache     [num_blocks, block_size, 1, 132] uint8, contiguous, 16-byte
 *               aligned; block_size in {1, 16, 32, 64, 128, 256}; with
 *               TESSEL_LOGITS_PRESHUFFLED the value regions are preshuffled
 *               (see tessel_k_cache_write_options), which needs
 *               block_size % 16 == 0.
 *  weights      [B*next_n, H] f32, contiguous.
 *  context_lens [B] or [B, next_n] int32, contiguous. Row r = b*next_n + j
 *               sees len_r = context_lens[b] - next_n + j + 1 tokens (1-D;
 *               negative counts as 0) or context_lens[b][j] (2-D). Every
 *               value must be in [0, max_model_len].
 *  block_tables [B, max_blocks_per_seq] int32, unit inner stride, any row
 *               stride >= max_blocks_per_seq; block_tables[b][i] is the
 *               physical block of tokens [i*block_size, (i+1)*block_size).
 *  max_model_len  the output's columns, >= 0.
 *  flags        TESSEL_LOGITS_* bits.
 *  out          [B*next_n, max_model_len] f32, unit inner stride, row stride
 *               >= max_model_len; offsets are 64-bit.
 * out[r][t] = kscale[t] * sum_h relu(q[r,h,:] . k[t,:]) * weights[r][h] for
 * t < len_r, and -inf for len_r <= t < max_model_len (unless
 * TESSEL_LOGITS_NO_TAIL, which leaves those columns untouched).
 * On the emu device the lengths and the block ids the rows reach (each must
 * be < num_blocks, and a row's blocks must fit max_blocks_per_seq) are
 * checked before the launch. On GPUs they live in device memory and are not
 * read (no host sync): the caller guarantees them; shapes, dtypes, strides
 * and alignment are checked everywhere. */
#define TESSEL_LOGITS_PRESHUFFLED 1u
#define TESSEL_LOGITS_NO_TAIL 2u
TESSEL_API tessel_status tessel_paged_mqa_logits(
    tessel_context *ctx, const tessel_tensor *q, const tessel_tensor *kv_cache,
    const tessel_tensor *weights, const tessel_tensor *context_lens,
    const tessel_tensor *block_tables, int64_t max_model_len, uint32_t flags,
    const tessel_tensor *out, tessel_stream stream);

/* The work schedule of the persistent logits variants (DESIGN.md 3.3).
 *  context_lens [B] or [B, next_n] int32, contiguous, B >= 1 (the logits
 *               rule: len_b is the longest row of batch b).
 *  split_tokens tokens per segment, >= 1.
 *  num_cus      units of work to balance, >= 1; 0: the device's CU count.
 *  schedule     [num_cus + 1, 2] int32, contiguous: schedule[i] = (b, s),
 *               unit i starts at segment s of batch b; the last pair is
 *               (B, 0). Each unit gets floor(S/num_cus) or ceil(S/num_cus)
 *               of the S = sum_b ceil(len_b / split_tokens) segments. */
TESSEL_API tessel_status tessel_paged_mqa_logits_metadata(
    tessel_context *ctx, const tessel_tensor *context_lens,
    int32_t split_tokens, int32_t num_cus, const tessel_tensor *schedule,
    tessel_stream stream);

/* Top-k per row of the indexer (DESIGN.md 3.2): one workgroup per row, or
 * for few long rows (R <= 64) several joined by grid barriers, as the tuned
 * table or the heuristic picks (runtime/README.md). The latter uses the
 * context's workspace for the stream, allocated (and zeroed) on the first
 * such launch on it: launch once on a stream before capturing it in a
 * graph; later launches and replays allocate and reset nothing.
 *  logits       [R, L] float32, inner stride 1, row stride >= L.
 *  context_lens [B] or [B, next_n] int32, contiguous, R = B * next_n; row
 *               r = b*next_n + j sees its first len_r columns (the
 *               paged_mqa_logits rule: 1-D lengths are causal inside the
 *               next_n group), each length in [0, L].
 *  next_n       1..8; with 2-D lengths it must equal their dim 1.
 *  k            512, 1024 or 2048.
 *  flags        TESSEL_TOPK_STABLE: ties at the k-th value go to the smaller
 *               column (every variant is stable; the flag states the
 *               requirement). TESSEL_TOPK_SORTED: each row in descending
 *               order of value, equal values by the smaller column (a
 *               sorted variant of the kernel).
 *  indices      [R, k] int32, contiguous: the columns of the k largest
 *               values among a row's first len_r (NaN ranks above +inf,
 *               -0.0 equals +0.0), in no particular order unless sorted; a
 *               row with len_r < k holds 0..len_r-1 (sorted: in that
 *               order) and then -1.
 * On the emu device the lengths are checked before the launch; on GPUs they
 * are in device memory and a length beyond [0, L] is clamped to it. */
#define TESSEL_TOPK_STABLE 1u
#define TESSEL_TOPK_SORTED 2u
TESSEL_API tessel_status tessel_topk_per_row(
    tessel_context *ctx, const tessel_tensor *logits,
    const tessel_tensor *context_lens, int32_t next_n, int32_t k,
    uint32_t flags, const tessel_tensor *indices, tessel_stream stream);

/* The op registry, for bindings (e.g. the Python module): a JSON document
 * {"ops": [{"name", "index", "tensors": [{"name", "dtypes", "shapes",
 * "written", "allocatable"}], "options": [{"name", "default", "min", "max",
 * "choices", "names"}]}]} describing every op's C arguments in order. */
TESSEL_API const char *tessel_op_registry_json(void);
/* The index of an op by name, or -1. */
TESSEL_API int tessel_op_find(const char *name);
/* Runs op `op` with its tensors and options in the registry's order (the
 * same checks as its typed entry point). */
TESSEL_API tessel_status tessel_op_launch(tessel_context *ctx, int op,
                                          const tessel_tensor *tensors,
                                          size_t num_tensors,
                                          const int64_t *options,
                                          size_t num_options,
                                          tessel_stream stream);
/* The dtype, shape and dense strides of tensor `index` (an allocatable
 * output) for the given inputs and options; that tensor's own entry in
 * `tensors` is ignored. ctx (may be NULL) resolves options that default to
 * the device (an option of 0 that means its CU count). */
TESSEL_API tessel_status tessel_op_output_shape(
    const tessel_context *ctx, int op, const tessel_tensor *tensors,
    size_t num_tensors, const int64_t *options, size_t num_options,
    size_t index, tessel_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_TESSEL_H */
