//===- OccupancyTest.cpp - Programs resident per CU from resources --------===//
//
// The AMD occupancy model against counts worked out by hand from the
// compute-unit facts (4 SIMDs of 8 waves, 512 registers per lane in blocks
// of 8 with AGPRs from a multiple of 4, 64 KiB of LDS in 512-byte blocks on
// gfx942 and 160 KiB in 1280-byte blocks on gfx950), and its errors.
//
//===----------------------------------------------------------------------===//
#include "Occupancy.h"
#include "Device.h"

#include <gtest/gtest.h>

using namespace tessel;

namespace {

const AmdComputeUnit &cu(const char *arch) {
  const AmdComputeUnit *c = findAmdComputeUnit(arch);
  EXPECT_NE(c, nullptr) << arch;
  return *c;
}

KernelResources res(int64_t vgprs, int64_t agprs, int64_t sgprs, int64_t lds,
                    int64_t threads) {
  KernelResources r;
  r.vgprs = vgprs, r.agprs = agprs, r.sgprs = sgprs, r.ldsBytes = lds;
  r.threads = threads;
  return r;
}

Occupancy occ(const char *arch, const KernelResources &r) {
  Occupancy o;
  Status s = amdOccupancy(cu(arch), r, o);
  EXPECT_FALSE(s) << s.message();
  return o;
}

std::string errorOf(const char *arch, const KernelResources &r) {
  Occupancy o;
  Status s = amdOccupancy(cu(arch), r, o);
  EXPECT_TRUE(s) << "expected an error";
  return s.message();
}

TEST(Occupancy, LimitedByRegisters) {
  // 128 VGPRs: 512 / 128 = 4 waves per SIMD, 16 per CU, 4-wave workgroups.
  Occupancy o = occ("gfx942", res(128, 0, 32, 0, 256));
  EXPECT_EQ(o.programsPerCU, 4);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  // 90 VGPRs -> 92, + 100 AGPRs = 192: 2 waves per SIMD, 8 per CU.
  o = occ("gfx950", res(90, 100, 32, 0, 256));
  EXPECT_EQ(o.programsPerCU, 2);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  // 65 VGPRs -> 68 -> 72 (blocks of 8): 7 waves per SIMD, 28 one-wave
  // workgroups per CU.
  o = occ("gfx942", res(65, 0, 32, 0, 64));
  EXPECT_EQ(o.programsPerCU, 28);
  EXPECT_EQ(o.wavesPerSimd, 7);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
}

TEST(Occupancy, LimitedByLds) {
  // 32 VGPRs allow all 8 waves: 32 slots / 4 waves = 8 workgroups; 20000
  // bytes of LDS take 40 blocks of 512 = 20480, and 65536 / 20480 = 3.
  Occupancy o = occ("gfx942", res(32, 0, 32, 20000, 256));
  EXPECT_EQ(o.programsPerCU, 3);
  EXPECT_EQ(o.limit, OccupancyLimit::Lds);
  // On gfx950 the same 20480 bytes (16 blocks of 1280) fit 8 times into
  // 160 KiB: the waves bind first.
  o = occ("gfx950", res(32, 0, 32, 20000, 256));
  EXPECT_EQ(o.programsPerCU, 8);
  EXPECT_EQ(o.limit, OccupancyLimit::Waves);
  // 6000 bytes: 12 blocks = 6144 on gfx942 (10 fit), 5 blocks = 6400 on
  // gfx950 (25 fit), below the 32 one-wave workgroups.
  EXPECT_EQ(occ("gfx942", res(32, 0, 32, 6000, 64)).programsPerCU, 10);
  EXPECT_EQ(occ("gfx950", res(32, 0, 32, 6000, 64)).programsPerCU, 25);
}

TEST(Occupancy, LimitedByWaves) {
  // 1024 threads = 16 waves: 32 slots hold two such workgroups.
  Occupancy o = occ("gfx942", res(16, 0, 16, 0, 1024));
  EXPECT_EQ(o.programsPerCU, 2);
  EXPECT_EQ(o.wavesPerSimd, 8);
  EXPECT_EQ(o.limit, OccupancyLimit::Waves);
  // One-wave workgroups: 4 SIMDs x 8 waves.
  EXPECT_EQ(occ("gfx950", res(16, 0, 16, 0, 64)).programsPerCU, 32);
  // 3-wave workgroups (129..192 threads): 32 / 3 = 10.
  EXPECT_EQ(occ("gfx942", res(16, 0, 16, 0, 150)).programsPerCU, 10);
  // No registers at all still leaves the wave limit.
  EXPECT_EQ(occ("gfx942", res(0, 0, 0, 0, 64)).programsPerCU, 32);
}

TEST(Occupancy, LimitedByScalarRegisters) {
  // More than 100 SGPRs: 7 waves per SIMD, 28 one-wave workgroups.
  Occupancy o = occ("gfx942", res(16, 0, 104, 0, 64));
  EXPECT_EQ(o.programsPerCU, 28);
  EXPECT_EQ(o.limit, OccupancyLimit::ScalarRegisters);
  // Up to 100 they allow 8, the hardware's cap.
  EXPECT_EQ(occ("gfx942", res(16, 0, 100, 0, 64)).limit, OccupancyLimit::Waves);
}

TEST(Occupancy, BadResourcesAreErrors) {
  EXPECT_NE(errorOf("gfx942", res(300, 256, 32, 0, 64))
                .find("take 560 registers per lane, more than the 512"),
            std::string::npos);
  EXPECT_NE(errorOf("gfx942", res(32, 0, 32, 70000, 64))
                .find("70000 bytes of LDS per workgroup, more than the 65536"),
            std::string::npos);
  EXPECT_NE(errorOf("gfx950", res(-1, 0, 32, 0, 64)).find("negative"),
            std::string::npos);
  EXPECT_NE(errorOf("gfx942", res(32, 0, 32, 0, 0)).find("0 threads"),
            std::string::npos);
  EXPECT_NE(errorOf("gfx942", res(32, 0, 32, 0, 2048)).find("2048 threads"),
            std::string::npos);
  // 256 registers leave 2 waves per SIMD, 8 slots: no room for 16 waves.
  EXPECT_NE(errorOf("gfx942", res(256, 0, 32, 0, 1024))
                .find("a workgroup of 16 waves does not fit"),
            std::string::npos);
  EXPECT_EQ(findAmdComputeUnit("sm_90"), nullptr);
}

BundleEntry entry(const std::string &resources) {
  BundleEntry e;
  e.name = "k.gfx942";
  e.kernel = "k";
  e.target = "gfx942";
  e.block[0] = 256;
  e.resources = resources;
  return e;
}

TEST(Occupancy, ReadsTheManifestResources) {
  KernelResources r;
  ASSERT_FALSE(kernelResourcesOf(
      entry(R"({"format": "hsaco", "kernels": [{"name": "k", "vgpr_count": 90,)"
            R"( "agpr_count": 100, "sgpr_count": 40, "lds_bytes": 4096}]})"),
      r));
  EXPECT_EQ(r.vgprs, 90);
  EXPECT_EQ(r.agprs, 100);
  EXPECT_EQ(r.sgprs, 40);
  EXPECT_EQ(r.ldsBytes, 4096);
  EXPECT_EQ(r.threads, 256);
  // Without the register counts there is nothing to compute from.
  Status s = kernelResourcesOf(
      entry(R"({"kernels": [{"name": "k", "lds_bytes": 0}]})"), r);
  ASSERT_TRUE(s);
  EXPECT_NE(s.message().find("k.gfx942: its resources record no vgpr_count"),
            std::string::npos)
      << s.message();
  // Not JSON at all.
  EXPECT_TRUE(kernelResourcesOf(entry("{\"kernels\": [}"), r));
  EXPECT_TRUE(kernelResourcesOf(
      entry(R"({"kernels": [{"vgpr_count": 8, "sgpr_count": -4}]})"), r));
}

/// An AMD device of `cus` CUs that runs nothing: the base class's
/// occupancy (what the hip device uses) is all it offers.
class AmdModelDevice final : public Device {
public:
  AmdModelDevice(const char *arch, int cus) {
    arch_ = arch;
    cuCount_ = cus;
  }
  const char *kind() const override { return "model"; }
  CodeFormat codeFormat() const override { return CodeFormat::Hsaco; }
  Status launch(void *, const uint32_t *, const uint32_t *, void **, size_t,
                void *) override {
    return Status::ok();
  }
  Status streamCreate(void **) override { return Status::ok(); }
  Status streamDestroy(void *) override { return Status::ok(); }
  Status streamSynchronize(void *) override { return Status::ok(); }
  Status memAlloc(size_t, void **) override { return Status::ok(); }
  Status memFree(void *) override { return Status::ok(); }
  Status memcpy(void *, const void *, size_t, int) override {
    return Status::ok();
  }

protected:
  Status loadModule(const std::string &, void **) override {
    return Status::ok();
  }
  Status moduleFunction(void *, const std::string &, void **) override {
    return Status::ok();
  }
};

// The device's resident grid: programs per CU times its CUs. 128 VGPRs and
// 256 threads give 4 per CU (LimitedByRegisters); MI300X has 304 CUs.
TEST(Occupancy, DeviceResidentGridIsPerCUTimesCUs) {
  BundleEntry e = entry(
      R"({"kernels": [{"vgpr_count": 128, "sgpr_count": 32, "lds_bytes": 0}]})");
  AmdModelDevice mi300x("gfx942", 304);
  int64_t n = 0;
  Status s = mi300x.maxResidentPrograms(e, nullptr, n);
  ASSERT_FALSE(s) << s.message();
  EXPECT_EQ(n, 4 * 304);
  // A device without an AMD compute unit has no model to use.
  AmdModelDevice other("sm_90", 132);
  s = other.maxResidentPrograms(e, nullptr, n);
  ASSERT_TRUE(s);
  EXPECT_NE(s.message().find("no occupancy model for sm_90"), std::string::npos)
      << s.message();
}

} // namespace
