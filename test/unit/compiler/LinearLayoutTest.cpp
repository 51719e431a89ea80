//===- LinearLayoutTest.cpp - The GF(2) layout algebra and conversions ----===//
//
// The algebra is checked against brute-force enumeration on random layouts.
// The conversions are checked against independent sources: DistributedLayout
// for blocked/slice, AMD's Matrix Instruction Calculator tables for MFMA
// (test/unit/emulator/data, copied from amd-isa-facts/) and the tables of
// gfx950's f8f6f4 MFMA transcribed next to them, the PTX ISA's
// fragment formulas for mma.sync and wgmma, and the documented swizzle
// formula plus an LDS bank model for shared layouts.
//
//===----------------------------------------------------------------------===//
#include "tessel/Dialect/Tile/LinearLayout.h"
#include "tessel/Dialect/Tile/DistributedLayout.h"
#include "tessel/Dialect/Tile/LinearLayoutConversions.h"

#include "MfmaLayoutCsv.h"

#include "mlir/IR/MLIRContext.h"

#include "HopperMmaSync.h"
#include "tessel/Lowering/TargetInfo.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace mlir;
using namespace tessel::tile;

namespace {

using LL = LinearLayout;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Every input of `l` as one coordinate per input dim.
std::vector<SmallVector<int32_t>> allInputs(const LL &l) {
  std::vector<SmallVector<int32_t>> all;
  int64_t total = l.getTotalInDimSize();
  for (int64_t flat = 0; flat < total; ++flat) {
    SmallVector<int32_t> in;
    int64_t rest = flat;
    for (const auto &d : l.getInDims()) {
      int32_t size = int32_t(1) << d.bases.size();
      in.push_back(int32_t(rest % size));
      rest /= size;
    }
    all.push_back(in);
  }
  return all;
}

/// The definition, evaluated independently of `apply`: XOR of the bases of
/// the set bits.
SmallVector<int32_t> evalByDefinition(const LL &l, ArrayRef<int32_t> in) {
  SmallVector<int32_t> out(l.getOutDims().size(), 0);
  for (auto [d, x] : llvm::zip(l.getInDims(), in))
    for (unsigned i = 0; i < d.bases.size(); ++i)
      if (x & (1 << i))
        for (unsigned k = 0; k < out.size(); ++k)
          out[k] ^= d.bases[i][k];
  return out;
}

/// A random layout with the given in and out dims (sizes as log2).
LL randomLayout(std::mt19937 &rng,
                ArrayRef<std::pair<std::string, unsigned>> ins,
                ArrayRef<std::pair<std::string, unsigned>> outs,
                double zeroProb = 0.2) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<LL::InDim> inDims;
  SmallVector<LL::OutDim> outDims;
  for (auto &[n, b] : outs)
    outDims.push_back({n, int32_t(1) << b});
  for (auto &[n, b] : ins) {
    LL::InDim d{n, {}};
    for (unsigned i = 0; i < b; ++i) {
      LL::Basis basis;
      for (auto &[on, ob] : outs) {
        int32_t c = int32_t(rng() & ((1u << ob) - 1));
        basis.push_back(u(rng) < zeroProb ? 0 : c);
      }
      d.bases.push_back(basis);
    }
    inDims.push_back(d);
  }
  std::string err;
  auto l = LL::get(inDims, outDims, &err);
  EXPECT_TRUE(succeeded(l)) << err;
  return *l;
}

/// A random bijection: a random invertible matrix built from a product of
/// elementary operations on the identity.
LL randomBijection(std::mt19937 &rng,
                   ArrayRef<std::pair<std::string, unsigned>> ins,
                   ArrayRef<std::pair<std::string, unsigned>> outs) {
  unsigned n = 0, m = 0;
  for (auto &p : ins)
    n += p.second;
  for (auto &p : outs)
    m += p.second;
  EXPECT_EQ(n, m);
  std::vector<uint64_t> cols(n);
  for (unsigned j = 0; j < n; ++j)
    cols[j] = uint64_t(1) << j;
  std::shuffle(cols.begin(), cols.end(), rng);
  for (int step = 0; step < 4 * int(n); ++step) {
    unsigned a = rng() % n, b = rng() % n;
    if (a != b)
      cols[a] ^= cols[b];
  }
  std::vector<LL::InDim> inDims;
  SmallVector<LL::OutDim> outDims;
  for (auto &[on, ob] : outs)
    outDims.push_back({on, int32_t(1) << ob});
  unsigned j = 0;
  for (auto &[name, b] : ins) {
    LL::InDim d{name, {}};
    for (unsigned i = 0; i < b; ++i, ++j) {
      LL::Basis basis;
      uint64_t v = cols[j];
      for (auto &[on, ob] : outs) {
        basis.push_back(int32_t(v & ((1u << ob) - 1)));
        v >>= ob;
      }
      d.bases.push_back(basis);
    }
    inDims.push_back(d);
  }
  return *LL::get(inDims, outDims);
}

const std::vector<std::pair<std::string, unsigned>> kRLW = {
    {"register", 3}, {"lane", 4}, {"wave", 2}};
const std::vector<std::pair<std::string, unsigned>> kDims2 = {{"dim0", 4},
                                                              {"dim1", 5}};

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

TEST(LinearLayoutAlgebra, ApplyMatchesDefinitionAndProperties) {
  std::mt19937 rng(1);
  for (int t = 0; t < 40; ++t) {
    LL l = randomLayout(rng, kRLW, kDims2, t % 2 ? 0.1 : 0.5);
    std::set<SmallVector<int32_t>> image;
    bool collision = false;
    for (auto &in : allInputs(l)) {
      SmallVector<int32_t> out = l.apply(in);
      ASSERT_EQ(out, evalByDefinition(l, in));
      collision |= !image.insert(out).second;
    }
    EXPECT_EQ(l.isSurjective(), int64_t(image.size()) == l.getTotalOutDimSize())
        << l.toString();
    EXPECT_EQ(l.isInjective(), !collision) << l.toString();
    EXPECT_EQ(int64_t(1) << l.getRank(), int64_t(image.size()));
  }
}

TEST(LinearLayoutAlgebra, PseudoInverseGivesCanonicalPreimages) {
  std::mt19937 rng(2);
  int surjective = 0;
  for (int t = 0; t < 60; ++t) {
    // More input bits than output bits: surjective most of the time.
    LL l = randomLayout(rng, {{"register", 4}, {"lane", 5}, {"wave", 2}},
                        {{"dim0", 3}, {"dim1", 4}}, 0.3);
    std::string err;
    auto p = l.pseudoInvert(&err);
    ASSERT_EQ(succeeded(p), l.isSurjective()) << err;
    if (failed(p)) {
      EXPECT_NE(err.find("not surjective"), std::string::npos);
      continue;
    }
    ++surjective;
    auto masks = l.getFreeVariableMasks();
    for (auto &y : allInputs(*p)) {
      SmallVector<int32_t> x = p->apply(y);
      ASSERT_EQ(l.apply(x), y) << l.toString();
      for (auto [m, xi] : llvm::zip(masks, x))
        EXPECT_EQ(xi & m.second, 0) << "free bits of the preimage must be 0";
    }
  }
  EXPECT_GT(surjective, 20);
}

TEST(LinearLayoutAlgebra, InverseOfBijectionRoundTrips) {
  std::mt19937 rng(3);
  for (int t = 0; t < 30; ++t) {
    LL l = randomBijection(rng, kRLW, {{"dim0", 4}, {"dim1", 5}});
    ASSERT_TRUE(l.isInvertible());
    auto inv = l.invert();
    ASSERT_TRUE(succeeded(inv));
    for (auto &x : allInputs(l))
      ASSERT_EQ(inv->apply(l.apply(x)), x);
    for (auto &y : allInputs(*inv))
      ASSERT_EQ(l.apply(inv->apply(y)), y);
    // The inverse of the inverse is the layout itself.
    auto back = inv->invert();
    ASSERT_TRUE(succeeded(back));
    EXPECT_EQ(*back, l);
  }
  // A broadcast has no inverse, and says so.
  std::string err;
  LL b = LL::identity1D(4, "lane", "dim0") * LL::zeros1D(2, "lane", "dim0");
  EXPECT_TRUE(failed(b.invert(&err)));
  EXPECT_NE(err.find("not injective"), std::string::npos);
}

