//===- Occupancy.cpp - Programs resident at once, from resources ----------===//

#include "Occupancy.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tessel {

namespace {

int64_t alignTo(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/// Waves per SIMD that `sgprs` scalar registers per wave allow on GFX8 and
/// GFX9 (LLVM's getOccupancyWithNumSGPRs): 800 per SIMD, in steps the
/// hardware allocates; CDNA3/4 cap the result at 8 waves anyway.
int wavesBySgprs(int64_t sgprs) {
  if (sgprs <= 80)
    return 10;
  if (sgprs <= 88)
    return 9;
  if (sgprs <= 100)
    return 8;
  return 7;
}

} // namespace

const char *occupancyLimitName(OccupancyLimit l) {
  switch (l) {
  case OccupancyLimit::Waves:
    return "waves";
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::ScalarRegisters:
    return "scalar registers";
  case OccupancyLimit::Lds:
    return "LDS";
  }
  return "?";
}

Status kernelResourcesOf(const BundleEntry &e, KernelResources &out) {
  std::vector<std::pair<std::string, int64_t>> counts;
  std::string err;
  if (!resourceCounts(e, counts, err))
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT, err);
  auto find = [&](const char *key, int64_t &v) {
    for (const auto &[k, n] : counts)
      if (k == key) {
        v = n;
        return true;
      }
    return false;
  };
  out = KernelResources();
  if (!find("vgpr_count", out.vgprs) || !find("sgpr_count", out.sgprs))
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                         format("%s: its resources record no vgpr_count and "
                                "sgpr_count, which occupancy needs",
                                e.name.c_str()));
  find("agpr_count", out.agprs);
  find("lds_bytes", out.ldsBytes);
  out.threads = (int64_t)e.block[0] * e.block[1] * e.block[2];
  if (out.vgprs < 0 || out.agprs < 0 || out.sgprs < 0 || out.ldsBytes < 0)
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                         format("%s: negative resource count", e.name.c_str()));
  return Status::ok();
}

Status amdOccupancy(const AmdComputeUnit &cu, const KernelResources &r,
                    Occupancy &out) {
  auto bad = [&](const std::string &msg) {
    return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                         format("occupancy on %s: %s", cu.arch, msg.c_str()));
  };
  if (r.threads < 1 || r.threads > 1024)
    return bad(format("a workgroup of %lld threads (1 to 1024)",
                      (long long)r.threads));
  if (r.vgprs < 0 || r.agprs < 0 || r.sgprs < 0 || r.ldsBytes < 0)
    return bad("negative resource count");
  int64_t regs =
      alignTo(alignTo(r.vgprs, cu.agprAlign) + r.agprs, cu.registerGranule);
  if (regs > cu.registersPerLane)
    return bad(format("%lld VGPRs + %lld AGPRs take %lld registers per "
                      "lane, more than the %u of a SIMD",
                      (long long)r.vgprs, (long long)r.agprs, (long long)regs,
                      cu.registersPerLane));
  if (r.ldsBytes > cu.ldsBytes)
    return bad(format("%lld bytes of LDS per workgroup, more than the %u of "
                      "a CU",
                      (long long)r.ldsBytes, cu.ldsBytes));

  // Waves per SIMD, and the resource that caps them.
  int waves = (int)cu.maxWavesPerSimd;
  OccupancyLimit limit = OccupancyLimit::Waves;
  if (regs > 0 && regs * waves > cu.registersPerLane) {
    waves = (int)(cu.registersPerLane / regs);
    limit = OccupancyLimit::Registers;
  }
  if (wavesBySgprs(r.sgprs) < waves) {
    waves = wavesBySgprs(r.sgprs);
    limit = OccupancyLimit::ScalarRegisters;
  }
  // A workgroup's waves take wave slots of the CU's SIMDs (LLVM's
  // getOccupancyWithWorkGroupSizes counts them per CU).
  int64_t wgWaves = (r.threads + cu.waveSize - 1) / cu.waveSize;
  int64_t slots = (int64_t)cu.simds * waves;
  int64_t programs = slots / wgWaves;
  if (programs == 0)
    return bad(format("a workgroup of %lld waves does not fit: its %s allow "
                      "%d waves per SIMD, %lld per CU",
                      (long long)wgWaves, occupancyLimitName(limit), waves,
                      (long long)slots));
  if (r.ldsBytes > 0) {
    int64_t byLds = cu.ldsBytes / alignTo(r.ldsBytes, cu.ldsGranule);
    if (byLds < programs) {
      programs = byLds;
      limit = OccupancyLimit::Lds;
    }
  }
  out.programsPerCU = (int)programs;
  out.wavesPerSimd = (int)((programs * wgWaves + cu.simds - 1) / cu.simds);
  out.limit = limit;
  return Status::ok();
}

} // namespace tessel
