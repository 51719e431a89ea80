//===- TunedTableTest.cpp - CSV parsing and the dispatcher's lookup -------===//

#include "TunedTable.h"
#include "Context.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>
#include <sys/stat.h>

using namespace tessel;
using namespace tessel_test;

namespace {

const OpSpec &indexerOp() { return *findOp("indexer_k_cache_write"); }

const char *kHeader = "arch,cu_num,head_dim,kv_block_size,k_dtype,preshuffle,"
                      "tokens,kernel,tokens_per_program,num_waves,"
                      "waves_per_eu,us,tbps\n";

Status parse(const std::string &body, TunedTable &t) {
  return parseTunedTable(std::string(kHeader) + body, "t.csv",
                         indexerOp().schema, t);
}

std::string parseError(const std::string &text) {
  TunedTable t;
  Status s = parseTunedTable(text, "bad.csv", indexerOp().schema, t);
  EXPECT_FALSE(s.isOk()) << text;
  EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
  return s.message();
}

// Variants the tests dispatch to (no device: fn stays null).
struct Fixture {
  std::vector<BundleEntry> entries;
  std::vector<std::unique_ptr<Variant>> variants;
  std::vector<const Variant *> ptrs;
  void add(int bf16, int tpp, int waves = 1) {
    entries.push_back(fakeIndexerEntry("gfx942", bf16, tpp, waves));
  }
  void finish() {
    for (auto &e : entries) {
      variants.push_back(std::make_unique<Variant>());
      variants.back()->entry = &e;
      ptrs.push_back(variants.back().get());
    }
  }
};

// A call of the indexer op as the dispatcher sees it.
OpCall key(int64_t tokens, int cu = 304, int bf16 = 1, int64_t bs = 64) {
  const OpSpec &op = indexerOp();
  OpCall c;
  c.op = &op;
  c.cuNum = cu;
  c.set(op.symbol("T"), tokens);
  c.set(op.symbol("head_dim"), 128);
  c.set(op.symbol("block_size"), bs);
  c.set(op.symbol("k_bf16"), bf16);
  c.set(op.symbol("preshuffle"), 0);
  c.set(op.symbol("scale_fmt"), 0);
  return c;
}

OpPick pick(const OpDispatch &d, OpCall c) { return d.pick(c); }

} // namespace

TEST(TunedTable, ParsesCommentsBlanksSpacesAndColumnOrder) {
  TunedTable t;
  std::string text = "# comment\n\n"
                     "tokens, arch ,cu_num,head_dim,kv_block_size,k_dtype,"
                     "preshuffle,kernel,tokens_per_program,num_waves,"
                     "waves_per_eu,us,tbps\r\n"
                     "  # indented comment\n"
                     "64, gfx942 ,304,128,64,bf16,0,kern,4,2,1,3.5,1.25\r\n";
  Status s = parseTunedTable(text, "x.csv", indexerOp().schema, t);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(t.rows.size(), 1u);
  const auto &c = t.rows[0].cells; // schema order
  EXPECT_EQ(c[0].s, "gfx942");
  EXPECT_EQ(c[1].i, 304);
  EXPECT_EQ(c[6].i, 64);
  EXPECT_EQ(c[7].s, "kern");
  EXPECT_EQ(c[8].i, 4);
  EXPECT_DOUBLE_EQ(c[11].d, 3.5);
  EXPECT_DOUBLE_EQ(c[12].d, 1.25);
  EXPECT_EQ(t.rows[0].line, 5);
}

