//===- compute_unit.h - The resources of an AMD compute unit ----*- C++ -*-===//
//
// What one compute unit of each AMD target Tessel compiles for holds at
// once: the facts that bound occupancy, shared by the compiler's target
// description and the runtime's occupancy model (which links no LLVM).
// Values are those of LLVM's AMDGPU subtarget description for the chips
// (getEUsPerCU, getMaxWavesPerEU, getTotalNumVGPRs, getVGPRAllocGranule,
// getAddressableLocalMemorySize, getLdsDwGranularity).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_COMPUTE_UNIT_H
#define TESSEL_COMPUTE_UNIT_H

#include <cstring>

namespace tessel {

struct AmdComputeUnit {
  const char *arch;
  /// SIMDs (execution units) per CU; a workgroup's waves spread over them.
  unsigned simds;
  unsigned maxWavesPerSimd;
  unsigned waveSize;
  /// 32-bit registers per lane of one SIMD, shared by the resident waves:
  /// arch VGPRs and AGPRs come from one file on CDNA3/4.
  unsigned registersPerLane;
  /// A wave's registers are allocated in blocks of this many.
  unsigned registerGranule;
  /// A wave's AGPRs start at a multiple of this many registers.
  unsigned agprAlign;
  /// LDS per CU; one workgroup may use all of it.
  unsigned ldsBytes;
  /// A workgroup's LDS is allocated in blocks of this many bytes.
  unsigned ldsGranule;
};

inline constexpr AmdComputeUnit kAmdComputeUnits[] = {
    {"gfx942", 4, 8, 64, 512, 8, 4, 64 * 1024, 512},
    {"gfx950", 4, 8, 64, 512, 8, 4, 160 * 1024, 1280},
};

/// The compute unit of AMD target `arch`, or null.
inline const AmdComputeUnit *findAmdComputeUnit(const char *arch) {
  for (const AmdComputeUnit &cu : kAmdComputeUnits)
    if (std::strcmp(cu.arch, arch) == 0)
      return &cu;
  return nullptr;
}

} // namespace tessel

#endif // TESSEL_COMPUTE_UNIT_H
