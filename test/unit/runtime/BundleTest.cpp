//===- BundleTest.cpp - Bundle writer/reader, corruption, the CLI ---------===//

#include "TestUtil.h"

#include "Support.h"
#include "tessel/bundle.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sys/stat.h>

using namespace tessel;
using namespace tessel_test;

namespace {

std::string serialize(const Bundle &b) {
  std::string out, err;
  EXPECT_TRUE(serializeBundle(b, out, err)) << err;
  return out;
}

Bundle mixedBundle() {
  Bundle b = fakeIndexerBundle();
  BundleEntry h = fakeIndexerEntry("gfx942", 1, 2);
  h.name = "hsaco.gfx942";
  h.format = CodeFormat::Hsaco;
  h.code = std::string("\x7f"
                       "ELF\x02\x01\x01\0\0binary\0bytes",
                       22);
  b.entries.push_back(h);
  BundleEntry p = fakeIndexerEntry("gfx942", 1, 2);
  p.name = "ptx.sm_90";
  p.target = "sm_90";
  p.format = CodeFormat::Ptx;
  p.code = ".version 8.0\n.target sm_90\n";
  b.entries.push_back(p);
  return b;
}

} // namespace

TEST(Bundle, RoundTripsEveryField) {
  Bundle b = mixedBundle();
  std::string bytes = serialize(b);
  Bundle r;
  std::string err;
  ASSERT_TRUE(parseBundle(bytes.data(), bytes.size(), r, err)) << err;
  EXPECT_EQ(r.compilerVersion, b.compilerVersion);
  ASSERT_EQ(r.entries.size(), b.entries.size());
  for (size_t i = 0; i < b.entries.size(); ++i) {
    const BundleEntry &x = b.entries[i], &y = r.entries[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kernel, y.kernel);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.format, y.format);
    EXPECT_EQ(x.knobs, y.knobs);
    ASSERT_EQ(x.args.size(), y.args.size());
    for (size_t a = 0; a < x.args.size(); ++a) {
      EXPECT_EQ(x.args[a].name, y.args[a].name);
      EXPECT_EQ(x.args[a].kind, y.args[a].kind);
      EXPECT_EQ(x.args[a].size, y.args[a].size);
    }
    EXPECT_EQ(0, memcmp(x.block, y.block, sizeof(x.block)));
    EXPECT_EQ(x.resources, y.resources);
    EXPECT_EQ(x.sourceHash, y.sourceHash);
    EXPECT_EQ(x.code, y.code);
  }
}

TEST(Bundle, HeaderMatchesTheDocumentedLayout) {
  Bundle b = fakeIndexerBundle();
  std::string bytes = serialize(b);
  ASSERT_GE(bytes.size(), 64u);
  EXPECT_EQ(0, memcmp(bytes.data(), "TSLBNDL\0", 8));
  uint32_t version, headerSize, numBlobs;
  uint64_t fileSize, mOff, mSize, mSum;
  memcpy(&version, &bytes[8], 4);
  memcpy(&headerSize, &bytes[12], 4);
  memcpy(&fileSize, &bytes[16], 8);
  memcpy(&numBlobs, &bytes[24], 4);
  memcpy(&mOff, &bytes[32], 8);
  memcpy(&mSize, &bytes[40], 8);
  memcpy(&mSum, &bytes[48], 8);
  EXPECT_EQ(version, 1u);
  EXPECT_EQ(headerSize, 64u);
  EXPECT_EQ(fileSize, bytes.size());
  EXPECT_EQ(numBlobs, b.entries.size());
  EXPECT_EQ(mOff, 64u + 24u * numBlobs);
  EXPECT_EQ(mSum, fnv1a64(bytes.data() + mOff, mSize));
  // Each blob is 16-byte aligned and holds its entry's code.
  for (uint32_t i = 0; i < numBlobs; ++i) {
    uint64_t off, size;
    memcpy(&off, &bytes[64 + 24 * i], 8);
    memcpy(&size, &bytes[64 + 24 * i + 8], 8);
    EXPECT_EQ(off % 16, 0u);
    EXPECT_EQ(bytes.substr(off, size), b.entries[i].code);
  }
}