TEST(TunedTable, MalformedFilesNameFileLineAndColumn) {
  std::string h = kHeader;
  // A non-integer in column 2 of line 2 (field starts at character 8).
  EXPECT_NE(parseError(h + "gfx942,30x,128,64,bf16,0,1,k,1,1,0,0,0\n")
                .find("bad.csv:2:8: column 'cu_num': expected an integer, "
                      "found '30x'"),
            std::string::npos);
  // Too few fields.
  EXPECT_NE(parseError(h + "gfx942,304\n")
                .find("bad.csv:2:11: expected 13 "
                      "fields, found 2"),
            std::string::npos);
  // Too many fields: the column of the first extra one.
  EXPECT_NE(parseError(h + "gfx942,304,128,64,bf16,0,1,k,1,1,0,0,0,9\n")
                .find("bad.csv:2:40: expected 13 fields, found 14"),
            std::string::npos);
  // Unknown and missing header columns.
  EXPECT_NE(parseError("arch,cu_num,bogus\n")
                .find("bad.csv:1:13: unknown column 'bogus'"),
            std::string::npos);
  EXPECT_NE(parseError("arch,cu_num\n").find("header lacks column 'head_dim'"),
            std::string::npos);
  EXPECT_NE(parseError("arch,arch\n").find("bad.csv:1:6: duplicate column"),
            std::string::npos);
  // Negative and non-finite reals, values below the minimum, bad names.
  EXPECT_NE(parseError(h + "\ngfx942,304,128,64,bf16,0,1,k,1,1,0,-1,0\n")
                .find("bad.csv:3:36: column 'us'"),
            std::string::npos);
  EXPECT_NE(parseError(h + "gfx942,304,128,64,bf16,0,1,k,1,1,0,0,inf\n")
                .find("column 'tbps'"),
            std::string::npos);
  EXPECT_NE(parseError(h + "gfx942,304,128,64,bf16,0,0,k,1,1,0,0,0\n")
                .find("bad.csv:2:26: column 'tokens': 0 is below the "
                      "minimum 1"),
            std::string::npos);
  EXPECT_NE(parseError(h + "gfx 942,304,128,64,bf16,0,1,k,1,1,0,0,0\n")
                .find("bad.csv:2:1: column 'arch': expected a name"),
            std::string::npos);
  EXPECT_NE(parseError(h + "gfx942,99999999999999999999,128,64,bf16,0,1,k,"
                           "1,1,0,0,0\n")
                .find("bad.csv:2:8"),
            std::string::npos);
  EXPECT_NE(parseError("# only comments\n").find("no header line"),
            std::string::npos);
  EXPECT_NE(parseError(h + "gfx942,304\x01,128\n")
                .find("bad.csv:2:11: "
                      "control character"),
            std::string::npos);
}

TEST(TunedTable, BuiltInTablesParse) {
  TunedTable t;
  Status s = loadTunedTable("", indexerOp().schema, t);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_GT(t.rows.size(), 0u);
  s = loadTunedTable("", findOp("paged_mqa_logits")->schema, t);
  EXPECT_TRUE(s.isOk()) << s.message();
}

TEST(TunedTable, TunedDirOverridesAndReportsErrors) {
  std::string dir = tempPath("tessel-tuned");
  unlink(dir.c_str());
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  std::string file = dir + "/indexer_k_cache_write.csv";
  ASSERT_TRUE(writeBytes(file, std::string(kHeader) +
                                   "gfx950,1,128,16,f32,0,8,k,2,1,0,0,0\n"));
  TunedTable t;
  Status s = loadTunedTable(dir, indexerOp().schema, t);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].cells[3].i, 16);
  ASSERT_TRUE(writeBytes(file, std::string(kHeader) + "gfx950,1\n"));
  s = loadTunedTable(dir, indexerOp().schema, t);
  EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
  EXPECT_NE(s.message().find(file + ":2:"), std::string::npos) << s.message();
  unlink(file.c_str());
  rmdir(dir.c_str());
}

