//===- PagedMqaLogitsTest.cpp - The logits and schedule ops' runtime side -===//
//
// tessel_paged_mqa_logits and tessel_paged_mqa_logits_metadata on the emu
// device with the fake emulator, which records the launches of these
// kernels instead of running them: validation (each error names the
// argument), the marshalled parameters against the ABI written out here,
// the heuristic's pick and grid, and a persistent variant from a table row,
// which launches the schedule kernel first into the context's workspace.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <sys/stat.h>
#include <vector>

using namespace tessel_test;

namespace {

struct FakeLaunch {
  char kernel[64];
  uint32_t grid[3];
  size_t numParams;
  uint64_t params[64];
};

/// The launches the fake emulator recorded, in order.
std::vector<FakeLaunch> takeLaunches() {
  void *h = dlopen(FAKE_EMU_PATH, RTLD_NOW | RTLD_NOLOAD);
  std::vector<FakeLaunch> out;
  if (!h)
    return out;
  auto *log = static_cast<FakeLaunch *>(dlsym(h, "fake_emu_log"));
  auto *count = static_cast<std::atomic<int> *>(dlsym(h, "fake_emu_log_count"));
  if (log && count) {
    for (int i = 0; i < count->load() && i < 16; ++i)
      out.push_back(log[i]);
    count->store(0);
  }
  dlclose(h);
  return out;
}

// The launch ABI of kernels_dsl/paged_mqa_logits.mlir (the team's fixed
// ABI), spelled out independently of the runtime's spec.
std::vector<tessel::BundleArg> logitsArgs() {
  std::vector<tessel::BundleArg> a;
  for (const char *m : {"q", "kv_cache", "weights", "context_lens",
                        "block_tables", "out", "schedule"})
    for (const char *f : {"allocated", "aligned", "offset", "size", "stride"}) {
      bool ptr = std::string(f) == "allocated" || std::string(f) == "aligned";
      a.push_back({std::string(m) + "." + f,
                   ptr ? tessel::ArgKind::Ptr : tessel::ArgKind::I64, 8});
    }
  using K = tessel::ArgKind;
  for (auto [n, k] :
       std::vector<std::pair<const char *, K>>{{"batch", K::I32},
                                               {"next_n", K::I32},
                                               {"lens_2d", K::I32},
                                               {"block_table_stride", K::I64},
                                               {"block_shift", K::I32},
                                               {"out_row_stride", K::I64},
                                               {"max_model_len", K::I32},
                                               {"write_tail", K::I32},
                                               {"split_tokens", K::I32}})
    a.push_back({n, k, k == K::I64 ? 8u : 4u});
  return a;
}

std::vector<tessel::BundleArg> metadataArgs() {
  std::vector<tessel::BundleArg> a;
  for (const char *m : {"context_lens", "schedule"})
    for (const char *f : {"allocated", "aligned", "offset", "size", "stride"}) {
      bool ptr = std::string(f) == "allocated" || std::string(f) == "aligned";
      a.push_back({std::string(m) + "." + f,
                   ptr ? tessel::ArgKind::Ptr : tessel::ArgKind::I64, 8});
    }
  for (const char *n :
       {"batch", "next_n", "lens_2d", "split_tokens", "num_cus"})
    a.push_back({n, tessel::ArgKind::I32, 4});
  return a;
}

tessel::BundleEntry fakeEntry(const std::string &kernel,
                              const std::string &name,
                              std::vector<tessel::BundleArg> args,
                              std::vector<std::pair<std::string, int64_t>> kn) {
  tessel::BundleEntry e;
  e.name = name;
  e.kernel = kernel;
  e.target = "gfx942";
  e.format = tessel::CodeFormat::Simt;
  e.knobs = std::move(kn);
  e.args = std::move(args);
  e.block[0] = 256;
  e.resources = "{}";
  e.sourceHash = "logits-test";
  e.code = "FAKE-SIMT kernel=" + kernel + " fp8=e4m3fnuz tpp=1 " + name;
  return e;
}

tessel::Bundle logitsBundle() {
  tessel::Bundle b;
  b.compilerVersion = "tessel-test 0";
  for (int rpp : {1, 2})
    for (int chunk : {64, 256})
      for (int ps : {0, 1})
        for (int persistent : {0, 1})
          b.entries.push_back(fakeEntry("paged_mqa_logits",
                                        "logits.h32.r" + std::to_string(rpp) +
                                            ".c" + std::to_string(chunk) +
                                            ".p" + std::to_string(ps) + ".s" +
                                            std::to_string(persistent),
                                        logitsArgs(),
                                        {{"heads", 32},
                                         {"rows_per_program", rpp},
                                         {"chunk_k", chunk},
                                         {"waves_per_eu", 2},
                                         {"num_waves", 4},
                                         {"preshuffle", ps},
                                         {"persistent", persistent}}));
  b.entries.push_back(fakeEntry("paged_mqa_logits_metadata", "metadata.w4",
                                metadataArgs(), {{"num_waves", 4}}));
  return b;
}

class Logits : public ::testing::Test {
protected:
  static constexpr int64_t B = 2, N = 2, H = 32, BS = 16, NB = 8, MAXB = 4;
  void SetUp() override {
    ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
              TESSEL_SUCCESS);
    bundlePath = writeBundle(logitsBundle());
    ASSERT_FALSE(bundlePath.empty());
    ASSERT_EQ(tessel_context_create("emu:gfx942", 0, &ctx), TESSEL_SUCCESS)
        << tessel_last_error();
    ASSERT_EQ(tessel_context_load_bundle(ctx, bundlePath.c_str()),
              TESSEL_SUCCESS)
        << tessel_last_error();
    reset();
    takeLaunches();
  }
  void TearDown() override {
    tessel_context_destroy(ctx);
    unlink(bundlePath.c_str());
  }
  void reset() {
    qb.assign(B * N * H * 128 + 64, 0);
    kb.assign(NB * BS * 132 + 64, 0);
    wb.assign(B * N * H, 0.0f);
    lens = {40, 64};
    tables.assign(B * 6, 0);
    for (int64_t i = 0; i < B * 6; ++i)
      tables[i] = int32_t(i % NB);
    outb.assign(B * N * 80, 0.0f);
    q = makeTensor(align(qb.data()), TESSEL_DTYPE_U8, {B, N, H, 128},
                   {N * H * 128, H * 128, 128, 1});
    kv = makeTensor(align(kb.data()), TESSEL_DTYPE_U8, {NB, BS, 1, 132},
                    {BS * 132, 132, 132, 1});
    w = makeTensor(wb.data(), TESSEL_DTYPE_F32, {B * N, H}, {H, 1});
    cl = makeTensor(lens.data(), TESSEL_DTYPE_I32, {B}, {1});
    bt = makeTensor(tables.data(), TESSEL_DTYPE_I32, {B, MAXB}, {6, 1});
    out = makeTensor(outb.data(), TESSEL_DTYPE_F32, {B * N, mml}, {80, 1});
  }
  static void *align(uint8_t *p) {
    return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(p) + 63) &
                                    ~uintptr_t(63));
  }
  tessel_status call(uint32_t flags = 0) {
    return tessel_paged_mqa_logits(ctx, &q, &kv, &w, &cl, &bt, mml, flags, &out,
                                   nullptr);
  }
  void expectBad(std::function<void()> mutate, const std::string &what,
                 uint32_t flags = 0) {
    reset();
    mutate();
    EXPECT_EQ(call(flags), TESSEL_ERROR_INVALID_ARGUMENT) << what;
    std::string msg = tessel_last_error();
    EXPECT_NE(msg.find(what), std::string::npos)
        << "expected '" << what << "' in: " << msg;
    reset();
  }

  /// A context over the fixture's bundle whose paged_mqa_logits table is
  /// the header and `rows` (TESSEL_TUNED_DIR); null on failure.
  tessel_context *tunedContext(const std::string &rows) {
    tunedDir = tempPath("tessel-logits-tuned");
    unlink(tunedDir.c_str());
    if (mkdir(tunedDir.c_str(), 0755) != 0)
      return nullptr;
    tunedFile = tunedDir + "/paged_mqa_logits.csv";
    if (!writeBytes(tunedFile,
                    "arch,cu_num,heads,head_dim,kv_block_size,preshuffle,"
                    "batch,next_n,context,kernel,chunk_k,waves_per_eu,"
                    "split_kv,rows_per_program,num_waves,persistent,"
                    "tokens_on_m,us,tbps\n" +
                        rows))
      return nullptr;
    tessel_context *c = nullptr;
    tessel_config_set("TESSEL_TUNED_DIR", tunedDir.c_str());
    tessel_status st = tessel_context_create("emu:gfx942", 0, &c);
    tessel_config_set("TESSEL_TUNED_DIR", "");
    if (st != TESSEL_SUCCESS ||
        tessel_context_load_bundle(c, bundlePath.c_str()) != TESSEL_SUCCESS) {
      tessel_context_destroy(c);
      return nullptr;
    }
    takeLaunches();
    return c;
  }
  void removeTuned(tessel_context *c) {
    tessel_context_destroy(c);
    unlink(tunedFile.c_str());
    rmdir(tunedDir.c_str());
  }

  int64_t mml = 64;
  std::string bundlePath, tunedDir, tunedFile;
  tessel_context *ctx = nullptr;
  std::vector<uint8_t> qb, kb;
  std::vector<float> wb, outb;
  std::vector<int32_t> lens, tables;
  tessel_tensor q, kv, w, cl, bt, out;
};

} // namespace