TEST(Bundle, RejectsEveryFlippedByte) {
  std::string good = serialize(fakeIndexerBundle());
  // Every byte of the file is covered by a checksum or a check, so flipping
  // any single byte must be detected (padding between blobs excepted).
  std::vector<bool> covered(good.size(), false);
  uint32_t n;
  memcpy(&n, &good[24], 4);
  uint64_t mOff, mSize;
  memcpy(&mOff, &good[32], 8);
  memcpy(&mSize, &good[40], 8);
  for (uint64_t i = 0; i < mOff + mSize; ++i)
    covered[i] = true;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t off, size;
    memcpy(&off, &good[64 + 24 * i], 8);
    memcpy(&size, &good[64 + 24 * i + 8], 8);
    for (uint64_t j = off; j < off + size; ++j)
      covered[j] = true;
  }
  size_t rejected = 0, tried = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    if (!covered[i])
      continue;
    for (int bit : {0, 7}) {
      std::string bad = good;
      bad[i] ^= static_cast<char>(1 << bit);
      Bundle r;
      std::string err;
      ++tried;
      if (!parseBundle(bad.data(), bad.size(), r, err)) {
        ++rejected;
        EXPECT_FALSE(err.empty());
      }
    }
  }
  EXPECT_EQ(rejected, tried);
}

TEST(Bundle, RejectsEveryTruncationAndExtension) {
  std::string good = serialize(fakeIndexerBundle());
  for (size_t len = 0; len < good.size(); ++len) {
    Bundle r;
    std::string err;
    EXPECT_FALSE(parseBundle(good.data(), len, r, err)) << len;
  }
  std::string longer = good + "x";
  Bundle r;
  std::string err;
  EXPECT_FALSE(parseBundle(longer.data(), longer.size(), r, err));
  EXPECT_NE(err.find("truncated or has trailing bytes"), std::string::npos);
}

TEST(Bundle, SurvivesRandomGarbage) {
  std::mt19937 rng(1234);
  std::string good = serialize(fakeIndexerBundle());
  for (int iter = 0; iter < 2000; ++iter) {
    std::string bytes;
    if (iter % 2 == 0) {
      bytes.resize(rng() % 512);
      for (char &c : bytes)
        c = static_cast<char>(rng());
      if (bytes.size() >= 8 && iter % 4 == 0)
        memcpy(&bytes[0], "TSLBNDL\0", 8);
    } else {
      bytes = good;
      for (int k = 0; k < 1 + int(rng() % 8); ++k)
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      bytes.resize(rng() % (bytes.size() + 1));
    }
    Bundle r;
    std::string err;
    // Must return (not crash, not read out of bounds under sanitizers).
    if (!parseBundle(bytes.data(), bytes.size(), r, err)) {
      EXPECT_FALSE(err.empty());
    }
  }
}

TEST(Bundle, ChecksumsCatchSelfConsistentHeaderTampering) {
  // Change the version and fix nothing else: the reader names the version.
  std::string bytes = serialize(fakeIndexerBundle());
  bytes[8] = 2;
  Bundle r;
  std::string err;
  EXPECT_FALSE(parseBundle(bytes.data(), bytes.size(), r, err));
  EXPECT_NE(err.find("unsupported bundle version 2"), std::string::npos) << err;
  bytes = serialize(fakeIndexerBundle());
  bytes[0] = 'X';
  EXPECT_FALSE(parseBundle(bytes.data(), bytes.size(), r, err));
  EXPECT_NE(err.find("bad magic"), std::string::npos) << err;
}

// Which code objects run on which device, and which one it prefers.
TEST(Bundle, CodeObjectRankPrefersSm90aOnSm90) {
  BundleEntry a, p, h, s;
  a.target = "sm_90a";
  a.format = CodeFormat::Ptx;
  p.target = "sm_90";
  p.format = CodeFormat::Ptx;
  h.target = "gfx942";
  h.format = CodeFormat::Hsaco;
  s.target = "gfx942";
  s.format = CodeFormat::Simt;
  EXPECT_GT(codeObjectRank(a, "sm_90", CodeFormat::Ptx),
            codeObjectRank(p, "sm_90", CodeFormat::Ptx));
  EXPECT_GE(codeObjectRank(p, "sm_90", CodeFormat::Ptx), 0);
  EXPECT_EQ(codeObjectRank(a, "gfx942", CodeFormat::Hsaco), -1);
  EXPECT_EQ(codeObjectRank(h, "gfx942", CodeFormat::Hsaco), 1);
  // An emulator runs the SIMT IR of its architecture, not its hsaco.
  EXPECT_EQ(codeObjectRank(h, "gfx942", CodeFormat::Simt), -1);
  EXPECT_EQ(codeObjectRank(s, "gfx942", CodeFormat::Simt), 1);
  EXPECT_EQ(codeObjectRank(s, "gfx950", CodeFormat::Simt), -1);
  ASSERT_NE(preferredCodeTarget("sm_90"), nullptr);
  EXPECT_STREQ(preferredCodeTarget("sm_90")->name, "sm_90a");
  EXPECT_STREQ(preferredCodeTarget("gfx950")->name, "gfx950");
  EXPECT_EQ(preferredCodeTarget("sm_100"), nullptr);
  EXPECT_EQ(findCodeTarget("sm_89"), nullptr);
}