TEST(TunedTable, ConflictingRowsNameBothLines) {
  TunedTable t;
  // Same key (the value columns differ): the second row is an error.
  Status s = parse("gfx942,304,128,64,bf16,0,8,k,1,1,0,0,0\n"
                   "gfx942,304,128,64,f32,0,8,k,1,1,0,0,0\n"
                   "gfx942,304,128,64,bf16,0,8,k,4,2,0,1.5,0\n",
                   t);
  EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
  EXPECT_NE(s.message().find("t.csv:4:1: row has the same key as line 2 "
                             "(arch=gfx942 cu_num=304 head_dim=128 "
                             "kv_block_size=64 k_dtype=bf16 preshuffle=0 "
                             "tokens=8)"),
            std::string::npos)
      << s.message();
  // Rows that differ in any key column are fine.
  s = parse("gfx942,304,128,64,bf16,0,8,k,1,1,0,0,0\n"
            "gfx942,304,128,64,bf16,1,8,k,1,1,0,0,0\n"
            "gfx950,304,128,64,bf16,0,8,k,1,1,0,0,0\n",
            t);
  EXPECT_TRUE(s.isOk()) << s.message();
}

namespace {
// A temp folder for TESSEL_TUNED_DIR, removed afterwards.
struct TunedDir {
  std::string path;
  TunedDir() {
    path = tempPath("tessel-tuned");
    unlink(path.c_str());
    mkdir(path.c_str(), 0700);
  }
  ~TunedDir() {
    std::string cmd = "rm -rf '" + path + "'";
    (void)!system(cmd.c_str());
  }
  std::string file(const char *name) const { return path + "/" + name; }
};
} // namespace

TEST(TunedTable, MissingTunedDirIsAnError) {
  TunedTable t;
  Status s = loadTunedTable("/nonexistent/tessel-tuned", indexerOp().schema, t);
  EXPECT_EQ(s.code(), TESSEL_ERROR_IO);
  EXPECT_NE(s.message().find("TESSEL_TUNED_DIR '/nonexistent/tessel-tuned': "
                             "No such file or directory"),
            std::string::npos)
      << s.message();
  TunedDir d;
  std::string notDir = d.file("plain");
  ASSERT_TRUE(writeBytes(notDir, "x"));
  s = loadTunedTable(notDir, indexerOp().schema, t);
  EXPECT_NE(
      s.message().find("TESSEL_TUNED_DIR '" + notDir + "' is not a directory"),
      std::string::npos)
      << s.message();
}

TEST(TunedTable, BrokenSymlinkIsAnError) {
  TunedDir d;
  std::string csv = d.file("indexer_k_cache_write.csv");
  ASSERT_EQ(0, symlink((d.path + "/gone.csv").c_str(), csv.c_str()));
  TunedTable t;
  Status s = loadTunedTable(d.path, indexerOp().schema, t);
  EXPECT_EQ(s.code(), TESSEL_ERROR_IO);
  EXPECT_NE(
      s.message().find("tuned table '" + csv + "' is a broken symbolic link"),
      std::string::npos)
      << s.message();
}

TEST(TunedTable, MissingTableFallsBackWithANote) {
  TunedDir d;
  TunedTable t;
  std::string note;
  Status s = loadTunedTable(d.path, indexerOp().schema, t, &note);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(t.file, "<built-in>/indexer_k_cache_write.csv");
  EXPECT_EQ(note, "TESSEL_TUNED_DIR '" + d.path +
                      "' has no indexer_k_cache_write.csv; using the "
                      "built-in table");
}