TEST_F(Logits, MarshalsTheAbiAndPicksByTheHeuristic) {
  testing::internal::CaptureStderr();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1");
  ASSERT_EQ(call(), TESSEL_SUCCESS) << tessel_last_error();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
  std::string log = testing::internal::GetCapturedStderr();
  std::vector<FakeLaunch> l = takeLaunches();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_STREQ(l[0].kernel, "paged_mqa_logits");
  ASSERT_EQ(l[0].numParams, 44u);
  // rows_per_program 2 holds next_n = 2 in one M tile (2 * 32 <= 128);
  // max_model_len 64 <= 4096 -> chunk_k 64; split_kv = ceil(2 * 304 / (2 *
  // 1)) = 304, capped by ceil(64 / 64) = 1 chunk.
  EXPECT_EQ(l[0].grid[0], 1u);
  EXPECT_EQ(l[0].grid[1], 2u);
  EXPECT_EQ(l[0].grid[2], 1u);
  EXPECT_NE(log.find("-> logits.h32.r2.c64.p0.s0"), std::string::npos) << log;
  EXPECT_NE(log.find("rule=heuristic"), std::string::npos) << log;
  auto p = [&](int i) { return l[0].params[i]; };
  auto ptr = [&](const void *x) { return uint64_t(uintptr_t(x)); };
  // Memrefs: (allocated, aligned, 0, size in kernel elements, 1).
  EXPECT_EQ(p(0), ptr(q.data));
  EXPECT_EQ(p(1), ptr(q.data));
  EXPECT_EQ(p(2), 0u);
  EXPECT_EQ(p(3), uint64_t(B * N * H * 128)); // i8
  EXPECT_EQ(p(4), 1u);
  EXPECT_EQ(p(5), ptr(kv.data));
  EXPECT_EQ(p(8), uint64_t(NB * BS * 132));
  EXPECT_EQ(p(10), ptr(w.data));
  EXPECT_EQ(p(13), uint64_t(B * N * H)); // f32 elements
  EXPECT_EQ(p(15), ptr(cl.data));
  EXPECT_EQ(p(18), uint64_t(B));
  EXPECT_EQ(p(20), ptr(bt.data));
  EXPECT_EQ(p(23), uint64_t(6 + MAXB)); // one padded row, then a row
  EXPECT_EQ(p(25), ptr(out.data));
  EXPECT_EQ(p(28), uint64_t(80 * 3 + 64));
  EXPECT_NE(p(30), 0u); // the schedule: the context's workspace
  EXPECT_EQ(p(33), uint64_t(305 * 2));
  auto i32 = [&](int i) { return int32_t(uint32_t(p(i))); };
  EXPECT_EQ(i32(35), B);
  EXPECT_EQ(i32(36), N);
  EXPECT_EQ(i32(37), 0);         // lens_2d
  EXPECT_EQ(int64_t(p(38)), 6);  // block_table_stride
  EXPECT_EQ(i32(39), 4);         // block_shift = log2(16)
  EXPECT_EQ(int64_t(p(40)), 80); // out_row_stride
  EXPECT_EQ(i32(41), 64);        // max_model_len
  EXPECT_EQ(i32(42), 1);         // write_tail
  EXPECT_EQ(i32(43), 64);        // split_tokens (one chunk)

  // 2-D lengths, the tail skipped, preshuffled, a long context.
  std::vector<int32_t> lens2 = {40, 39, 64, 1};
  cl = makeTensor(lens2.data(), TESSEL_DTYPE_I32, {B, N}, {N, 1});
  mml = 8192;
  out = makeTensor(outb.data(), TESSEL_DTYPE_F32, {B * N, mml}, {0, 1});
  out.shape[0] = 1; // one row: its stride is never used
  w.shape[0] = 1;
  // B*next_n rows are required: out and weights must agree with q.
  EXPECT_EQ(call(TESSEL_LOGITS_NO_TAIL | TESSEL_LOGITS_PRESHUFFLED),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error())
                .find("weights: shape[0] = 1 must be B*next_n = 4"),
            std::string::npos)
      << tessel_last_error();
  std::vector<float> big(4 * 8192);
  w.shape[0] = 4;
  out = makeTensor(big.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});
  ASSERT_EQ(call(TESSEL_LOGITS_NO_TAIL | TESSEL_LOGITS_PRESHUFFLED),
            TESSEL_SUCCESS)
      << tessel_last_error();
  l = takeLaunches();
  ASSERT_EQ(l.size(), 1u);
  // chunk_k 256 for contexts over 4096: split_kv = min(304, 8192 / 256).
  EXPECT_EQ(l[0].grid[0], 32u);
  auto q2 = [&](int i) { return l[0].params[i]; };
  EXPECT_EQ(int32_t(q2(37)), 1);   // lens_2d
  EXPECT_EQ(int32_t(q2(42)), 0);   // write_tail
  EXPECT_EQ(int32_t(q2(43)), 256); // split_tokens
}

