//===- RealEmulatorTest.cpp - The runtime on the real SIMT emulator -------===//
//
// Runs tessel_indexer_k_cache_write through the real libtessel_emu.so, with
// a SIMT IR kernel written here by hand (one lane per token, scalar loops)
// against the op's launch ABI, and compares with the float64 reference. It
// checks the runtime <-> emulator contract (plugin loading, memref
// flattening, grid derivation) until the compiled kernels are in a bundle.
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "Fp8Reference.h"
#include "Json.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <random>
#include <thread>

using namespace tessel_test;

namespace {

// Loads element d of row t of k (raw bytes) as f32 into %v.
std::string loadElement(bool bf16) {
  std::string g = "memref<?xi8, #gpu.address_space<global>>";
  if (bf16)
    return R"(
        %el = arith.addi %rowel, %d64 : i64
        %b0 = arith.muli %el, %c2_64 : i64
        %b1 = arith.addi %b0, %c1_64 : i64
        %i0 = arith.index_cast %b0 : i64 to index
        %i1 = arith.index_cast %b1 : i64 to index
        %lo = memref.load %k[%i0] : )" +
           g + R"(
        %hi = memref.load %k[%i1] : )" +
           g + R"(
        %lo16 = arith.extui %lo : i8 to i16
        %hi16 = arith.extui %hi : i8 to i16
        %c8_16 = arith.constant 8 : i16
        %hs = arith.shli %hi16, %c8_16 : i16
        %w = arith.ori %lo16, %hs : i16
        %bf = arith.bitcast %w : i16 to bf16
        %v = arith.extf %bf : bf16 to f32
)";
  std::string s = R"(
        %el = arith.addi %rowel, %d64 : i64
        %b0 = arith.muli %el, %c4_64 : i64
        %w = arith.constant 0 : i32
)";
  // Little-endian assembly of four bytes.
  std::string prev = "%w";
  for (int i = 0; i < 4; ++i) {
    std::string n = std::to_string(i);
    s += "        %o" + n + " = arith.constant " + n + " : i64\n";
    s += "        %a" + n + " = arith.addi %b0, %o" + n + " : i64\n";
    s += "        %x" + n + " = arith.index_cast %a" + n + " : i64 to index\n";
    s += "        %y" + n + " = memref.load %k[%x" + n + "] : " + g + "\n";
    s += "        %z" + n + " = arith.extui %y" + n + " : i8 to i32\n";
    s += "        %s" + n + " = arith.constant " + std::to_string(8 * i) +
         " : i32\n";
    s += "        %h" + n + " = arith.shli %z" + n + ", %s" + n + " : i32\n";
    s += "        %r" + n + " = arith.ori " + prev + ", %h" + n + " : i32\n";
    prev = "%r" + n;
  }
  s += "        %v = arith.bitcast " + prev + " : i32 to f32\n";
  return s;
}