TEST(TunedTable, EveryTableIsValidatedAtLoad) {
  TunedDir d;
  ASSERT_TRUE(writeBytes(d.file("indexer_k_cache_write.csv"),
                         std::string(kHeader) +
                             "gfx950,1,128,16,f32,0,8,k,2,1,0,0,0\n"));
  // The paged_mqa_logits table is broken, though no op reads it yet.
  ASSERT_TRUE(writeBytes(d.file("paged_mqa_logits.csv"), "arch,heads\n"));
  std::vector<TunedTable> tables;
  std::vector<std::string> notes;
  Status s = loadTunedTables(d.path, tables, notes);
  EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
  EXPECT_NE(s.message().find(d.file("paged_mqa_logits.csv") +
                             ":1:1: header lacks column 'cu_num'"),
            std::string::npos)
      << s.message();

  // So does context creation.
  ASSERT_EQ(tessel_config_set("TESSEL_EMU_LIBRARY", FAKE_EMU_PATH),
            TESSEL_SUCCESS);
  ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", d.path.c_str()),
            TESSEL_SUCCESS);
  tessel_context *ctx = nullptr;
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_TABLE);
  EXPECT_NE(std::string(tessel_last_error()).find("paged_mqa_logits.csv:1:1:"),
            std::string::npos)
      << tessel_last_error();
  // A missing folder fails context creation instead of falling back.
  ASSERT_EQ(tessel_config_set("TESSEL_TUNED_DIR", "/nonexistent/tuned"),
            TESSEL_SUCCESS);
  EXPECT_EQ(tessel_context_create("emu", 0, &ctx), TESSEL_ERROR_IO);
  EXPECT_NE(std::string(tessel_last_error())
                .find("TESSEL_TUNED_DIR '/nonexistent/tuned'"),
            std::string::npos)
      << tessel_last_error();
  tessel_config_set("TESSEL_TUNED_DIR", "");
}

TEST(TunedTable, TableForNoOpIsAnError) {
  TunedDir d;
  ASSERT_TRUE(writeBytes(d.file("indexer_k_cache_writ.csv"), kHeader));
  std::vector<TunedTable> tables;
  std::vector<std::string> notes;
  Status s = loadTunedTables(d.path, tables, notes);
  EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
  EXPECT_NE(s.message().find("tuned table '" +
                             d.file("indexer_k_cache_writ."
                                    "csv") +
                             "' names no op (tables: <op>.csv for "
                             "indexer_k_cache_write, paged_mqa_logits, "
                             "topk_per_row)"),
            std::string::npos)
      << s.message();
  // Without it, every table falls back to the built-in one, with notes.
  ASSERT_EQ(0, unlink(d.file("indexer_k_cache_writ.csv").c_str()));
  notes.clear();
  s = loadTunedTables(d.path, tables, notes);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(tables.size(), 3u);
  EXPECT_EQ(notes.size(), 3u);
}

TEST(TunedTable, RoundUpPow2) {
  EXPECT_EQ(roundUpPow2(0), 1);
  EXPECT_EQ(roundUpPow2(1), 1);
  EXPECT_EQ(roundUpPow2(3), 4);
  EXPECT_EQ(roundUpPow2(64), 64);
  EXPECT_EQ(roundUpPow2(65), 128);
}