TEST_F(Logits, PersistentRowLaunchesTheScheduleFirst) {
  tessel_context *tuned = tunedContext(
      "gfx942,304,32,128,16,0,2,2,64,paged_mqa_logits,64,2,1,1,4,1,0,0,0\n");
  ASSERT_NE(tuned, nullptr) << tessel_last_error();
  ASSERT_EQ(tessel_paged_mqa_logits(tuned, &q, &kv, &w, &cl, &bt, mml, 0, &out,
                                    nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  std::vector<FakeLaunch> l = takeLaunches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_STREQ(l[0].kernel, "paged_mqa_logits_metadata");
  EXPECT_STREQ(l[1].kernel, "paged_mqa_logits");
  // The schedule the first writes is the one the second reads.
  ASSERT_EQ(l[0].numParams, 15u);
  EXPECT_EQ(l[0].params[5], l[1].params[30]);
  EXPECT_EQ(l[0].params[8], uint64_t(305 * 2));
  EXPECT_EQ(int32_t(l[0].params[10]), B);                        // batch
  EXPECT_EQ(int32_t(l[0].params[13]), int32_t(l[1].params[43])); // split
  EXPECT_EQ(int32_t(l[0].params[14]), 304);                      // num_cus
  // Persistent grid: (num_cus, 1, groups); rows_per_program 1 -> 2 groups.
  EXPECT_EQ(l[1].grid[0], 304u);
  EXPECT_EQ(l[1].grid[1], 1u);
  EXPECT_EQ(l[1].grid[2], 2u);
  // split_tokens is a whole number of chunks.
  EXPECT_EQ(int32_t(l[1].params[43]) % 64, 0);
  removeTuned(tuned);
}

// A row keyed preshuffle = 1 naming a persistent variant serves a call over
// a preshuffled cache with the persistent preshuffled variant (schedule
// first); a call over a plain cache of the same shape does not match it.
TEST_F(Logits, PreshuffledPersistentRowServesPreshuffledCalls) {
  tessel_context *tuned = tunedContext(
      "gfx942,304,32,128,16,1,2,2,64,paged_mqa_logits,64,2,1,1,4,1,0,0,0\n");
  ASSERT_NE(tuned, nullptr) << tessel_last_error();
  testing::internal::CaptureStderr();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1");
  tessel_status ps =
      tessel_paged_mqa_logits(tuned, &q, &kv, &w, &cl, &bt, mml,
                              TESSEL_LOGITS_PRESHUFFLED, &out, nullptr);
  std::vector<FakeLaunch> l = takeLaunches();
  tessel_status plain = tessel_paged_mqa_logits(tuned, &q, &kv, &w, &cl, &bt,
                                                mml, 0, &out, nullptr);
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
  std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(ps, TESSEL_SUCCESS);
  ASSERT_EQ(plain, TESSEL_SUCCESS);
  EXPECT_NE(log.find("-> logits.h32.r1.c64.p1.s1 ("), std::string::npos) << log;
  EXPECT_NE(log.find("rule=exact"), std::string::npos) << log;
  ASSERT_EQ(l.size(), 2u);
  EXPECT_STREQ(l[0].kernel, "paged_mqa_logits_metadata");
  EXPECT_STREQ(l[1].kernel, "paged_mqa_logits");
  EXPECT_EQ(l[1].grid[0], 304u);
  // The plain call takes a plain variant by the heuristic.
  EXPECT_NE(log.find(".p0.s0 ("), std::string::npos) << log;
  EXPECT_NE(log.find("rule=heuristic"), std::string::npos) << log;
  removeTuned(tuned);
}

// The context key buckets max_model_len: exact on the row's value, else the
// row nearest in log2 to max_model_len rounded up to a power of two. 65
// lies next to 64 but is in bucket 128; 200 is in bucket 256, one step from
// 128 and two from 64.
TEST_F(Logits, ContextKeyIsAPowerOfTwoBucketOfMaxModelLen) {
  tessel_context *tuned = tunedContext(
      "gfx942,304,32,128,16,0,2,2,64,paged_mqa_logits,64,2,1,1,4,0,0,0,0\n"
      "gfx942,304,32,128,16,0,2,2,128,paged_mqa_logits,256,2,1,1,4,0,0,0,0\n");
  ASSERT_NE(tuned, nullptr) << tessel_last_error();
  std::vector<float> big(B * N * 200);
  struct Case {
    int64_t mml;
    const char *variant, *rule;
  } cases[] = {{64, "logits.h32.r1.c64.p0.s0 (", "rule=exact"},
               {65, "logits.h32.r1.c256.p0.s0 (", "rule=nearest-bucket"},
               {128, "logits.h32.r1.c256.p0.s0 (", "rule=exact"},
               {200, "logits.h32.r1.c256.p0.s0 (", "rule=nearest-bucket"}};
  for (const Case &k : cases) {
    mml = k.mml;
    out = makeTensor(big.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});
    testing::internal::CaptureStderr();
    tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1");
    tessel_status st = tessel_paged_mqa_logits(tuned, &q, &kv, &w, &cl, &bt,
                                               mml, 0, &out, nullptr);
    tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
    std::string log = testing::internal::GetCapturedStderr();
    ASSERT_EQ(st, TESSEL_SUCCESS) << tessel_last_error();
    EXPECT_NE(log.find(std::string("-> ") + k.variant), std::string::npos)
        << "max_model_len " << k.mml << ": " << log;
    EXPECT_NE(log.find(k.rule), std::string::npos)
        << "max_model_len " << k.mml << ": " << log;
  }
  takeLaunches();
  removeTuned(tuned);
}

// Few rows (B * groups = 2 < 304 CUs) and a long context: the heuristic
// takes a persistent variant, which runs the schedule kernel first.
TEST_F(Logits, HeuristicPicksPersistentForFewRowsAndLongContexts) {
  mml = 16384;
  std::vector<float> big(B * N * mml);
  out = makeTensor(big.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});
  testing::internal::CaptureStderr();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "1");
  ASSERT_EQ(call(), TESSEL_SUCCESS) << tessel_last_error();
  tessel_config_set("TESSEL_LOG_TUNED_CONFIG", "0");
  std::string log = testing::internal::GetCapturedStderr();
  std::vector<FakeLaunch> l = takeLaunches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_STREQ(l[0].kernel, "paged_mqa_logits_metadata");
  EXPECT_STREQ(l[1].kernel, "paged_mqa_logits");
  // rows_per_program 2 folds next_n = 2; chunk_k 256 past 4096 tokens.
  EXPECT_NE(log.find("-> logits.h32.r2.c256.p0.s1"), std::string::npos) << log;
  EXPECT_NE(log.find("rule=heuristic"), std::string::npos) << log;
  EXPECT_EQ(l[1].grid[0], 304u);
  EXPECT_EQ(l[1].grid[1], 1u);
  EXPECT_EQ(l[1].grid[2], 1u);
  // split_tokens = 256 * ceil(2 * 64 / (2 * 304)) = 256.
  EXPECT_EQ(int32_t(l[1].params[43]), 256);
  EXPECT_EQ(l[0].params[5], l[1].params[30]);

  // At 8192 tokens, or with one batch, the split-grid variant serves.
  mml = 8192;
  out = makeTensor(big.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});
  ASSERT_EQ(call(), TESSEL_SUCCESS) << tessel_last_error();
  l = takeLaunches();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_STREQ(l[0].kernel, "paged_mqa_logits");
}

