//===- LinearLayoutTest.cpp - The GF(2) layout algebra and conversions ----===//
//
// The algebra is checked against brute-force enumeration on random layouts.
//
//===----------------------------------------------------------------------===//
#include "tessel/Dialect/Tile/LinearLayout.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
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
}

} // namespace