std::string handKernel(const std::string &arch, bool bf16) {
  bool fnuz = arch == "gfx942";
  std::string f8 = fnuz ? "f8E4M3FNUZ" : "f8E4M3FN";
  std::string fmax = fnuz ? "240.0" : "448.0";
  std::string g8 = "memref<?xi8, #gpu.address_space<global>>";
  std::string g64 = "memref<?xi64, #gpu.address_space<global>>";
  std::string scaleStore;
  for (int i = 0; i < 4; ++i) {
    std::string n = std::to_string(i);
    scaleStore += "      %ss" + n + " = arith.constant " +
                  std::to_string(8 * i) + " : i32\n";
    scaleStore +=
        "      %sh" + n + " = arith.shrui %sbits, %ss" + n + " : i32\n";
    scaleStore +=
        "      %sb" + n + " = arith.trunci %sh" + n + " : i32 to i8\n";
    scaleStore += "      %so" + n + " = arith.constant " + n + " : i64\n";
    scaleStore +=
        "      %sa" + n + " = arith.addi %scbase, %so" + n + " : i64\n";
    scaleStore +=
        "      %sx" + n + " = arith.index_cast %sa" + n + " : i64 to index\n";
    scaleStore +=
        "      memref.store %sb" + n + ", %cache[%sx" + n + "] : " + g8 + "\n";
  }
  return R"(module attributes {gpu.container_module} {
gpu.module @indexer_k_cache_write {
gpu.func @indexer_k_cache_write(%k: )" +
         g8 + ", %slots: " + g64 + ", %cache: " + g8 +
         R"(, %T: i32, %rs: i64, %bs: i32, %nslots: i64) kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessel.target = ")" +
         arch + R"("} {
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %c64 = arith.constant 64 : index
  %base = arith.muli %bid, %c64 : index
  %t = arith.addi %base, %tid : index
  %Tidx = arith.index_cast %T : i32 to index
  %in = arith.cmpi ult, %t, %Tidx : index
  scf.if %in {
    %s = memref.load %slots[%t] : )" +
         g64 + R"(
    %c0_64 = arith.constant 0 : i64
    %ge0 = arith.cmpi sge, %s, %c0_64 : i64
    %lt = arith.cmpi slt, %s, %nslots : i64
    %ok = arith.andi %ge0, %lt : i1
    scf.if %ok {
      %c1_64 = arith.constant 1 : i64
      %c2_64 = arith.constant 2 : i64
      %c4_64 = arith.constant 4 : i64
      %c128_64 = arith.constant 128 : i64
      %c132_64 = arith.constant 132 : i64
      %ti = arith.index_cast %t : index to i64
      %rowel = arith.muli %ti, %rs : i64
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %amax = scf.for %d = %c0 to %c128 step %c1 iter_args(%m = %zero) -> (f32) {
        %d64 = arith.index_cast %d : index to i64
)" + loadElement(bf16) +
         R"(
        %a = math.absf %v : f32
        %m2 = arith.maximumf %m, %a : f32
        scf.yield %m2 : f32
      }
      %fmax = arith.constant )" +
         fmax + R"( : f32
      %scale = arith.divf %amax, %fmax : f32
      %bs64 = arith.extsi %bs : i32 to i64
      %blk = arith.divsi %s, %bs64 : i64
      %off = arith.remsi %s, %bs64 : i64
      %bb0 = arith.muli %blk, %bs64 : i64
      %bbase = arith.muli %bb0, %c132_64 : i64
      %voff = arith.muli %off, %c128_64 : i64
      %vbase = arith.addi %bbase, %voff : i64
      scf.for %d = %c0 to %c128 step %c1 {
        %d64 = arith.index_cast %d : index to i64
)" + loadElement(bf16) +
         R"(
        %q = arith.divf %v, %scale : f32
        %f8 = arith.truncf %q : f32 to )" +
         f8 + R"(
        %byte = arith.bitcast %f8 : )" +
         f8 + R"( to i8
        %dst = arith.addi %vbase, %d64 : i64
        %dx = arith.index_cast %dst : i64 to index
        memref.store %byte, %cache[%dx] : )" +
         g8 + R"(
      }
      %sbits = arith.bitcast %scale : f32 to i32
      %sreg = arith.muli %bs64, %c128_64 : i64
      %sr2 = arith.addi %bbase, %sreg : i64
      %soff = arith.muli %off, %c4_64 : i64
      %scbase = arith.addi %sr2, %soff : i64
)" + scaleStore +
         R"(    }
  }
  gpu.return
}
}
}
)";
}

tessel::Bundle handBundle() {
  tessel::Bundle b;
  b.compilerVersion = "hand-written SIMT IR";
  for (const char *arch : {"gfx942", "gfx950"})
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      tessel::BundleEntry e = fakeIndexerEntry(arch, bf16, 64);
      e.code = handKernel(arch, bf16);
      b.entries.push_back(e);
    }
  return b;
}

