//===- Occupancy.h - Programs resident at once, from resources --*- C++ -*-===//
//
// How many programs (workgroups) of a kernel one AMD compute unit holds at
// once, from the resources its code object records (bundle manifest): the
// limit a persistent grid that synchronizes through tile.grid_barrier must
// stay under, since every program must be resident. The model is the
// hardware's: a workgroup's waves spread over the CU's SIMDs, each SIMD
// holds at most maxWavesPerSimd waves, and as many as its register file and
// the CU's LDS allow. CUDA devices ask the driver instead
// (Device::maxResidentPrograms).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_OCCUPANCY_H
#define TESSEL_RUNTIME_OCCUPANCY_H

#include "Support.h"
#include "tessel/bundle.h"
#include "tessel/compute_unit.h"

#include <cstdint>

namespace tessel {

/// What a kernel's code object uses per wave and per workgroup.
struct KernelResources {
  int64_t vgprs = 0, agprs = 0, sgprs = 0; // per lane / per wave
  int64_t ldsBytes = 0;                    // per workgroup
  int64_t threads = 0;                     // per workgroup
};

/// The resource that stops a CU from holding one more workgroup.
enum class OccupancyLimit { Waves, Registers, ScalarRegisters, Lds };
const char *occupancyLimitName(OccupancyLimit l);

struct Occupancy {
  int programsPerCU = 0;
  int wavesPerSimd = 0; // of this kernel's, on a full CU (rounded up)
  OccupancyLimit limit = OccupancyLimit::Waves;
};

/// Reads vgpr_count, agpr_count (0 if absent), sgpr_count and lds_bytes
/// (0 if absent) from e's resources and the workgroup size from its block.
/// Fails naming the entry when vgpr_count or sgpr_count is missing or a
/// count is negative.
Status kernelResourcesOf(const BundleEntry &e, KernelResources &out);

/// Programs of a kernel with resources `r` resident on one CU of `cu`.
/// A wave takes alignTo(alignTo(vgprs, agprAlign) + agprs, granule)
/// registers per lane; a SIMD holds registersPerLane / that many waves, at
/// most maxWavesPerSimd and what the scalar registers allow; a workgroup of
/// W waves takes W of the CU's simds x that wave slots; its LDS, rounded up
/// to ldsGranule, divides the CU's. Fails with a message when the
/// resources are out of range or no workgroup fits at all.
Status amdOccupancy(const AmdComputeUnit &cu, const KernelResources &r,
                    Occupancy &out);

} // namespace tessel

#endif // TESSEL_RUNTIME_OCCUPANCY_H
