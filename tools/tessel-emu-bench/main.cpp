//===- tessel-emu-bench - SIMT emulator throughput
//--------------------------===//
//
// Runs a representative SIMT kernel (an indexer-logits-like inner loop: per
// token, fp8 K of D=128 dequantized to f32, dotted with each head's query,
// relu, weighted sum over heads) on the emulator and prints the emulated
// lane-operations per second. Usage:
//   tessel-emu-bench [--tokens N] [--heads N] [--reps N]
//
//===----------------------------------------------------------------------===//
#include "tessel/Emulator/Emulator.h"

#include "cli.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace tessel::emu;

static std::string benchKernel() {
  const std::string g = "#gpu.address_space<global>";
  const std::string mi8 = "memref<?xi8, " + g + ">";
  const std::string mf = "memref<?xf32, " + g + ">";
  std::string s =
      "module attributes {gpu.container_module} {\ngpu.module @bench {\n"
      "gpu.func @logits(%K: " +
      mi8 + ", %Q: " + mf + ", %W: " + mf + ", %O: " + mf +
      ", %ntok: i32, %heads: i32) kernel attributes "
      "{known_block_size = array<i32: 256, 1, 1>, tessel.target = \"gfx942\"} "
      "{\n"
      "%t = gpu.thread_id x\n%b = gpu.block_id x\n"
      "%c256 = arith.constant 256 : index\n"
      "%base = arith.muli %b, %c256 : index\n"
      "%tok = arith.addi %base, %t : index\n"
      "%n = arith.index_cast %ntok : i32 to index\n"
      "%in = arith.cmpi ult, %tok, %n : index\n"
      "scf.if %in {\n"
      "%c128 = arith.constant 128 : index\n"
      "%kb = arith.muli %tok, %c128 : index\n";
  for (int c = 0; c < 8; ++c) {
    std::string i = std::to_string(c);
    s += "%ko" + i + " = arith.constant " + std::to_string(16 * c) +
         " : index\n";
    s += "%ka" + i + " = arith.addi %kb, %ko" + i + " : index\n";
    s += "%kr" + i + " = vector.load %K[%ka" + i + "] : " + mi8 +
         ", vector<16xi8>\n";
    s += "%kf" + i + " = arith.bitcast %kr" + i +
         " : vector<16xi8> to vector<16xf8E4M3FNUZ>\n";
    s += "%k" + i + " = arith.extf %kf" + i +
         " : vector<16xf8E4M3FNUZ> to vector<16xf32>\n";
  }
  s += "%H = arith.index_cast %heads : i32 to index\n"
       "%zero = arith.constant 0.0 : f32\n"
       "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
       "%res = scf.for %h = %c0 to %H step %c1 iter_args(%s = %zero) -> (f32) "
       "{\n"
       "%qb = arith.muli %h, %c128 : index\n"
       "%a0 = arith.constant dense<0.0> : vector<16xf32>\n";
  for (int c = 0; c < 8; ++c) {
    std::string i = std::to_string(c), n = std::to_string(c + 1);
    s += "%qo" + i + " = arith.constant " + std::to_string(16 * c) +
         " : index\n";
    s += "%qa" + i + " = arith.addi %qb, %qo" + i + " : index\n";
    s += "%q" + i + " = vector.load %Q[%qa" + i + "] : " + mf +
         ", vector<16xf32>\n";
    s += "%a" + n + " = vector.fma %k" + i + ", %q" + i + ", %a" + i +
         " : vector<16xf32>\n";
  }
  s += "%d = vector.reduction <add>, %a8 : vector<16xf32> into f32\n"
       "%r = arith.maximumf %d, %zero : f32\n"
       "%w = memref.load %W[%h] : " +
       mf +
       "\n"
       "%s2 = math.fma %r, %w, %s : f32\n"
       "scf.yield %s2 : f32\n}\n"
       "memref.store %res, %O[%tok] : " +
       mf +
       "\n"
       "}\ngpu.return\n}\n}\n}\n";
  return s;
}