struct Case {
  int64_t T, rowStride, nb = 8, bs = 64;
  bool bf16;
  std::vector<uint8_t> kmem, cmem;
  std::vector<int64_t> slots;
  uint8_t *k, *cache;
  Case(int64_t T, int64_t rowStride, bool bf16, uint32_t seed)
      : T(T), rowStride(rowStride), bf16(bf16) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> val(0.0f, 3.0f);
    size_t es = bf16 ? 2 : 4;
    kmem.assign((T * rowStride + 128) * es + 64, 0);
    k = align(kmem.data());
    for (int64_t t = 0; t < T; ++t)
      for (int64_t d = 0; d < 128; ++d) {
        float v = val(rng);
        if (bf16) {
          uint16_t b = floatToBf16(v);
          memcpy(k + (t * rowStride + d) * 2, &b, 2);
        } else {
          memcpy(k + (t * rowStride + d) * 4, &v, 4);
        }
      }
    std::vector<int64_t> perm(nb * bs);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int64_t t = 0; t < T; ++t)
      slots.push_back(t % 5 == 2 ? -1 : perm[t]);
    cmem.assign(nb * bs * 132 + 64, 0);
    cache = align(cmem.data());
  }
  static uint8_t *align(uint8_t *p) {
    return reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(p) + 63) &
                                       ~uintptr_t(63));
  }
  double get(int64_t t, int64_t d) const {
    if (bf16) {
      uint16_t b;
      memcpy(&b, k + (t * rowStride + d) * 2, 2);
      return bf16ToDouble(b);
    }
    float f;
    memcpy(&f, k + (t * rowStride + d) * 4, 4);
    return f;
  }
  tessel_status run(tessel_context *ctx) {
    tessel_tensor tk =
        makeTensor(k, bf16 ? TESSEL_DTYPE_BF16 : TESSEL_DTYPE_F32, {T, 128},
                   {rowStride, 1});
    tessel_tensor ts = makeTensor(slots.data(), TESSEL_DTYPE_I64, {T}, {1});
    tessel_tensor tc = makeTensor(cache, TESSEL_DTYPE_U8, {nb, bs, 1, 132},
                                  {bs * 132, 132, 132, 1});
    return tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr);
  }
  // Number of cache bytes that differ from the reference by more than one
  // fp8 step (f32 kernel arithmetic vs the float64 reference) or at all
  // outside written rows and scales (relative 1e-6).
  int64_t mismatches(Fp8 f) const {
    std::vector<uint8_t> want(nb * bs * 132, 0);
    referenceKCacheWrite(
        f, T, [&](int64_t t, int64_t d) { return get(t, d); }, slots.data(), nb,
        bs, want);
    int64_t bad = 0;
    for (int64_t blk = 0; blk < nb; ++blk)
      for (int64_t i = 0; i < bs * 132; ++i) {
        uint8_t g = cache[blk * bs * 132 + i], w = want[blk * bs * 132 + i];
        if (g == w)
          continue;
        if (i < bs * 128) {
          double a = fp8Decode(f, g), b = fp8Decode(f, w);
          double step = std::ldexp(
              1.0, std::ilogb(
                       std::fmax(std::fmax(std::fabs(a), std::fabs(b)), 1e-3)) -
                       3);
          if (std::fabs(a - b) <= step)
            continue;
        } else {
          int64_t s = (i - bs * 128) / 4;
          float gs, ws;
          memcpy(&gs, cache + blk * bs * 132 + bs * 128 + s * 4, 4);
          memcpy(&ws, want.data() + blk * bs * 132 + bs * 128 + s * 4, 4);
          if (std::fabs(gs - ws) <= 1e-6 * std::fabs(ws))
            continue;
        }
        ++bad;
      }
    return bad;
  }
};

class RealEmulator : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", TESSEL_EMU_PATH),
              TESSEL_SUCCESS);
    path = writeBundle(handBundle());
    ASSERT_FALSE(path.empty());
  }
  void TearDown() override { unlink(path.c_str()); }
  std::string path;
};

} // namespace

TEST_F(RealEmulator, MatchesTheReference) {
  for (const char *dev : {"emu:gfx942", "emu:gfx950"}) {
    tessel_context *ctx = nullptr;
    ASSERT_EQ(tessel_context_create(dev, 0, &ctx), TESSEL_SUCCESS)
        << tessel_last_error();
    ASSERT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_SUCCESS)
        << tessel_last_error();
    Fp8 f = std::string(dev) == "emu:gfx942" ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
    for (bool bf16 : {true, false})
      for (int64_t T : {1, 63, 130}) {
        Case c(T, bf16 ? 136 : 128, bf16, static_cast<uint32_t>(T));
        ASSERT_EQ(c.run(ctx), TESSEL_SUCCESS) << tessel_last_error();
        EXPECT_EQ(c.mismatches(f), 0) << dev << " bf16=" << bf16 << " T=" << T;
      }
    tessel_context_destroy(ctx);
  }
}