TEST(LinearLayoutAlgebra, ComposeIsFunctionComposition) {
  std::mt19937 rng(4);
  for (int t = 0; t < 30; ++t) {
    LL a = randomLayout(rng, kRLW, kDims2);
    LL b = randomLayout(rng, {{"dim0", 4}, {"dim1", 5}}, {{"x", 3}, {"y", 6}});
    auto c = a.compose(b);
    ASSERT_TRUE(succeeded(c));
    for (auto &x : allInputs(a))
      ASSERT_EQ(c->apply(x), b.apply(a.apply(x)));
  }
  std::string err;
  LL a = LL::identity1D(8, "lane", "dim0");
  EXPECT_TRUE(failed(a.compose(LL::identity1D(4, "dim0", "x"), &err)));
  EXPECT_NE(err.find("size 8 as output and 4 as input"), std::string::npos)
      << err;
  EXPECT_TRUE(failed(a.compose(LL::identity1D(8, "dim1", "x"), &err)));
  EXPECT_NE(err.find("no input dimension 'dim0'"), std::string::npos) << err;
}

TEST(LinearLayoutAlgebra, InvertAndComposeFindsWhereTheOtherLayoutHoldsIt) {
  std::mt19937 rng(5);
  int tried = 0;
  for (int t = 0; t < 80 && tried < 25; ++t) {
    LL a = randomLayout(rng, kRLW, {{"dim0", 3}, {"dim1", 4}});
    LL b = randomLayout(rng, {{"register", 4}, {"lane", 5}, {"wave", 1}},
                        {{"dim0", 3}, {"dim1", 4}}, 0.3);
    if (!b.isSurjective())
      continue;
    ++tried;
    auto r = a.invertAndCompose(b);
    ASSERT_TRUE(succeeded(r));
    for (auto &x : allInputs(a))
      ASSERT_EQ(b.apply(r->apply(x)), a.apply(x));
  }
  EXPECT_EQ(tried, 25);
}

TEST(LinearLayoutAlgebra, ProductConcatenatesBits) {
  std::mt19937 rng(6);
  for (int t = 0; t < 20; ++t) {
    LL a = randomLayout(rng, {{"register", 2}, {"lane", 3}},
                        {{"dim0", 2}, {"dim1", 3}});
    LL b = randomLayout(rng, {{"lane", 2}, {"wave", 2}},
                        {{"dim1", 2}, {"dim2", 1}});
    LL p = a * b;
    ASSERT_EQ(p.getOutDimSize("dim0"), 4);
    ASSERT_EQ(p.getOutDimSize("dim1"), 32);
    ASSERT_EQ(p.getOutDimSize("dim2"), 2);
    ASSERT_EQ(p.getInDimSize("lane"), 32);
    for (auto &x : allInputs(p)) {
      // p's inputs: register (a), lane (a low 3 bits, b high 2), wave (b).
      SmallVector<int32_t> ax = {x[0], x[1] & 7}, bx = {x[1] >> 3, x[2]};
      SmallVector<int32_t> ay = a.apply(ax), by = b.apply(bx);
      SmallVector<int32_t> expect = {ay[0], ay[1] + by[0] * 8, by[1]};
      ASSERT_EQ(p.apply(x), expect);
    }
  }
}

TEST(LinearLayoutAlgebra, ReshapeAndTransposeRoundTrip) {
  std::mt19937 rng(7);
  for (int t = 0; t < 20; ++t) {
    LL l = randomLayout(rng, kRLW, {{"dim0", 2}, {"dim1", 3}, {"dim2", 2}});
    auto flat = l.reshapeOuts({{"flat", 128}});
    ASSERT_TRUE(succeeded(flat));
    for (auto &x : allInputs(l)) {
      SmallVector<int32_t> c = l.apply(x);
      ASSERT_EQ(flat->apply(x)[0], (c[0] * 8 + c[1]) * 4 + c[2]);
    }
    auto back = flat->reshapeOuts({{"dim0", 4}, {"dim1", 8}, {"dim2", 4}});
    ASSERT_TRUE(succeeded(back));
    EXPECT_EQ(*back, l);
    auto tr = l.transposeOuts({"dim2", "dim0", "dim1"});
    ASSERT_TRUE(succeeded(tr));
    for (auto &x : allInputs(l)) {
      SmallVector<int32_t> c = l.apply(x), d = tr->apply(x);
      ASSERT_EQ(d, (SmallVector<int32_t>{c[2], c[0], c[1]}));
    }
    auto tr2 = tr->transposeOuts({"dim0", "dim1", "dim2"});
    ASSERT_TRUE(succeeded(tr2));
    EXPECT_EQ(*tr2, l);
  }
  std::string err;
  LL l = LL::identity1D(16, "lane", "dim0");
  EXPECT_TRUE(failed(l.reshapeOuts({{"a", 4}, {"b", 8}}, &err)));
  EXPECT_NE(err.find("cannot reshape 16 elements into 32"), std::string::npos);
  EXPECT_TRUE(failed(l.transposeOuts({"dim1"}, &err)));
  EXPECT_NE(err.find("no dimension named 'dim1'"), std::string::npos);
}

TEST(LinearLayoutAlgebra, SublayoutAndFreeVariables) {
  // lane bit 2 is a broadcast; register bit 1 repeats lane bit 0's basis.
  auto l = LL::get(
      {{"register", {{1, 0}, {0, 2}}}, {"lane", {{0, 2}, {2, 0}, {0, 0}}}},
      {{"dim0", 4}, {"dim1", 4}});
  ASSERT_TRUE(succeeded(l));
  EXPECT_EQ(l->getZeroBasisMask("lane"), 0b100);
  auto masks = l->getFreeVariableMasks();
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_EQ(masks[0].second, 0);     // register: independent
  EXPECT_EQ(masks[1].second, 0b101); // lane bit 0 repeats register bit 1
  // Lanes that differ in the zero-basis bit hold copies.
  for (int32_t r = 0; r < 4; ++r)
    for (int32_t ln = 0; ln < 4; ++ln)
      EXPECT_EQ(l->apply({r, ln}), l->apply({r, ln | 4}));
  LL sub = l->sublayout({"lane"}, {"dim1"});
  EXPECT_EQ(sub.toString(), "lane: [[2],[0],[0]] -> dim1=4");
  EXPECT_EQ(l->toString(),
            "register: [[1,0],[0,2]] lane: [[0,2],[2,0],[0,0]] -> dim0=4 "
            "dim1=4");
}

TEST(LinearLayoutAlgebra, ConsecutiveRegisters) {
  // 4 registers along dim1, then one along dim0.
  auto l = LL::get({{"register", {{0, 1}, {0, 2}, {1, 0}}}, {"lane", {{0, 4}}}},
                   {{"dim0", 2}, {"dim1", 8}});
  ASSERT_TRUE(succeeded(l));
  EXPECT_EQ(l->getNumConsecutiveInOut(), 4);
  EXPECT_EQ(l->getNumConsecutiveInOut("register", "dim0"), 1);
  // A register bit that also moves along another dim breaks the run.
  auto m =
      LL::get({{"register", {{0, 1}, {1, 2}}}}, {{"dim0", 2}, {"dim1", 4}});
  EXPECT_EQ(m->getNumConsecutiveInOut(), 2);
}

TEST(LinearLayoutAlgebra, GetRejectsBadInput) {
  std::string err;
  EXPECT_TRUE(failed(LL::get({}, {{"dim0", 6}}, &err)));
  EXPECT_NE(err.find("not a power of two"), std::string::npos);
  EXPECT_TRUE(failed(LL::get({{"lane", {{8}}}}, {{"dim0", 8}}, &err)));
  EXPECT_NE(err.find("coordinate 8 outside output dimension 'dim0'"),
            std::string::npos)
      << err;
  EXPECT_TRUE(failed(LL::get({{"lane", {{1, 0}}}}, {{"dim0", 8}}, &err)));
  EXPECT_NE(err.find("2 coordinates for 1 output"), std::string::npos);
  EXPECT_TRUE(failed(LL::get({{"a", {}}, {"a", {}}}, {{"dim0", 8}}, &err)));
  EXPECT_NE(err.find("'a' appears twice"), std::string::npos);
  LL::InDim wide{"register", SmallVector<LL::Basis, 8>(31, LL::Basis{0})};
  EXPECT_TRUE(failed(LL::get({wide}, {{"dim0", 1}}, &err)));
  EXPECT_NE(err.find("has 31 bits"), std::string::npos) << err;
}

