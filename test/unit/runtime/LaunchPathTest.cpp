//===- LaunchPathTest.cpp - The launch path on a stand-in CUDA driver -----===//
//
// Runs tessel_indexer_k_cache_write on the cuda backend over
// FakeCudaDriver.cpp (no GPU): the launch path allocates nothing once a
// shape has been seen, and the cached pick and plan launch the grid that the
// tuned table and the variants give, also after a bundle load changes them.
// Its own executable: the cuda backend binds one driver per process.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "Context.h"
#include "Device.h"
#include "ops/OpRegistry.h"
#include "tessel/topk_workspace.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#include <new>
#include <unistd.h>
#include <vector>

namespace {
std::atomic<bool> gCounting{false};
std::atomic<uint64_t> gAllocations{0};
} // namespace

// Every operator new of the process (the runtime is linked in statically),
// counted while gCounting is set.
void *operator new(size_t n) {
  if (gCounting.load(std::memory_order_relaxed))
    gAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void *operator new[](size_t n) { return operator new(n); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them), so
// that every allocation and free meet the same allocator, ASan's included.
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  if (gCounting.load(std::memory_order_relaxed))
    gAllocations.fetch_add(1, std::memory_order_relaxed);
  return malloc(n ? n : 1);
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept {
  return operator new(n, t);
}
// GCC pairs the library's calls of operator new with these free()s and
// warns; every operator new above is malloc, so they match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void *p, const std::nothrow_t &) noexcept { free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { free(p); }
void operator delete(void *p) noexcept { free(p); }
void operator delete[](void *p) noexcept { free(p); }
void operator delete(void *p, size_t) noexcept { free(p); }
void operator delete[](void *p, size_t) noexcept { free(p); }
#pragma GCC diagnostic pop

using namespace tessel_test;

namespace {

using LaunchesFn = uint64_t (*)(unsigned *);

/// A context on the fake driver, or null (the test then skips).
tessel_context *fakeCudaContext(LaunchesFn &launches) {
  tessel::setCudaLibraryNameForTesting(FAKE_CUDA_PATH);
  tessel_context *ctx = nullptr;
  if (tessel_context_create("cuda", 0, &ctx) != TESSEL_SUCCESS)
    return nullptr;
  void *h = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD);
  launches =
      h ? reinterpret_cast<LaunchesFn>(dlsym(h, "fakeCudaLaunches")) : nullptr;
  if (!launches) {
    // Another driver was bound first (a whole-binary run on a GPU host).
    tessel_context_destroy(ctx);
    return nullptr;
  }
  return ctx;
}

tessel::BundleEntry ptxEntry(int bf16, int tpp, int waves) {
  tessel::BundleEntry e = fakeIndexerEntry("sm_90", bf16, tpp, waves);
  e.format = tessel::CodeFormat::Ptx;
  e.code = ".version 8.0\n.target sm_90\n"; // the fake driver loads anything
  e.block[0] = 32 * waves;
  return e;
}

void loadEntries(tessel_context *ctx,
                 const std::vector<tessel::BundleEntry> &entries) {
  tessel::Bundle b;
  b.compilerVersion = "tessel-test 0";
  b.entries = entries;
  std::string path = writeBundle(b);
  ASSERT_EQ(tessel_context_load_bundle(ctx, path.c_str()), TESSEL_SUCCESS)
      << tessel_last_error();
  unlink(path.c_str());
}

/// The op's tensors. The fake driver never touches device memory, so the
/// data pointers are aligned addresses that nothing reads.
struct Buffers {
  tessel_tensor tk{}, ts{}, tc{};

  Buffers(int64_t numBlocks, int64_t blockSize) {
    tk.data = reinterpret_cast<void *>(uintptr_t(1) << 32);
    tk.dtype = TESSEL_DTYPE_BF16;
    tk.rank = 2;
    tk.shape[1] = 128;
    tk.strides[0] = 128;
    tk.strides[1] = 1;
    ts.data = reinterpret_cast<void *>(uintptr_t(2) << 32);
    ts.dtype = TESSEL_DTYPE_I64;
    ts.rank = 1;
    ts.strides[0] = 1;
    tc.data = reinterpret_cast<void *>(uintptr_t(3) << 32);
    tc.dtype = TESSEL_DTYPE_U8;
    tc.rank = 4;
    const int64_t shape[4] = {numBlocks, blockSize, 1, 132};
    const int64_t strides[4] = {blockSize * 132, 132, 132, 1};
    for (int i = 0; i < 4; ++i) {
      tc.shape[i] = shape[i];
      tc.strides[i] = strides[i];
    }
  }
  tessel_status call(tessel_context *ctx, int64_t tokens) {
    tk.shape[0] = tokens;
    ts.shape[0] = tokens;
    return tessel_indexer_k_cache_write(ctx, &tk, &ts, &tc, nullptr);
  }
};

/// Variants with tokens_per_program 16, 32, 64 (4 warps), bf16 and f32.
std::vector<tessel::BundleEntry> threeSizes() {
  std::vector<tessel::BundleEntry> es;
  for (int bf16 = 0; bf16 < 2; ++bf16)
    for (int tpp : {16, 32, 64})
      es.push_back(ptxEntry(bf16, tpp, 4));
  return es;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

// On CUDA the resident grid comes from the driver's occupancy calculator
// (the fake driver's SM holds 2048 threads) times the SM count (132).
TEST(LaunchPath, CudaResidentProgramsComeFromTheDriver) {
  LaunchesFn launches;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  tessel::Device *dev = nullptr;
  ASSERT_FALSE(tessel::acquireDevice("cuda", 0, tessel::Config(), &dev));
  tessel::BundleEntry e = ptxEntry(1, 4, 4); // 128 threads
  void *fn = nullptr;
  ASSERT_FALSE(dev->getFunction(e, &fn));
  int64_t n = 0;
  tessel::Status s = dev->maxResidentPrograms(e, fn, n);
  ASSERT_FALSE(s) << s.message();
  EXPECT_EQ(n, 2048 / 128 * 132);
  tessel_context_destroy(ctx);
}

TEST(LaunchPath, SeenShapesAllocateNothing) {
  LaunchesFn launches = nullptr;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  loadEntries(ctx, threeSizes());
  Buffers buf(64, 64);
  const int64_t shapes[] = {1, 7, 64, 1000, 4096};
  for (int64_t t : shapes) // first sight of each shape: pick and plan
    ASSERT_EQ(buf.call(ctx, t), TESSEL_SUCCESS) << tessel_last_error();
  uint64_t before = launches(nullptr);
  gAllocations = 0;
  gCounting = true;
  for (int i = 0; i < 1000; ++i)
    for (int64_t t : shapes)
      if (buf.call(ctx, t) != TESSEL_SUCCESS)
        break;
  gCounting = false;
  EXPECT_EQ(gAllocations.load(), 0u);
  EXPECT_EQ(launches(nullptr) - before, 5000u) << tessel_last_error();
  tessel_context_destroy(ctx);
}

// The table's sm_90 bf16 rows (runtime/tuned/indexer_k_cache_write.csv):
// buckets 1 .. 65536 take 16 tokens per program, 262144 takes 64.
TEST(LaunchPath, CachedPlansGiveTheTablesGrid) {
  LaunchesFn launches = nullptr;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  loadEntries(ctx, threeSizes());
  Buffers buf(4096, 64);
  struct Case {
    int64_t tokens, tpp;
  };
  const Case cases[] = {{1, 16},     {17, 16},     {4096, 16},
                        {65536, 16}, {262144, 64}, {200000, 64},
                        {17, 16},    {262144, 64}, {1, 16}};
  for (int round = 0; round < 2; ++round) // misses, then hits
    for (const Case &c : cases) {
      ASSERT_EQ(buf.call(ctx, c.tokens), TESSEL_SUCCESS) << tessel_last_error();
      unsigned grid[3];
      launches(grid);
      EXPECT_EQ(grid[0], unsigned(ceilDiv(c.tokens, c.tpp)))
          << "T = " << c.tokens << ", round " << round;
      EXPECT_EQ(grid[1], 1u);
      EXPECT_EQ(grid[2], 1u);
    }
  tessel_context_destroy(ctx);
}

// A bundle load rebuilds the dispatcher: plans cached before it are not
// taken (here the only variant left after a fresh context, 64 tokens per
// program, changes every grid).
TEST(LaunchPath, ABundleLoadRetiresCachedPlans) {
  LaunchesFn launches = nullptr;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  loadEntries(ctx, {ptxEntry(1, 64, 4)});
  Buffers buf(64, 64);
  unsigned grid[3];
  ASSERT_EQ(buf.call(ctx, 4096), TESSEL_SUCCESS) << tessel_last_error();
  launches(grid);
  EXPECT_EQ(grid[0], 64u); // no 16-token variant yet: 4096 / 64
  // The table's row for this bucket names 16 tokens per program.
  loadEntries(ctx, {ptxEntry(1, 16, 4)});
  ASSERT_EQ(buf.call(ctx, 4096), TESSEL_SUCCESS) << tessel_last_error();
  launches(grid);
  EXPECT_EQ(grid[0], 256u);
  // A second context at the same shapes plans for its own variants.
  tessel_context *other = nullptr;
  ASSERT_EQ(tessel_context_create("cuda", 0, &other), TESSEL_SUCCESS);
  loadEntries(other, {ptxEntry(1, 32, 4)});
  ASSERT_EQ(buf.call(other, 4096), TESSEL_SUCCESS) << tessel_last_error();
  launches(grid);
  EXPECT_EQ(grid[0], 128u);
  ASSERT_EQ(buf.call(ctx, 4096), TESSEL_SUCCESS) << tessel_last_error();
  launches(grid);
  EXPECT_EQ(grid[0], 256u);
  tessel_context_destroy(other);
  tessel_context_destroy(ctx);
}

/// A fake sm_90 topk_per_row variant (k = 2048) of `waves` warps.
tessel::BundleEntry topkEntry(int waves, int sorted, int persistent = 0) {
  const tessel::OpSpec *op = tessel::findOp("topk_per_row");
  tessel::BundleEntry e;
  e.name = "topk_per_row.k2048.w" + std::to_string(waves) + ".s" +
           std::to_string(sorted) + ".p" + std::to_string(persistent) +
           ".sm_90";
  e.kernel = "topk_per_row";
  e.target = "sm_90";
  e.format = tessel::CodeFormat::Ptx;
  e.knobs = {{"k", 2048},
             {"num_waves", waves},
             {"sorted", sorted},
             {"persistent", persistent}};
  if (op)
    e.args = tessel::opAbi(*op);
  e.block[0] = 32 * waves;
  e.resources = "{\"registers\":60}";
  e.sourceHash = "0123abcd";
  e.code = ".version 8.0\n.target sm_90\n";
  return e;
}

/// topk_per_row's tensors for k = 2048 (addresses nothing reads).
struct TopKTensors {
  tessel_tensor tl{}, tc{}, ti{};
  TopKTensors(int64_t rows, int64_t cols) {
    tl.data = reinterpret_cast<void *>(uintptr_t(1) << 32);
    tl.dtype = TESSEL_DTYPE_F32;
    tl.rank = 2;
    tl.shape[0] = rows;
    tl.shape[1] = cols;
    tl.strides[0] = cols;
    tl.strides[1] = 1;
    tc.data = reinterpret_cast<void *>(uintptr_t(2) << 32);
    tc.dtype = TESSEL_DTYPE_I32;
    tc.rank = 1;
    tc.shape[0] = rows;
    tc.strides[0] = 1;
    ti.data = reinterpret_cast<void *>(uintptr_t(3) << 32);
    ti.dtype = TESSEL_DTYPE_I32;
    ti.rank = 2;
    ti.shape[0] = rows;
    ti.shape[1] = 2048;
    ti.strides[0] = 2048;
    ti.strides[1] = 1;
  }
  tessel_status call(tessel_context *ctx, uint32_t flags,
                     tessel_stream stream = nullptr) {
    return tessel_topk_per_row(ctx, &tl, &tc, 1, 2048, flags, &ti, stream);
  }
};

/// A context on the fake driver, which reports each launch's grid and
/// workgroup; skips the test where another driver is bound.
class LaunchPathTopK : public ::testing::Test {
protected:
  using LastBlockFn = unsigned (*)();
  void SetUp() override {
    ctx = fakeCudaContext(launches);
    if (!ctx)
      GTEST_SKIP() << "the fake CUDA driver is not the one bound";
    lastBlock = reinterpret_cast<LastBlockFn>(dlsym(
        dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD), "fakeCudaLastBlock"));
    ASSERT_NE(lastBlock, nullptr);
  }
  void TearDown() override {
    if (ctx)
      tessel_context_destroy(ctx);
  }
  tessel_context *ctx = nullptr;
  LaunchesFn launches = nullptr;
  LastBlockFn lastBlock = nullptr;
};

// topk_per_row's sm_90 rows (runtime/tuned/topk_per_row.csv) pick the
// variant: persistent (grid (parts, R)) of 8 warps for up to 64 rows of 8k
// and 32k columns and up to 8 rows of 128k, of 16 warps for 64 rows of
// 128k; a row per workgroup of 8 warps for 256 rows.
TEST_F(LaunchPathTopK, TablePicksTheVariant) {
  ASSERT_NE(tessel::findOp("topk_per_row"), nullptr);
  loadEntries(ctx, {topkEntry(8, 0), topkEntry(16, 0), topkEntry(8, 0, 1),
                    topkEntry(16, 0, 1)});
  struct Case {
    int64_t rows, cols;
    unsigned block;
    bool persistent;
  };
  const Case cases[] = {{1, 32768, 256, true},    {8, 131072, 256, true},
                        {64, 100000, 512, true},  {1, 8192, 256, true},
                        {8, 8192, 256, true},     {256, 131072, 256, false},
                        {256, 32768, 256, false}, {200, 8192, 256, false}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols));
    TopKTensors t(c.rows, c.cols);
    ASSERT_EQ(t.call(ctx, 0), TESSEL_SUCCESS) << tessel_last_error();
    unsigned grid[3];
    launches(grid);
    EXPECT_EQ(grid[c.persistent ? 1 : 0], unsigned(c.rows));
    if (!c.persistent) {
      EXPECT_EQ(grid[1], 1u);
    }
    EXPECT_EQ(lastBlock(), c.block);
  }
}