static double fp8fnuz(uint8_t c) {
  if (c == 0x80)
    return NAN;
  int e = (c >> 3) & 15, m = c & 7;
  double v = e ? std::ldexp(1.0 + m / 8.0, e - 8) : std::ldexp(m / 8.0, -7);
  return (c & 0x80) ? -v : v;
}

int main(int argc, char **argv) {
  uint64_t tokensArg = 16384, headsArg = 64, repsArg = 1;
  const std::vector<cli::Option> options = {
      cli::unsignedNumber("--tokens", "tokens of K (1 to 2^20)", tokensArg),
      cli::unsignedNumber("--heads", "query heads (1 to 128)", headsArg),
      cli::unsignedNumber("--reps", "timed launches (1 to 100)", repsArg)};
  if (!cli::parseOrReport("tessel-emu-bench", argc, argv, options))
    return 2;
  // Bounded so that the buffers and the run stay small.
  auto inRange = [](const char *name, uint64_t v, uint64_t max) {
    if (v >= 1 && v <= max)
      return true;
    std::fprintf(stderr, "tessel-emu-bench: %s %llu is not in 1 to %llu\n",
                 name, (unsigned long long)v, (unsigned long long)max);
    return false;
  };
  if (!inRange("--tokens", tokensArg, 1 << 20) ||
      !inRange("--heads", headsArg, 128) || !inRange("--reps", repsArg, 100))
    return 2;
  const int tokens = int(tokensArg), heads = int(headsArg), reps = int(repsArg);
  auto t0 = std::chrono::steady_clock::now();
  auto mod = Module::parse(benchKernel());
  if (!mod) {
    std::fprintf(stderr, "load failed: %s\n",
                 llvm::toString(mod.takeError()).c_str());
    return 1;
  }
  auto t1 = std::chrono::steady_clock::now();
  std::mt19937 rng(1);
  std::vector<uint8_t> K((size_t)tokens * 128);
  for (auto &k : K) {
    k = (uint8_t)(rng() & 0xff);
    if (k == 0x80)
      k = 0;
  }
  std::vector<float> Q((size_t)heads * 128), W(heads), O(tokens, 0);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto &q : Q)
    q = d(rng);
  for (auto &w : W)
    w = d(rng);
  uint32_t grid = (uint32_t)((tokens + 255) / 256);
  LaunchStats st;
  uint64_t laneOps = 0;
  auto t2 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    llvm::Error e =
        (*mod)->launchArgs("logits", {grid, 1, 1}, {256, 1, 1},
                           {KernelArg::buffer(K.data(), K.size()),
                            KernelArg::buffer(Q.data(), Q.size()),
                            KernelArg::buffer(W.data(), W.size()),
                            KernelArg::buffer(O.data(), O.size()),
                            KernelArg::i32(tokens), KernelArg::i32(heads)},
                           {}, &st);
    if (e) {
      std::fprintf(stderr, "launch failed: %s\n",
                   llvm::toString(std::move(e)).c_str());
      return 1;
    }
    laneOps += st.laneOps;
  }
  auto t3 = std::chrono::steady_clock::now();
  // Check a few tokens against a float64 reference.
  double maxErr = 0;
  for (int t = 0; t < tokens; t += std::max(1, tokens / 97)) {
    double s = 0;
    for (int h = 0; h < heads; ++h) {
      double dot = 0;
      for (int i = 0; i < 128; ++i)
        dot += fp8fnuz(K[(size_t)t * 128 + i]) * Q[h * 128 + i];
      s += std::max(dot, 0.0) * W[h];
    }
    maxErr = std::max(maxErr, std::fabs(s - O[t]) / (1 + std::fabs(s)));
  }
  double secs = std::chrono::duration<double>(t3 - t2).count();
  std::printf("kernel: logits-like, tokens=%d heads=%d D=128, grid=%u x 256 "
              "threads, reps=%d\n",
              tokens, heads, grid, reps);
  std::printf("load+compile: %.3f s\n",
              std::chrono::duration<double>(t1 - t0).count());
  std::printf("run: %.3f s, %.3e lane-ops, %.3e lane-ops/s\n", secs,
              (double)laneOps, laneOps / secs);
  std::printf("max relative error vs float64 reference: %.2e\n", maxErr);
  return maxErr < 1e-3 ? 0 : 1;
}