//===----------------------------------------------------------------------===//
// Conversions: shared set-up
//===----------------------------------------------------------------------===//

class LinearLayoutConversions : public ::testing::Test {
protected:
  LinearLayoutConversions() { ctx.loadDialect<TileDialect>(); }

  BlockedLayoutAttr blocked(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
    return BlockedLayoutAttr::get(&ctx, spt, tpw, wpc, order);
  }
  MfmaLayoutAttr mfma(unsigned m, unsigned n, unsigned k,
                      ArrayRef<unsigned> waves, bool transposed = false,
                      unsigned version = 3) {
    return MfmaLayoutAttr::get(&ctx, version, {m, n, k}, waves, transposed);
  }
  NvMmaLayoutAttr nvMma(unsigned version, unsigned m, unsigned n, unsigned k,
                        ArrayRef<unsigned> waves) {
    return NvMmaLayoutAttr::get(&ctx, version, {m, n, k}, waves);
  }
  DotOperandLayoutAttr operand(unsigned opIdx, Attribute parent,
                               unsigned kWidth) {
    return DotOperandLayoutAttr::get(&ctx, opIdx, parent, kWidth);
  }
  LL convert(ArrayRef<int64_t> shape, Attribute enc) {
    std::string err;
    auto l = toLinearLayout(shape, enc, &err);
    EXPECT_TRUE(succeeded(l)) << err;
    return succeeded(l) ? *l : LL();
  }
  /// Layout image of (register, lane, wave).
  static std::pair<int32_t, int32_t> at(const LL &l, int32_t r, int32_t ln,
                                        int32_t w) {
    SmallVector<int32_t> c = l.apply({r, ln, w});
    return {c[0], c[1]};
  }

  MLIRContext ctx;
};

//===----------------------------------------------------------------------===//
// blocked and slice agree with DistributedLayout
//===----------------------------------------------------------------------===//

/// DistributedLayout's coordinate of (slot, lane, wave), as its contract
/// states: (regCoord + threadIdx*size + waveIdx*size*threads) mod S.
SmallVector<int64_t> distributedCoord(const DistributedLayout &d, int64_t slot,
                                      int64_t lane, int64_t wave) {
  BlockedLayoutAttr b = d.getBlocked();
  SmallVector<int64_t> idx = d.slotIndices(slot), c;
  for (unsigned k = 0; k < d.getRank(); ++k) {
    int64_t size = b.getSizePerThread()[k], threads = b.getThreadsPerWave()[k];
    int64_t t = (lane >> d.laneBitBase(k)) & (threads - 1);
    int64_t w = (wave >> d.waveBitBase(k)) & (b.getWavesPerCTA()[k] - 1);
    c.push_back((d.regCoord(k, idx[k]) + t * size + w * size * threads) %
                d.getShape()[k]);
  }
  return c;
}

void expectMatchesDistributed(const LL &l, RankedTensorType type) {
  auto d = DistributedLayout::get(type);
  ASSERT_TRUE(succeeded(d));
  ASSERT_EQ(l.getInDimSize("register"), d->getNumElems());
  ASSERT_EQ(l.getInDimSize("lane"), d->getBlocked().getNumLanes());
  ASSERT_EQ(l.getInDimSize("wave"), d->getBlocked().getNumWaves());
  ASSERT_TRUE(l.isSurjective()) << "every element must be owned";
  for (int32_t s = 0; s < d->getNumElems(); ++s)
    for (int32_t ln = 0; ln < l.getInDimSize("lane"); ++ln)
      for (int32_t w = 0; w < l.getInDimSize("wave"); ++w) {
        SmallVector<int64_t> expect = distributedCoord(*d, s, ln, w), got;
        // Drop the unit dims a slice re-inserted.
        SmallVector<int64_t> kept;
        for (unsigned k = 0; k < expect.size(); ++k)
          if (!llvm::is_contained(d->getSliceDims(), k))
            kept.push_back(expect[k]);
        for (int32_t c : l.apply({s, ln, w}))
          got.push_back(c);
        ASSERT_EQ(got, kept) << "slot " << s << " lane " << ln << " wave " << w
                             << " of " << l.toString();
      }
}

TEST_F(LinearLayoutConversions, BlockedMatchesDistributedLayout) {
  struct Case {
    SmallVector<unsigned> spt, tpw, wpc, order;
    SmallVector<int64_t> shape;
  };
  std::vector<Case> cases = {
      {{1, 8}, {4, 16}, {4, 1}, {1, 0}, {16, 128}},
      {{1, 8}, {4, 16}, {4, 1}, {1, 0}, {64, 256}}, // repeats
      {{1, 8}, {4, 16}, {4, 1}, {1, 0}, {2, 16}},   // wraps
      {{4, 1}, {16, 4}, {1, 2}, {0, 1}, {128, 8}},  // column-major
      {{2, 2}, {8, 8}, {2, 2}, {1, 0}, {4, 64}},    // mixed
      {{4}, {64}, {4}, {0}, {256}},
      {{4}, {64}, {4}, {0}, {4096}},
      {{4}, {64}, {1}, {0}, {64}},
      {{8}, {32}, {2}, {0}, {4}},
      {{1, 2, 4}, {2, 4, 8}, {1, 2, 2}, {2, 0, 1}, {4, 32, 64}},
      {{1, 2, 4}, {2, 4, 8}, {1, 2, 2}, {0, 1, 2}, {8, 8, 8}},
  };
  auto f32 = Float32Type::get(&ctx);
  for (const Case &c : cases) {
    auto enc = blocked(c.spt, c.tpw, c.wpc, c.order);
    auto type = RankedTensorType::get(c.shape, f32, enc);
    LL l = convert(c.shape, enc);
    expectMatchesDistributed(l, type);
    // Slices of every dim of rank-2+ layouts.
    if (c.shape.size() < 2)
      continue;
    for (unsigned dim = 0; dim < c.shape.size(); ++dim) {
      SmallVector<int64_t> shape(c.shape);
      shape.erase(shape.begin() + dim);
      auto slice = SliceLayoutAttr::get(&ctx, dim, enc);
      auto stype = RankedTensorType::get(shape, f32, slice);
      expectMatchesDistributed(convert(shape, slice), stype);
    }
  }
}

TEST_F(LinearLayoutConversions, BlockedQuestions) {
  // 16 x 128, 8 contiguous elements per lane along dim1: vectorizable by 8.
  LL l = convert({16, 128}, blocked({1, 8}, {4, 16}, {4, 1}, {1, 0}));
  EXPECT_EQ(l.getNumConsecutiveInOut(), 8);
  EXPECT_EQ(l.getZeroBasisMask("lane"), 0);
  // The same layout on 2 x 16 wraps: lanes 2.. repeat along dim1 and the
  // upper lane bits and all waves hold copies.
  LL small = convert({2, 16}, blocked({1, 8}, {4, 16}, {4, 1}, {1, 0}));
  EXPECT_EQ(small.getZeroBasisMask("lane"), 0b100010 | 0b001100);
  EXPECT_EQ(small.getZeroBasisMask("wave"), 0b11);
  // Element (1, 9) lives in register 1 of lane 1 + 16 = 17, wave 0.
  auto inv = small.pseudoInvert();
  ASSERT_TRUE(succeeded(inv));
  EXPECT_EQ(inv->apply({1, 9}), (SmallVector<int32_t>{1, 17, 0}));
}