// TESSEL_TOPK_SORTED is served only by variants with the sorted knob set:
// without one the call fails naming sorted=1; with a sorted variant of 16
// warps only, a sorted call whose table row asks for 8 warps takes the
// nearest row it serves (16 warps), while an unsorted call keeps its 8.
TEST_F(LaunchPathTopK, SortedCallsTakeSortedVariants) {
  loadEntries(ctx, {topkEntry(8, 0)});
  TopKTensors t(1, 8192);
  EXPECT_EQ(t.call(ctx, TESSEL_TOPK_STABLE | TESSEL_TOPK_SORTED),
            TESSEL_ERROR_NO_KERNEL);
  EXPECT_NE(std::string(tessel_last_error()).find("k=2048 sorted=1"),
            std::string::npos)
      << tessel_last_error();
  loadEntries(ctx, {topkEntry(16, 1)});
  ASSERT_EQ(t.call(ctx, TESSEL_TOPK_STABLE), TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(lastBlock(), 256u);
  ASSERT_EQ(t.call(ctx, TESSEL_TOPK_STABLE | TESSEL_TOPK_SORTED),
            TESSEL_SUCCESS)
      << tessel_last_error();
  EXPECT_EQ(lastBlock(), 512u);
}

// ---- the persistent (split) variant ---------------------------------------

/// topk_per_row's table header (runtime/tuned/topk_per_row.csv).
const char *kTopKHeader =
    "arch,cu_num,k,rows,cols,kernel,num_waves,persistent,parts,us\n";

/// Contexts on the fake driver whose topk_per_row table is the header and
/// `rows` (other ops keep their built-in tables); the fake SM holds 2048
/// threads, so 4 programs of 16 warps (528 on the 132 SMs).
class LaunchPathTopKSplit : public ::testing::Test {
protected:
  static constexpr int64_t kResident16 = 2048 / 512 * 132;
  using ParamFn = uint64_t (*)(unsigned);
  using KeepFn = void (*)(unsigned);
  using AllocsFn = uint64_t (*)();

  void SetUp() override {
    LaunchesFn probe = nullptr;
    tessel_context *c = fakeCudaContext(probe);
    if (!c)
      GTEST_SKIP() << "the fake CUDA driver is not the one bound";
    tessel_context_destroy(c);
    void *driver = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD);
    lastParam = reinterpret_cast<ParamFn>(dlsym(driver, "fakeCudaLastParam"));
    keepParams = reinterpret_cast<KeepFn>(dlsym(driver, "fakeCudaKeepParams"));
    allocs = reinterpret_cast<AllocsFn>(dlsym(driver, "fakeCudaAllocs"));
    ASSERT_NE(allocs, nullptr);
    ASSERT_NE(lastParam, nullptr);
    ASSERT_NE(keepParams, nullptr);
    keepParams(kParams);
  }
  void TearDown() override {
    if (keepParams)
      keepParams(0);
    if (ctx)
      tessel_context_destroy(ctx);
  }
  /// Replaces ctx by a context with `rows` as its topk_per_row table and
  /// `entries` loaded.
  void useTable(const std::string &rows,
                const std::vector<tessel::BundleEntry> &entries) {
    if (ctx)
      tessel_context_destroy(ctx);
    ctx = nullptr;
    char dir[] = "/tmp/tessel-topk-table-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string file = std::string(dir) + "/topk_per_row.csv";
    ASSERT_TRUE(writeBytes(file, kTopKHeader + rows));
    ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", dir), TESSEL_SUCCESS);
    ctx = fakeCudaContext(launches);
    tessel_config_set("TESSEL_TUNED_DIR", "");
    unlink(file.c_str());
    rmdir(dir);
    ASSERT_NE(ctx, nullptr) << tessel_last_error();
    loadEntries(ctx, entries);
  }
  struct Launch {
    unsigned grid[3];
    uint64_t parts, workspace, workspaceWords;
  };
  Launch call(int64_t rows, int64_t cols, tessel_stream stream = nullptr) {
    TopKTensors t(rows, cols);
    Launch l{};
    EXPECT_EQ(t.call(ctx, 0, stream), TESSEL_SUCCESS) << tessel_last_error();
    launches(l.grid);
    l.parts = lastParam(kPartsParam);
    l.workspace = lastParam(kWorkspaceParam);
    l.workspaceWords = lastParam(kWorkspaceParam + 3);
    return l;
  }
  static bool allZero(uint64_t p, uint64_t bytes) {
    const unsigned char *b = reinterpret_cast<const unsigned char *>(p);
    for (uint64_t i = 0; i < bytes; ++i)
      if (b[i])
        return false;
    return true;
  }

  // The flattened parameters: three memrefs of 5, five scalars, the
  // workspace memref, parts.
  static constexpr unsigned kWorkspaceParam = 3 * 5 + 5;
  static constexpr unsigned kPartsParam = kWorkspaceParam + 5;
  static constexpr unsigned kParams = kPartsParam + 1;
  tessel_context *ctx = nullptr;
  LaunchesFn launches = nullptr;
  ParamFn lastParam = nullptr;
  KeepFn keepParams = nullptr;
  AllocsFn allocs = nullptr;
};