TEST_F(RealEmulator, EightThreadsDispatchConcurrently) {
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu:gfx950", 0, &ctx), TESSEL_SUCCESS)
      << tessel_last_error();
  ASSERT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_SUCCESS)
      << tessel_last_error();
  std::atomic<int> failures{0}, bad{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 8; ++th)
    threads.emplace_back([&, th] {
      for (int iter = 0; iter < 3; ++iter) {
        Case c(1 + (th * 29 + iter * 53) % 200, 128, (th + iter) % 2,
               th * 10 + iter);
        if (c.run(ctx) != TESSEL_SUCCESS) {
          ++failures;
          fprintf(stderr, "thread %d: %s\n", th, tessel_last_error());
        } else if (c.mismatches(Fp8::E4M3FN) != 0) {
          ++bad;
        }
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(bad.load(), 0);
  tessel_context_destroy(ctx);
}

// A variant no bundle holds is compiled by libtessel_jit.so from the DSL
// source, cached on disk, and runs on the emulator like a bundled one.
TEST(RealEmulatorJit, CompilesMissingVariantsIntoTheCache) {
  std::string cacheDir = tempPath("tessel-jit-cache");
  unlink(cacheDir.c_str());
  ASSERT_EQ(0, mkdir(cacheDir.c_str(), 0755));
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", TESSEL_EMU_PATH),
            TESSEL_SUCCESS);
  ASSERT_EQ(tessel_config_set("TESSEL_JIT_LIBRARY", TESSEL_JIT_PATH),
            TESSEL_SUCCESS);
  ASSERT_EQ(tessel_config_set("TESSEL_CACHE_DIR", cacheDir.c_str()),
            TESSEL_SUCCESS);
  const char *source = TESSEL_KERNELS_DSL_DIR "/indexer_k_cache_write.mlir";
  const char *names[] = {"k_bf16", "tokens_per_program", "num_waves"};
  for (const char *dev : {"emu:gfx942", "emu:gfx950"}) {
    Fp8 f = std::string(dev) == "emu:gfx942" ? Fp8::E4M3FNUZ : Fp8::E4M3FN;
    for (int pass = 0; pass < 2; ++pass) { // compile, then hit the cache
      // The context reads the logging switch when it is created.
      ASSERT_EQ(tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1"),
                TESSEL_SUCCESS);
      tessel_context *ctx = nullptr;
      ASSERT_EQ(tessel_context_create(dev, 0, &ctx), TESSEL_SUCCESS)
          << tessel_last_error();
      testing::internal::CaptureStderr();
      for (int64_t bf16 : {1, 0}) {
        const int64_t values[] = {bf16, 32, 2};
        ASSERT_EQ(tessel_context_compile_variant(ctx, source, names, values, 3),
                  TESSEL_SUCCESS)
            << tessel_last_error();
      }
      std::string log = testing::internal::GetCapturedStderr();
      tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
      EXPECT_NE(log.find(pass == 0 ? "compiled" : "cache hit"),
                std::string::npos)
          << log;
      for (bool bf16 : {true, false}) {
        Case c(77, 136, bf16, 5);
        ASSERT_EQ(c.run(ctx), TESSEL_SUCCESS) << tessel_last_error();
        EXPECT_EQ(c.mismatches(f), 0) << dev << " bf16=" << bf16;
      }
      tessel_context_destroy(ctx);
    }
  }
  // A source that does not parse is an error naming the file, not a crash.
  std::string bad = cacheDir + "/bad.mlir";
  ASSERT_TRUE(writeBytes(bad, "tile.kernel @k(\n"));
  tessel_context *ctx = nullptr;
  ASSERT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_SUCCESS);
  EXPECT_NE(
      tessel_context_compile_variant(ctx, bad.c_str(), nullptr, nullptr, 0),
      TESSEL_SUCCESS);
  EXPECT_NE(std::string(tessel_last_error()).find("bad.mlir"),
            std::string::npos)
      << tessel_last_error();
  tessel_context_destroy(ctx);
  tessel_config_set("TESSEL_JIT_LIBRARY", "");
  tessel_config_set("TESSEL_CACHE_DIR", "");
}

// The runtime's flattened launch parameters for indexer_k_cache_write agree
// with the kernel-argument metadata that the compiled gfx942/gfx950 code
// objects carry (what hipModuleLaunchKernel packs them by): one argument per
// parameter, of the parameter's size, at increasing naturally aligned
// offsets inside the kernarg segment.
TEST(HsacoAbi, MarshalledParamsMatchTheCodeObjectMetadata) {
  tessel::Bundle bundle;
  std::string error;
  ASSERT_TRUE(tessel::readBundleFile(TESSEL_KERNEL_BUNDLE, bundle, error))
      << error;
  const std::vector<tessel::ArgKind> &abi = tessel::indexerKCacheWriteAbi();
  int checked = 0;
  for (const tessel::BundleEntry &e : bundle.entries) {
    // Other kernels of the library have other ABIs.
    if (e.format != tessel::CodeFormat::Hsaco ||
        e.kernel != "indexer_k_cache_write")
      continue;
    tessel::Json resources;
    ASSERT_TRUE(tessel::Json::parse(e.resources, resources, error))
        << e.name << ": " << error;
    const tessel::Json *kernels = resources.get("kernels");
    ASSERT_TRUE(kernels && kernels->isArray() && kernels->items().size() == 1)
        << e.name;
    const tessel::Json &k = kernels->items()[0];
    const tessel::Json *args = k.get("args");
    ASSERT_TRUE(args && args->isArray()) << e.name;
    ASSERT_EQ(args->items().size(), abi.size()) << e.name;
    int64_t end = 0;
    for (size_t i = 0; i < abi.size(); ++i) {
      const tessel::Json &a = args->items()[i];
      int64_t size = a.get("size")->asInt(), offset = a.get("offset")->asInt();
      int64_t want = abi[i] == tessel::ArgKind::I32 ? 4 : 8;
      EXPECT_EQ(size, want) << e.name << " param " << i;
      EXPECT_GE(offset, end) << e.name << " param " << i;
      EXPECT_EQ(offset % size, 0) << e.name << " param " << i;
      end = offset + size;
    }
    EXPECT_GE(k.get("kernarg_segment_size")->asInt(), end) << e.name;
    ++checked;
  }
  EXPECT_GE(checked, 2); // gfx942 and gfx950 variants
}