TEST_F(LinearLayoutConversions, Errors) {
  std::string err;
  auto b = blocked({1, 8}, {4, 16}, {4, 1}, {1, 0});
  EXPECT_TRUE(failed(toLinearLayout({16, 48}, b, &err)));
  EXPECT_NE(err.find("not a power of two"), std::string::npos);
  EXPECT_TRUE(failed(toLinearLayout({16}, b, &err)));
  EXPECT_NE(err.find("layout has rank 2 but the tensor has rank 1"),
            std::string::npos);
  EXPECT_TRUE(failed(toLinearLayout({16, 16}, Attribute(), &err)));
  EXPECT_NE(err.find("no layout encoding"), std::string::npos);
  auto m = mfma(16, 16, 32, {1, 1});
  EXPECT_TRUE(failed(toLinearLayout({16, 32}, operand(0, m, 4), &err)));
  EXPECT_NE(err.find("need kWidth >= 8"), std::string::npos) << err;
  auto wg = nvMma(3, 64, 64, 32, {2, 1});
  EXPECT_TRUE(failed(toLinearLayout({64, 64}, wg, &err)));
  EXPECT_NE(err.find("multiple of 4"), std::string::npos);
  EXPECT_TRUE(failed(toLinearLayout(
      {64, 32}, operand(0, nvMma(3, 64, 64, 32, {4, 1}), 4), &err)));
  EXPECT_NE(err.find("shared memory"), std::string::npos);
  EXPECT_TRUE(failed(toLinearLayout(
      {16, 32}, operand(0, nvMma(2, 16, 8, 32, {1, 1}), 2), &err)));
  EXPECT_NE(err.find("kWidth must be 4"), std::string::npos) << err;
  EXPECT_TRUE(
      failed(toLinearLayout({64, 64}, nvMma(3, 64, 48, 32, {4, 1}), &err)));
  EXPECT_NE(err.find("N = 48 is not a power of two"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// MFMA against AMD's Matrix Instruction Calculator tables
//===----------------------------------------------------------------------===//

using Loc = tessel::test::MfmaLayoutCell;

/// AMD's table at `path` (a test failure, and an empty table, when it
/// cannot be read).
tessel::test::MfmaLayoutTable parseCalculatorCsv(const std::string &path) {
  std::string error;
  tessel::test::MfmaLayoutTable table =
      tessel::test::readMfmaLayoutCsv(path, error);
  EXPECT_FALSE(table.empty()) << error;
  return table;
}

struct MfmaCase {
  std::string file;
  unsigned m, n, k, elemBits;
};
const MfmaCase kMfmaCases[] = {
    {"cdna3_v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 8},
    {"cdna3_v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 8},
    {"cdna3_v_mfma_f32_16x16x16_bf16", 16, 16, 16, 16},
    {"cdna3_v_mfma_f32_32x32x8_bf16", 32, 32, 8, 16},
};

std::string mfmaCsv(const MfmaCase &c, const char *which) {
  return std::string(TESSEL_MFMA_LAYOUT_DATA) + "/" + c.file + "_" + which +
         "_register_layout.csv";
}

/// Checks `l` (a layout of a [wm*rm*R, wn*rn*C] tensor) against the table:
/// the instruction's register `reg` of `lane` in wave (wM, wN), repeat
/// (rM, rN) holds table element (i, j) of the tile at (wM*rm + rM, wN*rn +
/// rN). `broadcastM/N` marks the wave dims an operand does not split.
void expectTableTiled(const LL &l, const std::vector<std::vector<Loc>> &table,
                      unsigned elemBits, bool accumulator, unsigned wm,
                      unsigned wn, unsigned rm, unsigned rn, bool splitM,
                      bool splitN) {
  const int rows = table.size(), cols = table[0].size();
  const int perReg = 32 / elemBits;
  const int regsPerTile = rows * cols / 64;
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const Loc &loc = table[i][j];
      int slot = accumulator ? loc.reg : loc.reg * perReg + loc.lo / elemBits;
      ASSERT_LT(slot, regsPerTile);
      EXPECT_TRUE(seen.insert({slot, loc.lane}).second)
          << "table lists (" << slot << ", " << loc.lane << ") twice";
      for (unsigned wM = 0; wM < wm; ++wM)
        for (unsigned wN = 0; wN < wn; ++wN)
          for (unsigned rM = 0; rM < rm; ++rM)
            for (unsigned rN = 0; rN < rn; ++rN) {
              int32_t reg = slot + (rM * rn + rN) * regsPerTile;
              int32_t wave = wM * wn + wN;
              int32_t r = (splitM ? wM * rm : 0) * rows + rM * rows + i;
              int32_t c = (splitN ? wN * rn : 0) * cols + rN * cols + j;
              SmallVector<int32_t> got = l.apply({reg, loc.lane, wave});
              ASSERT_EQ(got, (SmallVector<int32_t>{r, c}))
                  << "table (" << i << ", " << j << ") wave " << wave
                  << " repeat (" << rM << ", " << rN << ")\n"
                  << l.toString();
            }
    }
}

TEST_F(LinearLayoutConversions, MfmaAccumulatorMatchesAmdTables) {
  for (const MfmaCase &c : kMfmaCases) {
    SCOPED_TRACE(c.file);
    auto table = parseCalculatorCsv(mfmaCsv(c, "D"));
    ASSERT_EQ(table.size(), c.m);
    // One instruction tile on one wave: a bijection equal to the table.
    LL one = convert({c.m, c.n}, mfma(c.m, c.n, c.k, {1, 1}));
    EXPECT_TRUE(one.isInvertible()) << one.toString();
    expectTableTiled(one, table, 32, true, 1, 1, 1, 1, true, true);
    // Several waves along M and N, with register repeats inside each wave.
    for (auto [wm, wn, rm, rn] :
         {std::tuple{2u, 2u, 1u, 1u}, std::tuple{4u, 1u, 2u, 1u},
          std::tuple{2u, 4u, 2u, 2u}, std::tuple{1u, 2u, 1u, 4u}}) {
      LL l = convert({c.m * wm * rm, c.n * wn * rn},
                     mfma(c.m, c.n, c.k, {wm, wn}));
      EXPECT_TRUE(l.isInvertible());
      expectTableTiled(l, table, 32, true, wm, wn, rm, rn, true, true);
    }
  }
}

TEST_F(LinearLayoutConversions, MfmaTransposedAccumulatorIsTheTransposedTable) {
  for (const MfmaCase &c : kMfmaCases) {
    auto table = parseCalculatorCsv(mfmaCsv(c, "D"));
    LL l = convert({c.n, c.m}, mfma(c.m, c.n, c.k, {1, 1}, true));
    for (unsigned i = 0; i < c.m; ++i)
      for (unsigned j = 0; j < c.n; ++j)
        ASSERT_EQ(at(l, table[i][j].reg, table[i][j].lane, 0),
                  std::make_pair(int32_t(j), int32_t(i)));
  }
}

TEST_F(LinearLayoutConversions, MfmaOperandsMatchAmdTables) {
  for (const MfmaCase &c : kMfmaCases) {
    SCOPED_TRACE(c.file);
    auto tableA = parseCalculatorCsv(mfmaCsv(c, "A"));
    auto tableB = parseCalculatorCsv(mfmaCsv(c, "B"));
    ASSERT_EQ(tableA.size(), c.m);
    ASSERT_EQ(tableA[0].size(), c.k);
    ASSERT_EQ(tableB.size(), c.k);
    unsigned kWidth = c.k * c.m / 64;
    for (auto [wm, wn, rm, rk, rn] :
         {std::tuple{1u, 1u, 1u, 1u, 1u}, std::tuple{2u, 2u, 1u, 2u, 1u},
          std::tuple{4u, 2u, 2u, 1u, 2u}}) {
      auto parent = mfma(c.m, c.n, c.k, {wm, wn});
      LL a = convert({c.m * wm * rm, c.k * rk}, operand(0, parent, kWidth));
      LL b = convert({c.k * rk, c.n * wn * rn}, operand(1, parent, kWidth));
      EXPECT_TRUE(a.isSurjective());
      EXPECT_TRUE(b.isSurjective());
      // A is split over the M waves and copied over the N waves; B the
      // other way round. K repeats go to registers like any repeat.
      expectTableTiled(a, tableA, c.elemBits, false, wm, wn, rm, rk, true,
                       false);
      expectTableTiled(b, tableB, c.elemBits, false, wm, wn, rk, rn, false,
                       true);
      EXPECT_EQ(a.getZeroBasisMask("wave"), int32_t(wn - 1));
      EXPECT_EQ(b.getZeroBasisMask("wave"), int32_t((wm - 1) * wn));
      // A lane's K elements are contiguous: one vector load of kWidth.
      EXPECT_EQ(a.getNumConsecutiveInOut("register", "dim1"), int32_t(kWidth));
    }
  }
}

TEST_F(LinearLayoutConversions, MfmaWideKWidthSpansInstructions) {
  // kWidth 16 on 16x16x32 fp8: a lane holds 16 consecutive K elements; the
  // K group of 64 covers two instructions. Lane l holds row l % 16 and
  // K [16 * (l / 16), +16).
  LL a = convert({16, 64}, operand(0, mfma(16, 16, 32, {1, 1}), 16));
  EXPECT_TRUE(a.isInvertible());
  EXPECT_EQ(a.getNumConsecutiveInOut("register", "dim1"), 16);
  for (int32_t ln = 0; ln < 64; ++ln)
    for (int32_t r = 0; r < 16; ++r)
      ASSERT_EQ(at(a, r, ln, 0), std::make_pair(ln % 16, 16 * (ln / 16) + r));
}

//===----------------------------------------------------------------------===//
// gfx950's double-rate fp8 MFMA against AMD's CDNA4 tables
//===----------------------------------------------------------------------===//

// The tables in test/unit/emulator/data/cdna4_*_f8f6f4_*.csv, transcribed
// from AMD's published CDNA4 register maps (runtime/emulator/README.md
// names the documents).
const MfmaCase kF8F6F4Cases[] = {
    {"cdna4_v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, 8},
    {"cdna4_v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, 8},
};

TEST_F(LinearLayoutConversions, MfmaF8F6F4AccumulatorMatchesAmdTables) {
  for (const MfmaCase &c : kF8F6F4Cases) {
    SCOPED_TRACE(c.file);
    auto table = parseCalculatorCsv(mfmaCsv(c, "D"));
    ASSERT_EQ(table.size(), c.m);
    LL one = convert({c.m, c.n}, mfma(c.m, c.n, c.k, {1, 1}, false, 4));
    EXPECT_TRUE(one.isInvertible()) << one.toString();
    expectTableTiled(one, table, 32, true, 1, 1, 1, 1, true, true);
    for (auto [wm, wn, rm, rn] :
         {std::tuple{2u, 2u, 1u, 1u}, std::tuple{4u, 1u, 2u, 1u},
          std::tuple{1u, 2u, 2u, 4u}}) {
      LL l = convert({c.m * wm * rm, c.n * wn * rn},
                     mfma(c.m, c.n, c.k, {wm, wn}, false, 4));
      EXPECT_TRUE(l.isInvertible());
      expectTableTiled(l, table, 32, true, wm, wn, rm, rn, true, true);
    }
  }
}

TEST_F(LinearLayoutConversions, MfmaF8F6F4OperandsMatchAmdTables) {
  for (const MfmaCase &c : kF8F6F4Cases) {
    SCOPED_TRACE(c.file);
    auto tableA = parseCalculatorCsv(mfmaCsv(c, "A"));
    auto tableB = parseCalculatorCsv(mfmaCsv(c, "B"));
    ASSERT_EQ(tableA.size(), c.m);
    ASSERT_EQ(tableA[0].size(), c.k);
    ASSERT_EQ(tableB.size(), c.k);
    ASSERT_EQ(tableB[0].size(), c.n);
    // kWidth 16: each instruction tile is the hardware's, its 32 elements
    // per lane in consecutive registers, repeats tiled like the others.
    for (auto [wm, wn, rm, rk, rn] :
         {std::tuple{1u, 1u, 1u, 1u, 1u}, std::tuple{2u, 2u, 1u, 2u, 1u},
          std::tuple{4u, 2u, 2u, 1u, 2u}, std::tuple{1u, 1u, 2u, 2u, 2u}}) {
      auto parent = mfma(c.m, c.n, c.k, {wm, wn}, false, 4);
      LL a = convert({c.m * wm * rm, c.k * rk}, operand(0, parent, 16));
      LL b = convert({c.k * rk, c.n * wn * rn}, operand(1, parent, 16));
      EXPECT_TRUE(a.isSurjective());
      EXPECT_TRUE(b.isSurjective());
      expectTableTiled(a, tableA, c.elemBits, false, wm, wn, rm, rk, true,
                       false);
      expectTableTiled(b, tableB, c.elemBits, false, wm, wn, rk, rn, false,
                       true);
      EXPECT_EQ(a.getZeroBasisMask("wave"), int32_t(wn - 1));
      EXPECT_EQ(b.getZeroBasisMask("wave"), int32_t((wm - 1) * wn));
      // 16 consecutive K bytes per run: one 16-byte load each.
      EXPECT_EQ(a.getNumConsecutiveInOut("register", "dim1"), 16);
    }
  }
}

TEST_F(LinearLayoutConversions, MfmaInstrLayoutsMatchAmdTables) {
  std::vector<MfmaCase> cases(std::begin(kMfmaCases), std::end(kMfmaCases));
  cases.insert(cases.end(), std::begin(kF8F6F4Cases), std::end(kF8F6F4Cases));
  for (const MfmaCase &c : cases) {
    SCOPED_TRACE(c.file);
    SmallVector<unsigned> shape = {c.m, c.n, c.k};
    for (auto [which, name, bits] : {std::tuple{MfmaMatrix::A, "A", c.elemBits},
                                     std::tuple{MfmaMatrix::B, "B", c.elemBits},
                                     std::tuple{MfmaMatrix::D, "D", 32u}}) {
      auto table = parseCalculatorCsv(mfmaCsv(c, name));
      std::string err;
      auto l = mfmaInstrLayout(shape, which, &err);
      ASSERT_TRUE(succeeded(l)) << err;
      EXPECT_TRUE(l->isInvertible()) << l->toString();
      EXPECT_EQ(l->getInDimSize("lane"), 64);
      EXPECT_EQ(l->getInDimSize("wave"), 1);
      expectTableTiled(*l, table, bits, which == MfmaMatrix::D, 1, 1, 1, 1,
                       true, true);
    }
    EXPECT_EQ(mfmaNativeKWidth(shape),
              isMfmaF8F6F4Shape(shape) ? 16u : c.k * c.m / 64);
  }
}

TEST_F(LinearLayoutConversions, MfmaF8F6F4SpotEntriesOfThePublishedTables) {
  // Entries read off AMD's printed register maps directly (not the CSVs):
  // 16x16x128 A "Reg 4 [0:7]", lanes 16-31: K80; "Reg 7 [24:31]", lanes
  // 48-63: K127. 32x32x64 A "Reg 4 [0:7]", lanes 32-63: K48. 32x32 D
  // "Reg4", lanes 32-63: M12. A register of A holds 4 bytes: element 16 is
  // byte 0 of VGPR 4.
  auto a16 = mfmaInstrLayout({16, 16, 128}, MfmaMatrix::A);
  auto a32 = mfmaInstrLayout({32, 32, 64}, MfmaMatrix::A);
  auto b32 = mfmaInstrLayout({32, 32, 64}, MfmaMatrix::B);
  auto d32 = mfmaInstrLayout({32, 32, 64}, MfmaMatrix::D);
  ASSERT_TRUE(succeeded(a16) && succeeded(a32) && succeeded(b32) &&
              succeeded(d32));
  EXPECT_EQ(at(*a16, 16, 17, 0), std::make_pair(1, 80));
  EXPECT_EQ(at(*a16, 31, 63, 0), std::make_pair(15, 127));
  EXPECT_EQ(at(*a32, 16, 40, 0), std::make_pair(8, 48));
  EXPECT_EQ(at(*b32, 16, 40, 0), std::make_pair(48, 8));
  EXPECT_EQ(at(*d32, 4, 33, 0), std::make_pair(12, 1));
}

TEST_F(LinearLayoutConversions, MfmaF8F6F4WideKWidthPermutesK) {
  // kWidth 32 on 16x16x128: lane l holds row l % 16 and the 32 consecutive
  // K [32 * (l / 16), +32): the instruction reads registers 16-31 as K + 64,
  // a K permutation that A and B share.
  LL a =
      convert({16, 128}, operand(0, mfma(16, 16, 128, {1, 1}, false, 4), 32));
  EXPECT_TRUE(a.isInvertible());
  EXPECT_EQ(a.getNumConsecutiveInOut("register", "dim1"), 32);
  for (int32_t ln = 0; ln < 64; ++ln)
    for (int32_t r = 0; r < 32; ++r)
      ASSERT_EQ(at(a, r, ln, 0), std::make_pair(ln % 16, 32 * (ln / 16) + r));
}

TEST_F(LinearLayoutConversions, MfmaF8F6F4Errors) {
  std::string err;
  // The f8f6f4 shapes are CDNA4's: version 3 is refused.
  EXPECT_TRUE(
      failed(toLinearLayout({16, 16}, mfma(16, 16, 128, {1, 1}), &err)));
  EXPECT_NE(err.find("exists on CDNA4 only"), std::string::npos) << err;
  EXPECT_TRUE(failed(toLinearLayout(
      {32, 64}, operand(0, mfma(32, 32, 64, {1, 1}), 16), &err)));
  EXPECT_NE(err.find("needs version = 4"), std::string::npos) << err;
  // A lane's run is 16 K elements.
  EXPECT_TRUE(failed(toLinearLayout(
      {16, 128}, operand(0, mfma(16, 16, 128, {1, 1}, false, 4), 8), &err)));
  EXPECT_NE(err.find("kWidth >= 16"), std::string::npos) << err;
  EXPECT_TRUE(failed(mfmaInstrLayout({16, 16, 64}, MfmaMatrix::A, &err)));
  EXPECT_NE(err.find("no MFMA instruction of shape 16x16x64"),
            std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// mma.sync and wgmma against the PTX ISA's fragment formulas
//===----------------------------------------------------------------------===//

// PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating point
// type" and "Matrix Fragments for mma.m16n8k32" (9.7.14.5): with
// groupID = laneid >> 2 and threadID_in_group = laneid % 4,
//   f16 A a_i: row = groupID (+8 for a2,a3,a6,a7),
//              col = threadID_in_group*2 + (i & 1) (+8 for i >= 4);
//   f16 B b_i: row = threadID_in_group*2 + (i & 1) (+8 for i >= 2),
//              col = groupID;
//   e4m3 A a_i: row = groupID (+8 for 4 <= i < 8 and 12 <= i),
//               col = threadID_in_group*4 + (i & 3) (+16 for i >= 8);
//   e4m3 B b_i: row = threadID_in_group*4 + (i & 3) (+16 for i >= 4),
//               col = groupID;
//   f32 C/D c_i: row = groupID (+8 for c2, c3),
//                col = threadID_in_group*2 + (i & 1).
std::pair<int32_t, int32_t> ptxF16A(int i, int lane) {
  int g = lane >> 2, t = lane % 4;
  int row = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
  int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
  return {row, col};
}
std::pair<int32_t, int32_t> ptxF16B(int i, int lane) {
  int g = lane >> 2, t = lane % 4;
  return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
}
std::pair<int32_t, int32_t> ptxE4m3A(int i, int lane) {
  int g = lane >> 2, t = lane % 4;
  bool low = i < 4 || (i >= 8 && i < 12);
  return {g + (low ? 0 : 8), t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
}
std::pair<int32_t, int32_t> ptxE4m3B(int i, int lane) {
  int g = lane >> 2, t = lane % 4;
  return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
}
std::pair<int32_t, int32_t> ptxAccC(int i, int lane) {
  int g = lane >> 2, t = lane % 4;
  return {g + (i >= 2 ? 8 : 0), t * 2 + (i & 1)};
}
// PTX ISA 9.7.15.5.1.1 "Register Fragments", "Matrix Fragments for
// wgmma.mma_async.m64nNk32", accumulator D (.f32: N/2 registers), transcribed
// from its figure: warp w of the warpgroup holds rows 16w..16w+15, and
//   d_i: row = 16*w + groupID (+8 when (i >> 1) is odd),
//        col = (i >> 2)*8 + threadID_in_group*2 + (i & 1),  i < N/2.
std::pair<int32_t, int32_t> ptxWgmmaD(int i, int lane, int warp) {
  int g = lane >> 2, t = lane % 4;
  return {16 * warp + g + (((i >> 1) & 1) ? 8 : 0),
          (i >> 2) * 8 + t * 2 + (i & 1)};
}

using Fragment = std::pair<int32_t, int32_t> (*)(int, int);

void expectFragment(const LL &l, Fragment f, int regs, int rows, int cols) {
  EXPECT_EQ(l.getInDimSize("register"), regs);
  EXPECT_EQ(l.getInDimSize("lane"), 32);
  EXPECT_TRUE(l.isInvertible()) << l.toString();
  for (int i = 0; i < regs; ++i)
    for (int ln = 0; ln < 32; ++ln) {
      auto expect = f(i, ln);
      ASSERT_LT(expect.first, rows);
      ASSERT_LT(expect.second, cols);
      SmallVector<int32_t> got = l.apply({i, ln, 0});
      ASSERT_EQ(std::make_pair(got[0], got[1]), expect)
          << "element " << i << " lane " << ln << " of " << l.toString();
    }
}

TEST_F(LinearLayoutConversions, MmaSyncFragmentsMatchPtx) {
  auto f16 = nvMma(2, 16, 8, 16, {1, 1});
  auto e4m3 = nvMma(2, 16, 8, 32, {1, 1});
  expectFragment(convert({16, 16}, operand(0, f16, 2)), ptxF16A, 8, 16, 16);
  expectFragment(convert({16, 8}, operand(1, f16, 2)), ptxF16B, 4, 16, 8);
  expectFragment(convert({16, 8}, f16), ptxAccC, 4, 16, 8);
  expectFragment(convert({16, 32}, operand(0, e4m3, 4)), ptxE4m3A, 16, 16, 32);
  expectFragment(convert({32, 8}, operand(1, e4m3, 4)), ptxE4m3B, 8, 32, 8);
  expectFragment(convert({16, 8}, e4m3), ptxAccC, 4, 16, 8);
}

TEST_F(LinearLayoutConversions, MmaSyncWavesAndRepeats) {
  // 2 x 2 warps, each with 2 x 2 accumulator tiles of 16 x 8.
  LL l = convert({64, 32}, nvMma(2, 16, 8, 16, {2, 2}));
  EXPECT_TRUE(l.isInvertible());
  for (int wM = 0; wM < 2; ++wM)
    for (int wN = 0; wN < 2; ++wN)
      for (int rM = 0; rM < 2; ++rM)
        for (int rN = 0; rN < 2; ++rN)
          for (int i = 0; i < 4; ++i)
            for (int ln = 0; ln < 32; ++ln) {
              auto [r, c] = ptxAccC(i, ln);
              ASSERT_EQ(
                  at(l, i + 4 * (rM * 2 + rN), ln, wM * 2 + wN),
                  std::make_pair(wM * 32 + rM * 16 + r, wN * 16 + rN * 8 + c));
            }
}

// The layouts the dot planner gets from both Hopper targets (accumulator
// and operand encodings of each mma.sync tile) are the PTX fragments: the
// 16x8x16 tiles use the 16-bit m16n8k16 figures, the 16x8x32 tiles the
// 8-bit m16n8k32 ones, whatever the element type.
TEST_F(LinearLayoutConversions, HopperDotLayoutsArePtxFragments) {
  for (const char *chip : {"sm_90", "sm_90a"}) {
    SCOPED_TRACE(chip);
    auto info = tessel::TargetInfo::create(chip);
    // The mma.sync tiles (sm_90a lists its wgmma instructions first).
    SmallVector<tessel::MatrixInstr> instrs;
    for (const tessel::MatrixInstr &i : info->matrixInstrs(&ctx))
      if (i.operandSource == tessel::MatrixOperandSource::Registers)
        instrs.push_back(i);
    ASSERT_EQ(instrs.size(), 4u);
    for (const tessel::MatrixInstr &i : instrs) {
      SCOPED_TRACE(i.mnemonic);
      bool k32 = i.k == 32;
      Attribute acc = info->matrixAccEncoding(&ctx, i, 1, 1, true);
      int k = i.k;
      expectFragment(convert({16, 8}, acc), ptxAccC, 4, 16, 8);
      expectFragment(convert({16, k}, info->matrixOperandEncoding(acc, 0, i)),
                     k32 ? ptxE4m3A : ptxF16A, 16 * k / 32, 16, k);
      expectFragment(convert({k, 8}, info->matrixOperandEncoding(acc, 1, i)),
                     k32 ? ptxE4m3B : ptxF16B, k * 8 / 32, k, 8);
    }
  }
}

// Hopper runs a 16x8x32 tile (e4m3 converted to f16, or bf16) held in the
// 8-bit fragment layout as two 16-bit m16n8k16 instructions
// (tessel::hopper::k32TileAsK16). Executing them as the PTX fragments say
// gives A * B exactly: both instructions together read every element of A
// and B once, under one K order for A and B.
TEST_F(LinearLayoutConversions, HopperK32TileRunsAsTwoK16Instructions) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> val(-8, 8);
  int a[16][32], b[32][8], want[16][8] = {}, got[16][8] = {};
  for (auto &row : a)
    for (int &x : row)
      x = val(rng);
  for (auto &row : b)
    for (int &x : row)
      x = val(rng);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      for (int k = 0; k < 32; ++k)
        want[r][c] += a[r][k] * b[k][c];
  for (unsigned j = 0; j < 2; ++j) {
    tessel::hopper::K16Registers regs = tessel::hopper::k32TileAsK16(j);
    // The instruction's own A [16, 16] and B [16, 8], filled from what each
    // lane hands it; every element exactly once.
    int ia[16][16], ib[16][8], seenA[16][16] = {}, seenB[16][8] = {};
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 8; ++e) {
        int src = 2 * regs.a[e / 2] + e % 2;
        auto [r, c] = ptxE4m3A(src, lane);
        auto [ir, ik] = ptxF16A(e, lane);
        ia[ir][ik] = a[r][c];
        ++seenA[ir][ik];
      }
      for (int e = 0; e < 4; ++e) {
        int src = 2 * regs.b[e / 2] + e % 2;
        auto [r, c] = ptxE4m3B(src, lane);
        auto [ik, ic] = ptxF16B(e, lane);
        ib[ik][ic] = b[r][c];
        ++seenB[ik][ic];
        ASSERT_EQ(ic, c) << "B column moved";
      }
    }
    for (auto &row : seenA)
      for (int n : row)
        ASSERT_EQ(n, 1);
    for (auto &row : seenB)
      for (int n : row)
        ASSERT_EQ(n, 1);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 8; ++c)
        for (int k = 0; k < 16; ++k)
          got[r][c] += ia[r][k] * ib[k][c];
  }
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      ASSERT_EQ(got[r][c], want[r][c]) << "D[" << r << "][" << c << "]";
}

TEST_F(LinearLayoutConversions, WgmmaAccumulatorMatchesPtx) {
  for (unsigned n : {8u, 16u, 64u, 128u, 256u}) {
    SCOPED_TRACE(n);
    LL l = convert({64, n}, nvMma(3, 64, n, 32, {4, 1}));
    EXPECT_TRUE(l.isInvertible());
    ASSERT_EQ(l.getInDimSize("register"), int32_t(n / 2));
    ASSERT_EQ(l.getInDimSize("wave"), 4);
    for (int w = 0; w < 4; ++w)
      for (int i = 0; i < int(n / 2); ++i)
        for (int ln = 0; ln < 32; ++ln)
          ASSERT_EQ(at(l, i, ln, w), ptxWgmmaD(i, ln, w));
    // Two registers hold adjacent columns: 8-byte f32 stores.
    EXPECT_EQ(l.getNumConsecutiveInOut(), 2);
  }
  // Two warpgroups along M, two along N, 2 x 2 repeats each.
  LL l = convert({256, 256}, nvMma(3, 64, 64, 32, {8, 2}));
  EXPECT_TRUE(l.isInvertible());
  for (int wg = 0; wg < 4; ++wg)
    for (int w = 0; w < 4; ++w)
      for (int rM = 0; rM < 2; ++rM)
        for (int rN = 0; rN < 2; ++rN)
          for (int i = 0; i < 32; ++i)
            for (int ln = 0; ln < 32; ln += 5) {
              int wgM = wg / 2, wgN = wg % 2;
              auto [r, c] = ptxWgmmaD(i, ln, w);
              ASSERT_EQ(at(l, i + 32 * (rM * 2 + rN), ln, wg * 4 + w),
                        std::make_pair(wgM * 128 + rM * 64 + r,
                                       wgN * 128 + rN * 64 + c));
            }
}

TEST_F(LinearLayoutConversions, SmallTensorsBroadcast) {
  // A 16 x 8 tensor under a 32 x 32 MFMA accumulator: rows 16.. and columns
  // 8.. wrap, so lanes and registers hold copies; still every element is
  // owned.
  LL l = convert({16, 8}, mfma(32, 32, 16, {2, 1}));
  EXPECT_TRUE(l.isSurjective());
  EXPECT_FALSE(l.isInjective());
  EXPECT_EQ(l.getZeroBasisMask("lane"), 0b011000);
  EXPECT_EQ(l.getZeroBasisMask("register"), 0b1000);
  EXPECT_EQ(l.getZeroBasisMask("wave"), 0b1);
}

TEST_F(LinearLayoutConversions, EveryEncodingOwnsEveryElementOnEveryShape) {
  // Over many shapes, smaller and larger than each encoding's tile: every
  // element is owned (up to broadcast), the canonical preimage of every
  // element holds it, and layouts without broadcast invert and round-trip.
  auto m16 = mfma(16, 16, 32, {2, 2});
  auto m32 = mfma(32, 32, 8, {1, 4});
  auto mma = nvMma(2, 16, 8, 32, {2, 1});
  auto f16x128 = mfma(16, 16, 128, {2, 2}, false, 4);
  auto f32x64 = mfma(32, 32, 64, {1, 2}, false, 4);
  SmallVector<Attribute> encs = {
      f16x128,
      f32x64,
      operand(0, f16x128, 16),
      operand(1, f16x128, 16),
      operand(0, f32x64, 16),
      operand(1, f32x64, 32),
      blocked({1, 8}, {4, 16}, {4, 1}, {1, 0}),
      blocked({4, 1}, {8, 4}, {1, 2}, {0, 1}),
      SliceLayoutAttr::get(&ctx, 1,
                           blocked({1, 1, 4}, {2, 4, 4}, {2, 1, 1}, {2, 1, 0})),
      m16,
      m32,
      mfma(32, 32, 16, {2, 1}, true),
      operand(0, m16, 8),
      operand(1, m16, 16),
      operand(0, m32, 4),
      operand(1, m32, 4),
      mma,
      operand(0, mma, 4),
      operand(1, mma, 4),
      nvMma(3, 64, 128, 32, {4, 2}),
  };
  int bijections = 0;
  for (Attribute enc : encs)
    for (int64_t r : {1, 4, 16, 64, 256})
      for (int64_t c : {2, 8, 32, 128}) {
        SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c));
        LL l = convert({r, c}, enc);
        ASSERT_TRUE(l.isSurjective()) << l.toString();
        auto p = l.pseudoInvert();
        ASSERT_TRUE(succeeded(p));
        for (int32_t i = 0; i < r; ++i)
          for (int32_t j = 0; j < c; ++j)
            ASSERT_EQ(l.apply(p->apply({i, j})), (SmallVector<int32_t>{i, j}));
        if (!l.isInjective())
          continue;
        ++bijections;
        auto inv = l.invert();
        ASSERT_TRUE(succeeded(inv));
        for (auto &x : allInputs(l))
          ASSERT_EQ(inv->apply(l.apply(x)), x);
      }
  EXPECT_GT(bijections, 10);
}

//===----------------------------------------------------------------------===//
// Shared (swizzled) layouts
//===----------------------------------------------------------------------===//

/// The documented offset of (r, c) in a [R, C] tile (order [1, 0]).
int64_t swizzledOffset(int64_t r, int64_t c, int64_t C, int64_t vec,
                       int64_t perPhase, int64_t maxPhase) {
  int64_t v = std::min(vec, C);
  int64_t phase = (r / perPhase) % maxPhase;
  return r * C + (((c / v) ^ phase) % (C / v)) * v + c % v;
}

TEST_F(LinearLayoutConversions, SharedLayoutsAreTheDocumentedBijections) {
  struct Case {
    int64_t R, C;
    unsigned vec, perPhase, maxPhase;
  };
  for (Case c :
       {Case{64, 64, 8, 1, 8}, Case{32, 128, 16, 1, 8}, Case{64, 32, 8, 2, 4},
        Case{16, 16, 8, 1, 8}, Case{8, 64, 4, 4, 16}, Case{32, 32, 1, 1, 1},
        Case{4, 8, 16, 1, 8}}) {
    SCOPED_TRACE(std::to_string(c.R) + "x" + std::to_string(c.C) + " vec " +
                 std::to_string(c.vec));
    auto enc = SharedLayoutAttr::get(&ctx, c.vec, c.perPhase, c.maxPhase,
                                     ArrayRef<unsigned>{1, 0});
    LL l = convert({c.R, c.C}, enc);
    ASSERT_TRUE(l.isInvertible()) << l.toString();
    auto inv = l.invert();
    ASSERT_TRUE(succeeded(inv));
    for (int32_t r = 0; r < c.R; ++r)
      for (int32_t col = 0; col < c.C; ++col) {
        int64_t off =
            swizzledOffset(r, col, c.C, c.vec, c.perPhase, c.maxPhase);
        ASSERT_EQ(inv->apply({r, col})[0], off);
        ASSERT_EQ(l.apply({int32_t(off)}), (SmallVector<int32_t>{r, col}));
      }
  }
  // Column-major order: the fast dim is dim0.
  auto cm = SharedLayoutAttr::get(&ctx, 8, 1, 8, ArrayRef<unsigned>{0, 1});
  LL l = convert({64, 16}, cm);
  for (int32_t r = 0; r < 64; ++r)
    for (int32_t col = 0; col < 16; ++col)
      ASSERT_EQ(l.apply({int32_t(swizzledOffset(col, r, 64, 8, 1, 8))}),
                (SmallVector<int32_t>{r, col}));
}

/// Number of 16-byte accesses among `lanes` consecutive rows reading the
/// same 16-byte column group that fall on one 16-byte bank group (LDS: 32
/// banks of 4 bytes, so 8 groups of 16 bytes); 1 means conflict-free.
int maxBankGroupLoad(const LL &inv, int64_t rows, int64_t cols, int elemBytes) {
  int vecElems = 16 / elemBytes, worst = 0;
  for (int64_t r0 = 0; r0 + 8 <= rows; r0 += 8)
    for (int64_t c = 0; c < cols; c += vecElems) {
      std::map<int64_t, int> load;
      for (int64_t r = r0; r < r0 + 8; ++r) {
        int64_t off = inv.apply({int32_t(r), int32_t(c)})[0];
        // The 16 bytes a lane reads must stay together in memory.
        for (int e = 1; e < vecElems; ++e)
          EXPECT_EQ(inv.apply({int32_t(r), int32_t(c + e)})[0], off + e);
        worst = std::max(worst, ++load[(off * elemBytes / 16) % 8]);
      }
    }
  return worst;
}

TEST_F(LinearLayoutConversions, SwizzleAvoidsBankConflictsForColumnAccess) {
  struct Case {
    int64_t R, C;
    int elemBytes;
    unsigned vec, perPhase, maxPhase;
  };
  // Rows of 128 bytes (fp16 x 64, fp8 x 128) and of 64 bytes (fp16 x 32).
  for (Case c : {Case{64, 64, 2, 8, 1, 8}, Case{64, 128, 1, 16, 1, 8},
                 Case{64, 32, 2, 8, 2, 4}, Case{32, 256, 1, 16, 1, 8}}) {
    auto swz = SharedLayoutAttr::get(&ctx, c.vec, c.perPhase, c.maxPhase,
                                     ArrayRef<unsigned>{1, 0});
    auto plain =
        SharedLayoutAttr::get(&ctx, c.vec, 1, 1, ArrayRef<unsigned>{1, 0});
    auto swzInv = convert({c.R, c.C}, swz).invert();
    auto plainInv = convert({c.R, c.C}, plain).invert();
    ASSERT_TRUE(succeeded(swzInv) && succeeded(plainInv));
    EXPECT_EQ(maxBankGroupLoad(*swzInv, c.R, c.C, c.elemBytes), 1)
        << "swizzled " << c.R << "x" << c.C;
    // Without the swizzle the same access conflicts.
    EXPECT_GT(maxBankGroupLoad(*plainInv, c.R, c.C, c.elemBytes), 1);
  }
}

//===----------------------------------------------------------------------===//
// Conversions between layouts through the algebra
//===----------------------------------------------------------------------===//

TEST_F(LinearLayoutConversions, AccumulatorToBlockedConversionMap) {
  // For each register/lane/wave of the MFMA accumulator, the position in a
  // blocked layout of the same tensor that holds the same element.
  LL acc = convert({32, 32}, mfma(16, 16, 32, {2, 1}));
  LL blk = convert({32, 32}, blocked({1, 4}, {8, 8}, {2, 1}, {1, 0}));
  auto map = acc.invertAndCompose(blk);
  ASSERT_TRUE(succeeded(map));
  for (auto &x : allInputs(acc))
    ASSERT_EQ(blk.apply(map->apply(x)), acc.apply(x));
}

//===----------------------------------------------------------------------===//
// #tile.linear and reshapes that relabel coordinate bits
//===----------------------------------------------------------------------===//

TEST_F(LinearLayoutConversions, LinearEncodingIsItsBases) {
  // Any layout of DistributedLayout's form, written as #tile.linear, is the
  // same map again; under a slice its bits along the sliced dim wrap to
  // broadcasts, so a lane holds what it holds under the slice of the
  // original encoding (DistributedLayout drops the registers that wrap).
  auto m = mfma(16, 16, 32, {2, 2}, true);
  LL acc = convert({64, 128}, m);
  auto enc = LinearEncodingAttr::get(&ctx, acc);
  EXPECT_EQ(enc.getRank(), 2u);
  EXPECT_EQ(convert({64, 128}, enc), acc);
  auto held = [&](Attribute parent) {
    auto d = DistributedLayout::get(RankedTensorType::get(
        {128}, Float32Type::get(&ctx), SliceLayoutAttr::get(&ctx, 0, parent)));
    EXPECT_TRUE(succeeded(d));
    return succeeded(d) ? d->getLinearLayout() : LL();
  };
  EXPECT_EQ(held(enc), held(m));
}

TEST_F(LinearLayoutConversions, ReshapeOfMfmaAccumulatorOnlyRelabelsBits) {
  // A [rows * heads, chunk] MFMA accumulator reshaped to [rows, heads,
  // chunk] (what tile-assign-layouts gives the logits kernel's reshape):
  // every (register, lane, wave) holds, in the relabelled layout, the
  // row-major relabelling of the element it held before, checked element
  // by element; reducing over heads then needs registers and lane bits 4-5
  // only (no wave bits), since the waves are along the chunk.
  const int64_t rows = 2, heads = 64, chunk = 128;
  LL acc = convert({rows * heads, chunk}, mfma(16, 16, 32, {1, 4}));
  LL renamed = acc.renameOutDim("dim0", "src0").renameOutDim("dim1", "src1");
  auto relabelled = renamed.reshapeOuts({{"dim0", int32_t(rows)},
                                         {"dim1", int32_t(heads)},
                                         {"dim2", int32_t(chunk)}});
  ASSERT_TRUE(succeeded(relabelled));
  auto enc = LinearEncodingAttr::get(&ctx, *relabelled);
  LL l3 = convert({rows, heads, chunk}, enc);
  for (auto &x : allInputs(acc)) {
    SmallVector<int32_t> mn = acc.apply(x), rhc = l3.apply(x);
    int64_t flat = int64_t(mn[0]) * chunk + mn[1];
    ASSERT_EQ(rhc[0], flat / (heads * chunk));
    ASSERT_EQ(rhc[1], flat / chunk % heads);
    ASSERT_EQ(rhc[2], flat % chunk);
  }
  auto d = DistributedLayout::get(
      RankedTensorType::get({rows, heads, chunk}, Float32Type::get(&ctx), enc));
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(d->getNumElems(), rows * heads * chunk / (64 * 4));
  EXPECT_EQ(d->distinctWaveBits(1), 0u);
  EXPECT_TRUE(d->hasContiguousLaneBits(1));
  EXPECT_EQ(d->laneBitBase(1), 4u);
  EXPECT_EQ(d->distinctLaneBits(1), 2u);
  EXPECT_EQ(d->getElemsAlong(1), heads / 4);
}

} // namespace