// Without a row the heuristic takes the persistent variant for R <= 8 and
// L >= 16384, on the grid (parts, R) with parts = min(ceil(L / 4096), 32,
// 528 / R) for 16 warps; the one-workgroup variant elsewhere.
TEST_F(LaunchPathTopKSplit, HeuristicAndThePartsRule) {
  useTable("", {topkEntry(16, 0, 0), topkEntry(16, 0, 1)});
  struct Case {
    int64_t rows, cols;
    unsigned parts; // 0: the one-workgroup grid (rows)
  };
  const Case cases[] = {
      {1, 16384, 4},    // 4 chunks
      {8, 131072, 32},  // 32 chunks, 66 resident per row
      {8, 1 << 20, 32}, // 256 chunks: the rule's 32
      {2, 4000000, 32}, // 977 chunks, 264 resident
      {1, 16385, 5},    // a partial last chunk
      {9, 131072, 0},   // more rows
      {8, 16383, 0},    // shorter rows
      {64, 1 << 20, 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols));
    Launch l = call(c.rows, c.cols);
    if (c.parts) {
      EXPECT_EQ(l.grid[0], c.parts);
      EXPECT_EQ(l.grid[1], unsigned(c.rows));
      EXPECT_EQ(l.parts, c.parts);
    } else {
      EXPECT_EQ(l.grid[0], unsigned(c.rows));
      EXPECT_EQ(l.grid[1], 1u);
      EXPECT_EQ(l.parts, 1u);
    }
    EXPECT_EQ(l.grid[2], 1u);
  }
}