// Each stream has its own schedule workspace: persistent launches on two
// streams at once never share one; a stream keeps its workspace.
TEST_F(Logits, PersistentLaunchesOnTwoStreamsUseTwoWorkspaces) {
  mml = 16384;
  std::vector<float> big(B * N * mml);
  out = makeTensor(big.data(), TESSEL_DTYPE_F32, {B * N, mml}, {mml, 1});
  // The emu device ignores streams: any handle stands for one.
  tessel_stream s1 = reinterpret_cast<tessel_stream>(uintptr_t(0x1000));
  tessel_stream s2 = reinterpret_cast<tessel_stream>(uintptr_t(0x2000));
  uint64_t ws[4];
  tessel_stream order[4] = {nullptr, s1, s2, s1};
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(tessel_paged_mqa_logits(ctx, &q, &kv, &w, &cl, &bt, mml, 0, &out,
                                      order[i]),
              TESSEL_SUCCESS)
        << tessel_last_error();
    std::vector<FakeLaunch> l = takeLaunches();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].params[5], l[1].params[30]); // written, then read
    EXPECT_EQ(l[1].params[33], uint64_t(305 * 2));
    ws[i] = l[1].params[30];
  }
  EXPECT_NE(ws[0], ws[1]);
  EXPECT_NE(ws[0], ws[2]);
  EXPECT_NE(ws[1], ws[2]);
  EXPECT_EQ(ws[3], ws[1]);
}