TEST(Dispatch, ExactThenNearestBucketThenHeuristic) {
  Fixture f;
  f.add(1, 1);
  f.add(1, 4);
  f.add(1, 8, 2);
  f.add(0, 1);
  f.finish();
  TunedTable t;
  Status s =
      parse("gfx942,304,128,64,bf16,0,16,indexer_k_cache_write,1,1,0,0,0\n"
            "gfx942,304,128,64,bf16,0,1024,indexer_k_cache_write,4,1,0,0,0\n"
            "gfx942,304,128,64,bf16,0,8192,indexer_k_cache_write,8,2,0,0,0\n"
            "gfx950,256,128,64,bf16,0,16,indexer_k_cache_write,4,1,0,0,0\n",
            t);
  ASSERT_TRUE(s.isOk()) << s.message();
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(indexerOp(), t, "gfx942", f.ptrs, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(d.rows().size(), 3u); // the gfx950 row is another arch

  OpPick p = pick(d, key(1024));
  EXPECT_EQ(p.rule, PickRule::Exact);
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.variant, f.ptrs[1]);

  // 700 tokens -> bucket 1024 (power of two above).
  p = pick(d, key(700));
  EXPECT_EQ(p.rule, PickRule::Nearest);
  EXPECT_EQ(p.line, 3);
  // 3000 -> bucket 4096: absent; nearest in log2 are 1024 (2 away) and 8192
  // (1 away) -> 8192.
  p = pick(d, key(3000));
  EXPECT_EQ(p.rule, PickRule::Nearest);
  EXPECT_EQ(p.line, 4);
  EXPECT_EQ(p.variant, f.ptrs[2]);
  // 128 -> bucket 128: 16 is 3 away, 1024 is 3 away: the tie goes to the
  // larger bucket.
  p = pick(d, key(128));
  EXPECT_EQ(p.line, 3);
  // A different CU count uses the nearest CU count's rows.
  p = pick(d, key(16, 80));
  EXPECT_EQ(p.rule, PickRule::Nearest);
  EXPECT_EQ(p.line, 2);

  // No row for f32: the heuristic. T=10000, cu=304: cap = 10000/608 = 16 ->
  // largest tokens_per_program <= 16 among f32 variants = 1.
  p = pick(d, key(10000, 304, 0));
  EXPECT_EQ(p.rule, PickRule::Heuristic);
  EXPECT_EQ(p.variant, f.ptrs[3]);
  // No row for block size 16: heuristic over bf16 variants.
  // T=5000: cap = 5000/608 = 8 -> tpp 8.
  p = pick(d, key(5000, 304, 1, 16));
  EXPECT_EQ(p.rule, PickRule::Heuristic);
  EXPECT_EQ(p.variant, f.ptrs[2]);
  // T=2000: cap = 3 -> rounded down to 2 -> largest tpp <= 2 is 1.
  p = pick(d, key(2000, 304, 1, 16));
  EXPECT_EQ(p.variant, f.ptrs[0]);
  // T=3000: cap = 4 -> tpp 4.
  p = pick(d, key(3000, 304, 1, 16));
  EXPECT_EQ(p.variant, f.ptrs[1]);
}

TEST(Dispatch, RowsWithoutAVariantAreSkippedWithAWarning) {
  Fixture f;
  f.add(1, 1);
  f.finish();
  TunedTable t;
  ASSERT_TRUE(
      parse("gfx942,304,128,64,bf16,0,16,indexer_k_cache_write,2,1,0,0,0\n"
            "gfx942,304,128,64,bf16,0,32,other_kernel,1,1,0,0,0\n"
            "gfx942,304,128,64,fp16,0,32,indexer_k_cache_write,1,1,0,0,0\n",
            t)
          .isOk());
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(indexerOp(), t, "gfx942", f.ptrs, warnings);
  EXPECT_TRUE(d.rows().empty());
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("t.csv:2:"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("tokens_per_program=2"), std::string::npos);
  EXPECT_NE(warnings[2].find("k_dtype 'fp16'"), std::string::npos);
  OpPick p = pick(d, key(16));
  EXPECT_EQ(p.rule, PickRule::Heuristic);
  EXPECT_EQ(p.variant, f.ptrs[0]);
}

// A bucket key need not be a power of two: the exact rule compares the
// call's own value, so a row for exactly that shape (as a one-row table
// that forces a variant writes) is taken by it; only the nearest rule reads
// keys as log2 buckets.
TEST(Dispatch, ExactRowsMayHoldAnyBucketValue) {
  Fixture f;
  f.add(1, 1);
  f.add(1, 4);
  f.finish();
  TunedTable t;
  ASSERT_TRUE(
      parse("gfx942,304,128,64,bf16,0,1000,indexer_k_cache_write,4,1,0,0,0\n"
            "gfx942,304,128,64,bf16,0,1024,indexer_k_cache_write,1,1,0,0,0\n",
            t)
          .isOk());
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(indexerOp(), t, "gfx942", f.ptrs, warnings);
  EXPECT_TRUE(warnings.empty());
  OpPick p = pick(d, key(1000));
  EXPECT_EQ(p.rule, PickRule::Exact);
  EXPECT_EQ(p.variant, f.ptrs[1]);
  p = pick(d, key(1001));
  EXPECT_EQ(p.rule, PickRule::Nearest);
  EXPECT_EQ(p.variant, f.ptrs[0]);
}