// A row names the persistent variant and may fix parts (still bounded by
// what is resident); calls of more rows than it serves pass it over.
TEST_F(LaunchPathTopKSplit, TableRowsForceTheVariantAndParts) {
  const std::vector<tessel::BundleEntry> both = {topkEntry(16, 0, 0),
                                                 topkEntry(16, 0, 1)};
  useTable("sm_90,132,2048,1,1,topk_per_row,16,1,5,0\n", both);
  Launch l = call(3, 100000);
  EXPECT_EQ(l.grid[0], 5u);
  EXPECT_EQ(l.grid[1], 3u);
  EXPECT_EQ(l.parts, 5u);
  l = call(65, 100000);
  EXPECT_EQ(l.grid[0], 65u);
  EXPECT_EQ(l.grid[1], 1u);
  useTable("sm_90,132,2048,1,1,topk_per_row,16,1,1000,0\n", both);
  l = call(3, 100000);
  EXPECT_EQ(l.grid[0], unsigned(kResident16 / 3)); // 176 < 256
  EXPECT_EQ(l.grid[1], 3u);
  l = call(1, 100000);
  EXPECT_EQ(l.grid[0], 256u); // 528 resident: the workspace's 256
  // A row of the one-workgroup variant keeps it even for few long rows.
  useTable("sm_90,132,2048,1,1,topk_per_row,16,0,0,0\n", both);
  l = call(1, 1 << 20);
  EXPECT_EQ(l.grid[0], 1u);
  EXPECT_EQ(l.grid[1], 1u);
}