TEST(Bundle, WriterRejectsInconsistentManifests) {
  struct Case {
    const char *what;
    void (*mutate)(BundleEntry &);
    const char *expect;
  } cases[] = {
      {"ptx for gfx", [](BundleEntry &e) { e.format = CodeFormat::Ptx; },
       "ptx code cannot target gfx942 (gfx942 needs hsaco or simt)"},
      {"simt for sm_90", [](BundleEntry &e) { e.target = "sm_90"; },
       "simt code cannot target sm_90 (sm_90 needs ptx)"},
      {"simt for sm_90a", [](BundleEntry &e) { e.target = "sm_90a"; },
       "simt code cannot target sm_90a (sm_90a needs ptx)"},
      {"unknown target", [](BundleEntry &e) { e.target = "gfx1100"; },
       "unknown target 'gfx1100'"},
      {"hsaco not ELF", [](BundleEntry &e) { e.format = CodeFormat::Hsaco; },
       "hsaco blob is not an ELF file"},
      {"arg size", [](BundleEntry &e) { e.args[15].size = 8; },
       "argument 'num_tokens' of kind i32 has size 8, expected 4"},
      {"block", [](BundleEntry &e) { e.block[0] = 2048; },
       "block[0] = 2048 is out of [1, 1024]"},
      {"block product",
       [](BundleEntry &e) {
         e.block[0] = 64;
         e.block[1] = 32;
       },
       "block has 2048 threads"},
      {"empty code", [](BundleEntry &e) { e.code.clear(); }, "empty code"},
      {"NUL in text", [](BundleEntry &e) { e.code.push_back('\0'); },
       "contains a NUL byte"},
      {"bad name", [](BundleEntry &e) { e.name = "a b"; },
       "is not an identifier"},
      {"dup knob",
       [](BundleEntry &e) {
         e.knobs.push_back({"k_bf16", 0});
       },
       "duplicate knob 'k_bf16'"},
  };
  for (const auto &c : cases) {
    Bundle b;
    b.entries.push_back(fakeIndexerEntry("gfx942", 1, 1));
    c.mutate(b.entries[0]);
    std::string out, err;
    EXPECT_FALSE(serializeBundle(b, out, err)) << c.what;
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.what << ": " << err;
  }
  Bundle dup;
  dup.entries.push_back(fakeIndexerEntry("gfx942", 1, 1));
  dup.entries.push_back(fakeIndexerEntry("gfx942", 1, 1));
  std::string out, err;
  EXPECT_FALSE(serializeBundle(dup, out, err));
  EXPECT_NE(err.find("duplicate code object name"), std::string::npos);
}

TEST(Bundle, DescriptionPacksFilesAndEmuTargets) {
  std::string dir = tempPath("tessel-desc");
  unlink(dir.c_str());
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  ASSERT_TRUE(
      writeBytes(dir + "/k.simt",
                 "FAKE-SIMT kernel=indexer_k_cache_write fp8=e4m3fn tpp=2"));
  std::string desc = R"({"tessel_bundle": 1, "compiler_version": "t",
    "code_objects": [{"name": "v0", "kernel": "indexer_k_cache_write",
      "target": "emu-gfx950", "file": "k.simt", "knobs": {"k_bf16": 1},
      "args": [{"name": "n", "kind": "i32"}], "block": [128]}]})";
  Bundle b;
  std::string err;
  ASSERT_TRUE(bundleFromDescription(desc, dir, b, err)) << err;
  ASSERT_EQ(b.entries.size(), 1u);
  EXPECT_EQ(b.entries[0].target, "gfx950");
  EXPECT_EQ(b.entries[0].format, CodeFormat::Simt);
  EXPECT_EQ(b.entries[0].block[0], 128u);
  EXPECT_EQ(b.entries[0].block[1], 1u);
  EXPECT_EQ(b.entries[0].args[0].size, 4u);
  EXPECT_EQ(b.entries[0].code.substr(0, 9), "FAKE-SIMT");

  std::string missing = R"({"tessel_bundle": 1, "code_objects": [{"name":
    "v0", "kernel": "k", "target": "gfx942", "file": "nope.hsaco",
    "args": [], "block": [64]}]})";
  EXPECT_FALSE(bundleFromDescription(missing, dir, b, err));
  EXPECT_NE(err.find("nope.hsaco"), std::string::npos) << err;
  unlink((dir + "/k.simt").c_str());
  rmdir(dir.c_str());
}