TEST(Dispatch, HeuristicTiesGoToMoreWaves) {
  Fixture f;
  f.add(1, 16, 1);
  f.add(1, 16, 4);
  f.add(1, 16, 2);
  f.add(1, 64, 1);
  f.add(1, 64, 4);
  f.finish();
  TunedTable t;
  ASSERT_TRUE(parse("", t).isOk());
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(indexerOp(), t, "gfx942", f.ptrs, warnings);
  // T=40000, cu=304: cap = 40000/608 = 65 -> 64; of the two tpp=64
  // variants, the one with 4 waves.
  OpPick p = pick(d, key(40000));
  EXPECT_EQ(p.rule, PickRule::Heuristic);
  EXPECT_EQ(p.variant, f.ptrs[4]);
  // T=5000: cap 8, nothing fits: the smallest tpp (16), with the most waves.
  p = pick(d, key(5000));
  EXPECT_EQ(p.variant, f.ptrs[1]);
}

TEST(Dispatch, NoVariantsMeansNoPick) {
  OpDispatch d;
  TunedTable t;
  std::vector<std::string> warnings;
  d.build(indexerOp(), t, "gfx942", {}, warnings);
  OpPick p = pick(d, key(16));
  EXPECT_EQ(p.rule, PickRule::None);
  EXPECT_EQ(p.variant, nullptr);
}

namespace {

const OpSpec &topkOp() { return *findOp("topk_per_row"); }

const char *kTopKHeader =
    "arch,cu_num,k,rows,cols,kernel,num_waves,persistent,parts,us\n";

// A topk_per_row call (k = 512, unsorted) as the dispatcher sees it after
// validation, where no row has fixed parts yet.
OpCall topkCall(int64_t rows, int64_t cols) {
  const OpSpec &op = topkOp();
  OpCall c;
  c.op = &op;
  c.cuNum = 304;
  c.set(op.symbol("R"), rows);
  c.set(op.symbol("L"), cols);
  c.set(op.symbol("k"), 512);
  c.set(op.symbol("sorted"), 0);
  c.set(op.symbol("parts"), 0);
  return c;
}

// Variants of 16 waves, one-workgroup and persistent, with the resident
// capacities the device would report.
struct TopKVariants {
  BundleEntry entries[2];
  Variant variants[2];
  std::vector<const Variant *> ptrs;
  TopKVariants(int64_t persistentResident) {
    for (int p = 0; p < 2; ++p) {
      entries[p].name = "topk_per_row.p" + std::to_string(p);
      entries[p].kernel = "topk_per_row";
      entries[p].knobs = {
          {"k", 512}, {"num_waves", 16}, {"sorted", 0}, {"persistent", p}};
      variants[p].entry = &entries[p];
      ptrs.push_back(&variants[p]);
    }
    variants[0].residentPrograms = 100000;
    variants[1].residentPrograms = persistentResident;
  }
};

} // namespace

// The table's persistent and parts columns are part of its schema.
TEST(TunedTable, TopKTableNamesPersistentAndParts) {
  TunedTable t;
  Status s = parseTunedTable(std::string(kTopKHeader) +
                                 "gfx942,304,512,4,65536,topk_per_row,16,1,"
                                 "12,3.5\n",
                             "t.csv", topkOp().schema, t);
  ASSERT_TRUE(s.isOk()) << s.message();
  s = parseTunedTable("arch,cu_num,k,rows,cols,kernel,num_waves,us\n",
                      "old.csv", topkOp().schema, t);
  EXPECT_NE(s.message().find("header lacks column 'persistent'"),
            std::string::npos)
      << s.message();
  s = parseTunedTable(std::string(kTopKHeader) +
                          "gfx942,304,512,4,65536,topk_per_row,16,1,-1,0\n",
                      "neg.csv", topkOp().schema, t);
  EXPECT_NE(s.message().find("column 'parts': -1 is below the minimum 0"),
            std::string::npos)
      << s.message();
}