// With the persistent variant alone, a call of more rows than its
// workspace holds fails and names the limit.
TEST_F(LaunchPathTopKSplit, TooManyRowsNameTheLimit) {
  useTable("", {topkEntry(16, 0, 1)});
  TopKTensors t(65, 8192);
  EXPECT_EQ(t.call(ctx, 0), TESSEL_ERROR_NO_KERNEL);
  EXPECT_NE(std::string(tessel_last_error()).find("at most 64 rows"),
            std::string::npos)
      << tessel_last_error();
  Launch l = call(64, 8192);
  EXPECT_EQ(l.grid[1], 64u);
  EXPECT_EQ(l.grid[0], 2u); // 2 chunks; 528 / 64 = 8 would be resident
}

// The workspace is zero when allocated (the fake driver's fresh memory is
// not): the default stream's at bundle load, another stream's at its first
// persistent launch, reused after; one-workgroup launches on a new stream
// get the default stream's buffer and allocate nothing.
TEST_F(LaunchPathTopKSplit, WorkspacesStartZero) {
  useTable("", {topkEntry(16, 0, 0), topkEntry(16, 0, 1)});
  const uint64_t bytes = tessel::topk::kSplitWorkspaceBytes;
  Launch first = call(1, 65536);
  ASSERT_EQ(first.grid[1], 1u);
  ASSERT_EQ(first.grid[0], 16u);
  EXPECT_EQ(first.workspaceWords, bytes / 4);
  EXPECT_TRUE(allZero(first.workspace, bytes));
  tessel_stream s = reinterpret_cast<tessel_stream>(uintptr_t(0x5000));
  Launch other = call(2, 65536, s);
  EXPECT_NE(other.workspace, first.workspace);
  EXPECT_TRUE(allZero(other.workspace, bytes));
  EXPECT_EQ(call(1, 65536, s).workspace, other.workspace);
  tessel_stream plain = reinterpret_cast<tessel_stream>(uintptr_t(0x6000));
  EXPECT_EQ(call(100, 8192, plain).workspace, first.workspace);
}

