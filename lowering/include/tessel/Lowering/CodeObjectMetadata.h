//===- CodeObjectMetadata.h - Resource usage read back from code objects -*- C++
//-*-===//
//
// Reads what a compiled code object says about its kernels, from the object
// itself: for an hsaco, the NT_AMDGPU_METADATA note (msgpack) of the ELF; for
// PTX, the text (.entry parameters, .reqntid, .shared declarations) and,
// optionally, `ptxas -v` for registers and spills. The result goes into the
// bundle manifest as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_CODEOBJECTMETADATA_H
#define TESSEL_LOWERING_CODEOBJECTMETADATA_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessel {

struct KernelArgMetadata {
  uint64_t offset = 0;
  uint64_t size = 0;
  /// hsaco: `.value_kind` (global_buffer, by_value, ...). PTX: the parameter
  /// type (u64, u32, f32, ...).
  std::string kind;
  /// hsaco: `.address_space` when present (global, ...).
  std::string addressSpace;
};

/// Resource usage of one kernel. Fields a format does not record are unset.
struct KernelMetadata {
  std::string name;
  /// hsaco: the kernel descriptor symbol (`k.kd`).
  std::string symbol;
  std::optional<uint64_t> vgprCount, sgprCount, agprCount;
  std::optional<uint64_t> vgprSpillCount, sgprSpillCount;
  /// LDS / shared memory bytes fixed at compile time.
  uint64_t groupSegmentBytes = 0;
  /// Scratch / local stack bytes per lane.
  std::optional<uint64_t> privateSegmentBytes;
  /// PTX via ptxas: 32-bit registers per thread, bytes of spill stores and
  /// loads.
  std::optional<uint64_t> registerCount, spillStoreBytes, spillLoadBytes;
  std::optional<uint64_t> wavefrontSize;
  std::optional<uint64_t> maxFlatWorkgroupSize;
  std::vector<uint64_t> reqdWorkgroupSize;
  std::optional<uint64_t> kernargSegmentSize;
  std::vector<KernelArgMetadata> args;
};

struct CodeObjectMetadata {
  /// "hsaco" or "ptx".
  std::string format;
  /// hsaco: `amdhsa.target` ("amdgcn-amd-amdhsa--gfx942"). PTX: ".target".
  std::string target;
  /// PTX: ".version" ("8.4").
  std::string ptxVersion;
  std::vector<KernelMetadata> kernels;
};

/// Reads the NT_AMDGPU_METADATA note of an hsaco ELF image.
llvm::Expected<CodeObjectMetadata> readHsacoMetadata(llvm::StringRef elf);

/// Reads PTX text. If `ptxasPath` is not empty, runs `ptxas -v` on it for
/// register and spill counts (a failing ptxas is an error).
llvm::Expected<CodeObjectMetadata>
readPtxMetadata(llvm::StringRef ptx, llvm::StringRef ptxasPath = "");

/// Finds ptxas (PATH, then /usr/local/cuda/bin); empty if there is none.
std::string findPtxas();

/// The metadata as JSON. Unset fields are omitted.
///   {"format": "hsaco"|"ptx", "target": ..., "ptx_version": ...,
///    "kernels": [{"name", "symbol", "vgpr_count", "sgpr_count", "agpr_count",
///                 "vgpr_spill_count", "sgpr_spill_count", "registers",
///                 "spill_store_bytes", "spill_load_bytes", "lds_bytes",
///                 "scratch_bytes", "wavefront_size",
///                 "max_flat_workgroup_size", "reqd_workgroup_size": [x, y, z],
///                 "kernarg_segment_size", "args": [{"offset", "size", "kind",
///                 "address_space"}]}]}
llvm::json::Value toJSON(const CodeObjectMetadata &metadata);

} // namespace tessel

#endif // TESSEL_LOWERING_CODEOBJECTMETADATA_H
