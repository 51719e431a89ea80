//===- bundle.h - The Tessel bundle file format -----------------*- C++ -*-===//
//
// A bundle is one file holding compiled code objects and a manifest that
// describes them. It is written by `tessel-bundle` (and the library builder)
// and read by the runtime. Everything here is LLVM-free.
//
// ## Layout (all integers little-endian)
//
//   offset size  field
//   0      8     magic "TSLBNDL\0"
//   8      4     u32 version            (TESSEL_BUNDLE_VERSION = 1)
//   12     4     u32 header_size        (64)
//   16     8     u64 file_size          (whole file, bytes)
//   24     4     u32 num_blobs
//   28     4     u32 flags              (0)
//   32     8     u64 manifest_offset
//   40     8     u64 manifest_size
//   48     8     u64 manifest_checksum  FNV-1a-64 of the manifest bytes
//   56     8     u64 header_checksum    FNV-1a-64 of bytes [0,56) followed by
//                                       the blob table
//   64     24*n  blob table: per blob {u64 offset, u64 size, u64 checksum},
//                checksum = FNV-1a-64 of the blob bytes
//   ...          manifest (UTF-8 JSON), then the blobs, each 16-byte aligned.
//
// Every region must lie inside the file, the regions must not overlap, and
// all checksums must match; the reader rejects anything else.
//
// ## Manifest (JSON)
//
//   {"tessel_bundle": 1,
//    "compiler_version": "tessel 0.1.0",
//    "code_objects": [
//      {"name": "indexer_k_cache_write.bf16.t4.gfx942",   unique in the file
//       "kernel": "indexer_k_cache_write",                 symbol to launch
//       "target": "gfx942",        gfx942 | gfx950 | sm_90a | sm_90 |
//                                  emu-gfx942 | emu-gfx950 (emu-X = target
//                                  X, format simt)
//       "format": "hsaco",         hsaco | ptx | simt (optional: hsaco for
//                                  gfx*, ptx for sm_90*, simt for emu-*)
//       "blob": 0,                 index into the blob table
//       "knobs": {"k_bf16": 1, "tokens_per_program": 4},  integer values
//       "args": [{"name": "k.allocated", "kind": "ptr", "size": 8}, ...],
//                                  the flattened launch parameters, in order;
//                                  kind ptr(8) | i32(4) | i64(8) | f32(4)
//       "block": [256, 1, 1],      workgroup size; product in [1, 1024]
//       "resources": "{...}",      opaque string (e.g. VGPR/SGPR/LDS JSON)
//       "source_hash": "..."}]}    hash of the kernel source
//
// Consistency rules the reader enforces: each blob is used by exactly one code
// object; hsaco only for gfx*, ptx only for sm_90*, simt only for gfx942/gfx950
// (emulator); an hsaco blob starts with the ELF magic; ptx and simt blobs are
// text without NUL bytes; names and kernels are identifiers.
//
// The description that `tessel-bundle` packs is the same JSON, with
// "file": "<path>" (relative to the description's folder) instead of "blob".
// A description may also give "signature": ["memref k", "i32 num_tokens",
// ...] instead of "args" ("memref NAME" expands to the five parameters of
// lowering/SIMT_IR.md; other kinds are ptr, i32, i64, f32), and "resources"
// as a JSON object (stored as its text).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_BUNDLE_H
#define TESSEL_BUNDLE_H

#include "tessel/tessel.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessel {

constexpr uint32_t kBundleVersion = 1;
constexpr size_t kBundleHeaderSize = 64;

enum class ArgKind { Ptr, I32, I64, F32 };
enum class CodeFormat { Hsaco, Ptx, Simt };

TESSEL_API const char *argKindName(ArgKind k);
TESSEL_API const char *codeFormatName(CodeFormat f);

/// A target a code object may be compiled for.
struct CodeTarget {
  const char *name;       // "sm_90a"
  CodeFormat format;      // its machine-code format (hsaco, ptx)
  const char *deviceArch; // the device architecture that runs it ("sm_90")
  /// Preference among the targets one device runs: higher wins. sm_90a
  /// (wgmma) outranks the portable sm_90 on an sm_90 device.
  int rank;
  /// The fp8 format its kernels read and write (e4m3fnuz on gfx942).
  tessel_dtype fp8;
};

/// The target called `name`, or null when Tessel has none of that name.
TESSEL_API const CodeTarget *findCodeTarget(const std::string &name);
/// The rank of code object `e` on a device of architecture `deviceArch`
/// that executes `deviceFormat` (simt for the emulator); -1 when it cannot
/// run there.
struct BundleEntry;
TESSEL_API int codeObjectRank(const BundleEntry &e,
                              const std::string &deviceArch,
                              CodeFormat deviceFormat);
/// The preferred target to compile for a device of `deviceArch`; null when
/// none runs there.
TESSEL_API const CodeTarget *preferredCodeTarget(const std::string &deviceArch);

struct BundleArg {
  std::string name;
  ArgKind kind = ArgKind::I32;
  uint32_t size = 4;
};

struct BundleEntry {
  std::string name;
  std::string kernel;
  std::string target; // gfx942 | gfx950 | sm_90a | sm_90
  CodeFormat format = CodeFormat::Hsaco;
  std::vector<std::pair<std::string, int64_t>> knobs;
  std::vector<BundleArg> args;
  uint32_t block[3] = {1, 1, 1};
  std::string resources;
  std::string sourceHash;
  std::string code; // the code object bytes

  /// Looks up a knob; false if absent.
  TESSEL_API bool knob(const std::string &name, int64_t &value) const;
};

struct Bundle {
  std::string compilerVersion;
  std::vector<BundleEntry> entries;
};

/// Parses and fully verifies bundle bytes. Never reads out of bounds; on any
/// problem returns false with a message naming it.
TESSEL_API bool parseBundle(const void *data, size_t size, Bundle &out,
                            std::string &error);
/// Reads and verifies a bundle file (the message names the file).
TESSEL_API bool readBundleFile(const std::string &path, Bundle &out,
                               std::string &error);
/// Verifies a bundle (the same manifest rules the reader applies) and
/// serializes it. False with a message when it is inconsistent.
TESSEL_API bool serializeBundle(const Bundle &b, std::string &out,
                                std::string &error);
/// The manifest JSON of a bundle (blob indices in entry order).
TESSEL_API std::string bundleManifestJson(const Bundle &b);
/// Builds a bundle from a description (manifest JSON with "file" paths
/// relative to baseDir instead of "blob" indices).
TESSEL_API bool bundleFromDescription(const std::string &json,
                                      const std::string &baseDir, Bundle &out,
                                      std::string &error);

/// The integer resource counts of an entry's code object (its first kernel
/// in "resources": vgpr_count, sgpr_count, agpr_count, lds_bytes,
/// scratch_bytes, sgpr_spill_count, vgpr_spill_count, ...), in the order the
/// compiler recorded them. Formats that record none (SIMT IR) give an empty
/// list. False with a message when the resources are not valid JSON of that
/// shape.
TESSEL_API bool
resourceCounts(const BundleEntry &e,
               std::vector<std::pair<std::string, int64_t>> &out,
               std::string &error);

/// Builds one entry from a manifest entry's JSON (without "blob") and its
/// code, applying the reader's checks.
TESSEL_API bool bundleEntryFromManifest(const std::string &entryJson,
                                        std::string code, BundleEntry &out,
                                        std::string &error);

} // namespace tessel

#endif