// The first kSpareStreamWorkspaces new streams take spare workspaces made
// with the default stream's, so their first persistent launch allocates
// nothing (it may be inside a CUDA-graph capture, where allocating fails);
// the next new stream allocates its own, zeroed too.
TEST_F(LaunchPathTopKSplit, FirstNewStreamsTakeSpareWorkspaces) {
  useTable("", {topkEntry(16, 0, 1)});
  const uint64_t bytes = tessel::topk::kSplitWorkspaceBytes;
  const uint64_t before = allocs();
  std::vector<uint64_t> seen = {call(1, 65536).workspace};
  for (int i = 0; i < tessel::kSpareStreamWorkspaces; ++i) {
    auto s = reinterpret_cast<tessel_stream>(uintptr_t(0x7000 + 16 * i));
    Launch l = call(1, 65536, s);
    EXPECT_TRUE(allZero(l.workspace, bytes));
    for (uint64_t w : seen)
      EXPECT_NE(l.workspace, w) << "stream " << i << " shares a workspace";
    seen.push_back(l.workspace);
  }
  EXPECT_EQ(allocs(), before) << "a spare stream's first launch allocated";
  Launch extra = call(1, 65536, reinterpret_cast<tessel_stream>(0x8000));
  EXPECT_EQ(allocs(), before + 1);
  EXPECT_TRUE(allZero(extra.workspace, bytes));
  for (uint64_t w : seen)
    EXPECT_NE(extra.workspace, w);
}