// A row naming the persistent variant serves calls of at most as many rows
// as the variant has programs resident (here 6); its parts are bounded by
// resident / R; other calls pass the row over to the heuristic, which
// takes the one-workgroup variant for more than 8 rows.
TEST(Dispatch, TopKPersistentRowsServeWhatFitsResident) {
  TopKVariants v(6);
  TunedTable t;
  ASSERT_TRUE(parseTunedTable(std::string(kTopKHeader) +
                                  "gfx942,304,512,1,1,topk_per_row,16,1,3,0\n",
                              "t.csv", topkOp().schema, t)
                  .isOk());
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(topkOp(), t, "gfx942", v.ptrs, warnings);
  ASSERT_TRUE(warnings.empty()) << warnings[0];
  const OpSpec &op = topkOp();
  struct Case {
    int64_t rows;
    const Variant *want;
    uint32_t grid0, grid1;
  };
  const Case cases[] = {{2, v.ptrs[1], 3, 2}, // the row's 3 parts
                        {4, v.ptrs[1], 1, 4}, // 6 / 4 resident per row
                        {6, v.ptrs[1], 1, 6},
                        {7, v.ptrs[0], 7, 1}}; // 7 > 6 resident
  for (const Case &c : cases) {
    SCOPED_TRACE(c.rows);
    OpCall call = topkCall(c.rows, 65536);
    OpPick p = d.pick(call);
    ASSERT_EQ(p.variant, c.want);
    uint32_t grid[3] = {1, 1, 1};
    op.plan(call, *p.variant, grid);
    EXPECT_EQ(grid[0], c.grid0);
    EXPECT_EQ(grid[1], c.grid1);
    EXPECT_EQ(call[op.symbol("parts")], c.want == v.ptrs[1] ? c.grid0 : 1);
  }
  OpCall seven = topkCall(7, 65536);
  ASSERT_NE(op.refusal, nullptr);
  const char *why = op.refusal(seven, *v.ptrs[1]);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("resident"), std::string::npos) << why;
  EXPECT_EQ(op.refusal(seven, *v.ptrs[0]), nullptr);
}

// A persistent variant of a device that cannot say how many programs it
// holds (residentPrograms 0) serves nothing; where it is the only one, no
// variant serves.
TEST(Dispatch, TopKPersistentWithoutResidencyServesNothing) {
  TopKVariants v(0);
  TunedTable t;
  OpDispatch d;
  std::vector<std::string> warnings;
  d.build(topkOp(), t, "gfx942", {v.ptrs[1]}, warnings);
  OpCall call = topkCall(1, 65536);
  EXPECT_EQ(d.pick(call).variant, nullptr);
  d.build(topkOp(), t, "gfx942", v.ptrs, warnings);
  call = topkCall(1, 65536);
  EXPECT_EQ(d.pick(call).variant, v.ptrs[0]);
}

TEST(TunedTable, SurvivesRandomBytes) {
  std::mt19937 rng(99);
  std::string good = std::string(kHeader) +
                     "gfx942,304,128,64,bf16,0,16,indexer_k_cache_write,4,1,"
                     "0,1.5,2.5\n";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = good;
    if (iter % 3 == 0) {
      text.resize(rng() % 300);
      for (char &c : text)
        c = static_cast<char>(rng());
    } else {
      for (int n = 0; n < 1 + int(rng() % 4); ++n)
        text[rng() % text.size()] = "0,x\n#-. \t9\r"[rng() % 11];
      text.resize(rng() % (text.size() + 1));
    }
    TunedTable t;
    Status s = parseTunedTable(text, "fuzz.csv", indexerOp().schema, t);
    if (!s.isOk()) {
      EXPECT_EQ(s.code(), TESSEL_ERROR_TABLE);
      EXPECT_EQ(s.message().rfind("fuzz.csv:", 0), 0u) << s.message();
    }
  }
}