TEST(Bundle, ReadBundleFileNamesTheFile) {
  std::string p = tempPath("tessel-bad-bundle");
  ASSERT_TRUE(writeBytes(p, "not a bundle at all, just some bytes....."
                            "..........................................."));
  Bundle b;
  std::string err;
  EXPECT_FALSE(readBundleFile(p, b, err));
  EXPECT_NE(err.find(p), std::string::npos) << err;
  EXPECT_NE(err.find("bad magic"), std::string::npos) << err;
  unlink(p.c_str());
  EXPECT_FALSE(readBundleFile("/nonexistent/x.tbundle", b, err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
}

TEST(Bundle, DescriptionSignatureExpandsMemrefs) {
  std::string dir = tempPath("tessel-sig");
  unlink(dir.c_str());
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  ASSERT_TRUE(writeBytes(dir + "/k.ptx", ".version 8.0\n"));
  std::string desc = R"({"tessel_bundle": 1, "code_objects": [{"name": "v",
    "kernel": "indexer_k_cache_write", "target": "sm_90", "file": "k.ptx",
    "signature": ["memref k", "memref slot_mapping", "memref cache",
                  "i32 num_tokens", "i64 k_row_stride", "i32 block_size",
                  "i64 num_slots"],
    "resources": {"vgpr": 12, "lds": 0}, "block": [64]}]})";
  Bundle b;
  std::string err;
  ASSERT_TRUE(bundleFromDescription(desc, dir, b, err)) << err;
  ASSERT_EQ(b.entries[0].args.size(), indexerArgs().size());
  for (size_t i = 0; i < indexerArgs().size(); ++i) {
    EXPECT_EQ(b.entries[0].args[i].name, indexerArgs()[i].name) << i;
    EXPECT_EQ(b.entries[0].args[i].kind, indexerArgs()[i].kind) << i;
    EXPECT_EQ(b.entries[0].args[i].size, indexerArgs()[i].size) << i;
  }
  EXPECT_EQ(b.entries[0].resources, "{\"vgpr\":12,\"lds\":0}");
  std::string both = desc;
  both.insert(both.find("\"block\""), "\"args\": [], ");
  EXPECT_FALSE(bundleFromDescription(both, dir, b, err));
  EXPECT_NE(err.find("not both"), std::string::npos) << err;
  std::string bad = R"({"tessel_bundle": 1, "code_objects": [{"name": "v",
    "kernel": "k", "target": "sm_90", "file": "k.ptx",
    "signature": ["tensor k"], "block": [64]}]})";
  EXPECT_FALSE(bundleFromDescription(bad, dir, b, err));
  EXPECT_NE(err.find("unknown kind 'tensor'"), std::string::npos) << err;
  unlink((dir + "/k.ptx").c_str());
  rmdir(dir.c_str());
}

TEST(Bundle, ResourceCountsReadTheFirstKernelsIntegers) {
  BundleEntry e = fakeIndexerEntry("gfx942", 1, 2);
  e.resources = R"({"format":"hsaco","kernels":[{"name":"k","vgpr_count":61,
    "sgpr_spill_count":33,"lds_bytes":8192,"wavefront_size":64},
    {"vgpr_count":7}],"target":"gfx942"})";
  std::vector<std::pair<std::string, int64_t>> counts;
  std::string err;
  ASSERT_TRUE(resourceCounts(e, counts, err)) << err;
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"vgpr_count", 61},
      {"sgpr_spill_count", 33},
      {"lds_bytes", 8192},
      {"wavefront_size", 64}};
  EXPECT_EQ(counts, want);

  e.resources = ""; // SIMT IR records none
  ASSERT_TRUE(resourceCounts(e, counts, err)) << err;
  EXPECT_TRUE(counts.empty());
}

TEST(Bundle, ResourceCountsRejectMalformedResources) {
  BundleEntry e = fakeIndexerEntry("gfx942", 1, 2);
  std::vector<std::pair<std::string, int64_t>> counts;
  std::string err;
  e.resources = R"({"kernels":[{"vgpr_count":)";
  EXPECT_FALSE(resourceCounts(e, counts, err));
  EXPECT_NE(err.find(e.name + ": resources: line 1"), std::string::npos) << err;
  e.resources = R"({"kernels":{"vgpr_count":1}})";
  EXPECT_FALSE(resourceCounts(e, counts, err));
  EXPECT_NE(err.find("\"kernels\" is not an array"), std::string::npos) << err;
  e.resources = R"({"kernels":[3]})";
  EXPECT_FALSE(resourceCounts(e, counts, err));
  EXPECT_NE(err.find("a kernel is not an object"), std::string::npos) << err;
}