// Validation still runs on every call, cached plan or not.
TEST(LaunchPath, CachedShapesAreStillValidated) {
  LaunchesFn launches = nullptr;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  loadEntries(ctx, threeSizes());
  Buffers buf(64, 64);
  ASSERT_EQ(buf.call(ctx, 64), TESSEL_SUCCESS) << tessel_last_error();
  buf.tk.strides[1] = 2;
  EXPECT_EQ(buf.call(ctx, 64), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("k: inner stride must be 1"),
            std::string::npos)
      << tessel_last_error();
  buf.tk.strides[1] = 1;
  buf.tk.data = static_cast<char *>(buf.tk.data) + 2;
  EXPECT_EQ(buf.call(ctx, 64), TESSEL_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessel_last_error()).find("not 16-byte aligned"),
            std::string::npos)
      << tessel_last_error();
  tessel_context_destroy(ctx);
}

// A call whose device, options, dtypes, shapes and strides validated before
// reuses that validation: its own data pointers still reach the kernel and
// are still checked, and a change to anything else is validated afresh.
TEST(LaunchPath, RepeatedSignaturesAreStillChecked) {
  LaunchesFn launches = nullptr;
  tessel_context *ctx = fakeCudaContext(launches);
  if (!ctx)
    GTEST_SKIP() << "the fake CUDA driver is not the one bound";
  void *driver = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD);
  auto lastParam = reinterpret_cast<uint64_t (*)(unsigned)>(
      dlsym(driver, "fakeCudaLastParam"));
  auto keepParams =
      reinterpret_cast<void (*)(unsigned)>(dlsym(driver, "fakeCudaKeepParams"));
  ASSERT_NE(lastParam, nullptr);
  ASSERT_NE(keepParams, nullptr);
  keepParams(12); // of the writer's 19
  loadEntries(ctx, threeSizes());
  Buffers buf(64, 8);
  auto expectError = [&](tessel_status got, const char *text) {
    EXPECT_EQ(got, TESSEL_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tessel_last_error()).find(text), std::string::npos)
        << tessel_last_error();
  };
  ASSERT_EQ(buf.call(ctx, 64), TESSEL_SUCCESS) << tessel_last_error();
  // New data pointers: k's memref is the kernel's parameters 0 and 1, the
  // cache's 10 and 11.
  buf.tk.data = reinterpret_cast<void *>(uintptr_t(5) << 32);
  buf.tc.data = reinterpret_cast<void *>(uintptr_t(6) << 32);
  ASSERT_EQ(buf.call(ctx, 64), TESSEL_SUCCESS) << tessel_last_error();
  EXPECT_EQ(lastParam(0), uintptr_t(5) << 32);
  EXPECT_EQ(lastParam(1), uintptr_t(5) << 32);
  EXPECT_EQ(lastParam(10), uintptr_t(6) << 32);
  void *slots = buf.ts.data;
  buf.ts.data = nullptr;
  expectError(buf.call(ctx, 64), "slot_mapping: data is null");
  buf.ts.data = static_cast<char *>(slots) + 4;
  expectError(buf.call(ctx, 64), "slot_mapping: data");
  buf.ts.data = slots;
  // An option is part of what was validated: block_size 8 cannot be
  // preshuffled.
  const tessel_k_cache_write_options preshuffle{1, TESSEL_SCALE_FMT_F32};
  expectError(tessel_indexer_k_cache_write_opts(ctx, &buf.tk, &buf.ts, &buf.tc,
                                                &preshuffle, nullptr),
              "block_size % 16 == 0");
  // So are shapes and dtypes.
  buf.ts.shape[0] = 63;
  expectError(
      tessel_indexer_k_cache_write(ctx, &buf.tk, &buf.ts, &buf.tc, nullptr),
      "does not match");
  buf.ts.dtype = TESSEL_DTYPE_I32;
  expectError(buf.call(ctx, 64), "slot_mapping: dtype must be");
  buf.ts.dtype = TESSEL_DTYPE_I64;
  const uint64_t before = launches(nullptr);
  EXPECT_EQ(buf.call(ctx, 64), TESSEL_SUCCESS) << tessel_last_error();
  EXPECT_EQ(launches(nullptr), before + 1);
  keepParams(0);
  tessel_context_destroy(ctx);
}