// A split-grid variant reads no schedule: on a new stream it gets the
// default stream's workspace as its unused argument and nothing is
// allocated, so that its first launch there can be captured in a CUDA graph.
TEST_F(Logits, SplitGridLaunchesOnNewStreamsAllocateNoWorkspace) {
  tessel_stream s1 = reinterpret_cast<tessel_stream>(uintptr_t(0x3000));
  tessel_stream s2 = reinterpret_cast<tessel_stream>(uintptr_t(0x4000));
  tessel_stream order[3] = {nullptr, s1, s2};
  uint64_t ws[3];
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(tessel_paged_mqa_logits(ctx, &q, &kv, &w, &cl, &bt, mml, 0, &out,
                                      order[i]),
              TESSEL_SUCCESS)
        << tessel_last_error();
    std::vector<FakeLaunch> l = takeLaunches();
    ASSERT_EQ(l.size(), 1u); // no schedule launch: a split-grid variant
    ws[i] = l[0].params[30];
  }
  EXPECT_EQ(ws[1], ws[0]);
  EXPECT_EQ(ws[2], ws[0]);
}

TEST_F(Logits, EveryBadArgumentIsNamed) {
  expectBad([&] { q.dtype = TESSEL_DTYPE_FP8_E4M3FN; },
            "q: dtype fp8_e4m3fn is not the fp8 format of gfx942 "
            "(fp8_e4m3fnuz)");
  expectBad([&] { q.dtype = TESSEL_DTYPE_BF16; },
            "q: dtype must be uint8, fp8_e4m3fn or fp8_e4m3fnuz, got bf16");
  expectBad([&] { q.strides[2] = 256; },
            "q: must be contiguous; strides[2] = 256, expected 128");
  expectBad([&] { q.data = static_cast<uint8_t *>(q.data) + 8; },
            "is not 16-byte aligned");
  expectBad([&] { kv.shape[3] = 128; },
            "kv_cache: shape[3] (row_bytes) must be 132, got 128");
  expectBad([&] { cl.shape[0] = 3; },
            "context_lens: shape[0] = 3 does not match B = 2 (q shape[0])");
  expectBad([&] { cl.rank = 3; }, "context_lens: rank must be 1 or 2, got 3");
  expectBad([&] { bt.strides[0] = 3; },
            "block_tables: row stride 3 is smaller than a row (4 elements");
  expectBad([&] { out.strides[0] = 63; },
            "out: row stride 63 is smaller than a row (64 elements");
  expectBad([&] { out.dtype = TESSEL_DTYPE_F16; },
            "out: dtype must be f32, got f16");
  expectBad([&] { lens[1] = 65; },
            "context_lens[1] = 65 is greater than max_model_len = 64");
  expectBad([&] { tables[6 + 2] = -1; },
            "block_tables[1][2] = -1 is not a block of kv_cache");
  expectBad([&] {}, "paged_mqa_logits: flags 0x8 has unknown bits 0x8", 8);
  EXPECT_EQ(tessel_paged_mqa_logits(ctx, &q, &kv, &w, &cl, &bt, mml, 0, nullptr,
                                    nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("out is null"),
            std::string::npos);
  EXPECT_EQ(tessel_paged_mqa_logits(nullptr, &q, &kv, &w, &cl, &bt, mml, 0,
                                    &out, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("ctx is null"),
            std::string::npos);
  // An empty batch is a no-op.
  q.shape[0] = cl.shape[0] = bt.shape[0] = 0;
  w.shape[0] = out.shape[0] = 0;
  EXPECT_EQ(call(), TESSEL_SUCCESS) << tessel_last_error();
  EXPECT_TRUE(takeLaunches().empty());
}

TEST_F(Logits, MetadataChecksItsArguments) {
  std::vector<int32_t> sched(305 * 2, -7);
  tessel_tensor s =
      makeTensor(sched.data(), TESSEL_DTYPE_I32, {305, 2}, {2, 1});
  // num_cus 0 means the device's (304).
  ASSERT_EQ(tessel_paged_mqa_logits_metadata(ctx, &cl, 64, 0, &s, nullptr),
            TESSEL_SUCCESS)
      << tessel_last_error();
  std::vector<FakeLaunch> l = takeLaunches();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(int32_t(l[0].params[11]), 1);   // next_n of 1-D lengths
  EXPECT_EQ(int32_t(l[0].params[12]), 0);   // lens_2d
  EXPECT_EQ(int32_t(l[0].params[14]), 304); // num_cus
  EXPECT_EQ(tessel_paged_mqa_logits_metadata(ctx, &cl, 64, 8, &s, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error())
                .find("schedule: shape[0] = 305 must be num_cus+1 = 9"),
            std::string::npos)
      << tessel_last_error();
  EXPECT_EQ(tessel_paged_mqa_logits_metadata(ctx, &cl, 0, 0, &s, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error())
                .find("split_tokens must be in [1, 2147483647], got 0"),
            std::string::npos);
  lens[0] = -3;
  EXPECT_EQ(tessel_paged_mqa_logits_metadata(ctx, &cl, 64, 0, &s, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(tessel_last_error()).find("context_lens[0] = -3 is negative"),
      std::string::npos);
}

TEST(OpRegistry, DescribesEveryOpForBindings) {
  std::string json = tessel_op_registry_json();
  for (const char *op : {"indexer_k_cache_write", "paged_mqa_logits",
                         "paged_mqa_logits_metadata"}) {
    EXPECT_NE(json.find(std::string("\"name\": \"") + op + "\""),
              std::string::npos)
        << op;
    EXPECT_GE(tessel_op_find(op), 0) << op;
  }
  EXPECT_EQ(tessel_op_find("nope"), -1);
  // The output shape of the logits from its inputs and options.
  int op = tessel_op_find("paged_mqa_logits");
  std::vector<uint8_t> qb(2 * 3 * 64 * 128 + 16);
  tessel_tensor ts[6] = {};
  ts[0] = makeTensor(qb.data(), TESSEL_DTYPE_U8, {2, 3, 64, 128},
                     {3 * 64 * 128, 64 * 128, 128, 1});
  std::vector<uint8_t> kb(4 * 64 * 132);
  ts[1] = makeTensor(kb.data(), TESSEL_DTYPE_U8, {4, 64, 1, 132},
                     {64 * 132, 132, 132, 1});
  std::vector<float> wb(6 * 64);
  ts[2] = makeTensor(wb.data(), TESSEL_DTYPE_F32, {6, 64}, {64, 1});
  std::vector<int32_t> lb(2), tb(2 * 3);
  ts[3] = makeTensor(lb.data(), TESSEL_DTYPE_I32, {2}, {1});
  ts[4] = makeTensor(tb.data(), TESSEL_DTYPE_I32, {2, 3}, {3, 1});
  int64_t opts[3] = {1000, 0, 1};
  tessel_tensor shape{};
  ASSERT_EQ(tessel_op_output_shape(nullptr, op, ts, 6, opts, 3, 5, &shape),
            TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(shape.dtype, TESSEL_DTYPE_F32);
  ASSERT_EQ(shape.rank, 2);
  EXPECT_EQ(shape.shape[0], 6);
  EXPECT_EQ(shape.shape[1], 1000);
  EXPECT_EQ(shape.strides[0], 1000);
  EXPECT_EQ(tessel_op_output_shape(nullptr, op, ts, 6, opts, 3, 0, &shape),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_op_launch(nullptr, 99, ts, 6, opts, 3, nullptr),
            TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("no op with index 99"),
            std::string::npos);
}
