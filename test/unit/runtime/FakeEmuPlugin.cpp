//===- FakeEmuPlugin.cpp - A stand-in for libtessel_emu.so in tests -------===//
//
// Implements tessel/emu_plugin.h without MLIR. Its "SIMT IR" is one line,
//   FAKE-SIMT kernel=indexer_k_cache_write fp8=e4m3fn|e4m3fnuz tpp=N
//             [preshuffle=0|1 ue8m0=0|1]
// and launching it runs a hand-written indexer_k_cache_write (the engines'
// scale convention of DESIGN.md 3.4, plain or preshuffled) that reads its
// 19 flattened parameters exactly as the launch ABI lays them out, one
// workgroup per tokens_per_program tokens, with every access bounds-checked
// against its memref size (as the real emulator does). fp8 rounding here is
// bit arithmetic, independent of the tests' exhaustive-search reference.
//
//===----------------------------------------------------------------------===//

#include "tessel/emu_plugin.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

struct tessel_emu_module {
  std::string kernel;
  bool fnuz = false;
  long tpp = 1;
  int preshuffle = 0, ue8m0 = 0;
};

extern "C" {

__attribute__((visibility("default"))) std::atomic<int> fake_emu_loads{0};

// Launches of kernels other than the writer are recorded, not run: the
// kernel, grid and each parameter's first 8 bytes (the runtime's parameter
// slots are 8 bytes), for tests of marshalling and launch order.
struct FakeLaunch {
  char kernel[64];
  uint32_t grid[3];
  size_t numParams;
  uint64_t params[64];
};
__attribute__((visibility("default"))) FakeLaunch fake_emu_log[16];
__attribute__((visibility("default"))) std::atomic<int> fake_emu_log_count{0};
__attribute__((visibility("default"))) std::atomic<int> fake_emu_launches{0};

int tessel_emu_abi_version(void) { return TESSEL_EMU_PLUGIN_ABI_VERSION; }

int tessel_emu_module_load(const char *ir, size_t len, tessel_emu_module **out,
                           char *err, size_t errLen) {
  std::string text(ir, len);
  char kernel[128], fp8[32];
  long tpp = 0;
  if (sscanf(text.c_str(), "FAKE-SIMT kernel=%127s fp8=%31s tpp=%ld", kernel,
             fp8, &tpp) != 3 ||
      tpp < 1) {
    snprintf(err, errLen, "fake emulator: cannot parse module '%s'",
             text.c_str());
    return 1;
  }
  auto *m = new tessel_emu_module;
  const char *opt = strstr(text.c_str(), "preshuffle=");
  if (opt)
    sscanf(opt, "preshuffle=%d ue8m0=%d", &m->preshuffle, &m->ue8m0);
  m->kernel = kernel;
  m->fnuz = std::string(fp8) == "e4m3fnuz";
  m->tpp = tpp;
  *out = m;
  ++fake_emu_loads;
  return 0;
}

void tessel_emu_module_unload(tessel_emu_module *m) { delete m; }

static uint8_t encode(bool fnuz, float x) {
  if (std::isnan(x))
    return fnuz ? 0x80 : 0x7f;
  bool neg = std::signbit(x);
  double a = std::fabs(static_cast<double>(x));
  int bias = fnuz ? 8 : 7;
  double maxv = fnuz ? 240.0 : 448.0;
  uint8_t code;
  if (a >= maxv) {
    code = fnuz ? 0x7f : 0x7e;
  } else {
    int e;
    std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
    int unb = e - 1;   // a in [2^unb, 2^(unb+1))
    int minUnb = 1 - bias;
    if (a == 0 || unb < minUnb) {
      double q = std::nearbyint(std::ldexp(a, bias - 1 + 3)); // subnormal
      code = static_cast<uint8_t>(q);
    } else {
      double mant = std::nearbyint((std::ldexp(a, -unb) - 1.0) * 8.0);
      if (mant == 8) {
        mant = 0;
        ++unb;
      }
      int be = unb + bias;
      code = static_cast<uint8_t>((be << 3) | static_cast<int>(mant));
      if (std::ldexp(1.0 + mant / 8.0, unb) > maxv)
        code = fnuz ? 0x7f : 0x7e;
    }
  }
  if (neg && !(fnuz && code == 0))
    code |= 0x80;
  return code;
}

int tessel_emu_launch(tessel_emu_module *m, const char *kernel,
                      const uint32_t grid[3], const uint32_t block[3], void **p,
                      size_t numParams, char *err, size_t errLen) {
  if (m->kernel != kernel) {
    snprintf(err, errLen, "no kernel '%s' in module", kernel);
    return 1;
  }
  if (m->kernel != "indexer_k_cache_write") {
    int i = fake_emu_log_count++;
    if (i < 16) {
      FakeLaunch &l = fake_emu_log[i];
      snprintf(l.kernel, sizeof l.kernel, "%s", kernel);
      memcpy(l.grid, grid, sizeof l.grid);
      l.numParams = numParams;
      for (size_t j = 0; j < numParams && j < 64; ++j)
        memcpy(&l.params[j], p[j], 8);
    }
    return 0;
  }
  if (numParams != 19) {
    snprintf(err, errLen, "kernel takes 19 params, got %zu", numParams);
    return 1;
  }
  if (block[0] < 1 || block[1] != 1 || block[2] != 1 || grid[1] != 1 ||
      grid[2] != 1) {
    snprintf(err, errLen, "bad launch shape");
    return 1;
  }
  auto ptr = [&](int i) { return *static_cast<uint8_t **>(p[i]); };
  auto i64 = [&](int i) { return *static_cast<int64_t *>(p[i]); };
  auto i32 = [&](int i) { return *static_cast<int32_t *>(p[i]); };
  uint8_t *k = ptr(1), *slots = ptr(6), *cache = ptr(11);
  int64_t kSize = i64(3), sSize = i64(8), cSize = i64(13);
  if (ptr(0) != k || ptr(5) != slots || ptr(10) != cache || i64(2) != 0 ||
      i64(7) != 0 || i64(12) != 0 || i64(4) != 1 || i64(9) != 1 ||
      i64(14) != 1) {
    snprintf(err, errLen, "memref descriptors are not (base, base, 0, n, 1)");
    return 1;
  }
  int32_t T = i32(15);
  int64_t rowStride = i64(16);
  int32_t bs = i32(17);
  int64_t numSlots = i64(18);
  // The element size of k (the k_bf16 knob) follows from the memref size.
  const int64_t D = 128;
  int64_t esize = T > 0 ? kSize / ((T - 1) * rowStride + D) : 0;
  if (esize != 2 && esize != 4) {
    snprintf(err, errLen, "k size %lld does not match T/row stride",
             (long long)kSize);
    return 1;
  }
  for (uint32_t pid = 0; pid < grid[0]; ++pid) {
    for (long j = 0; j < m->tpp; ++j) {
      int64_t t = static_cast<int64_t>(pid) * m->tpp + j;
      if (t >= T)
        break;
      if (t >= sSize) {
        snprintf(err, errLen, "out-of-bounds read of slot_mapping[%lld]",
                 (long long)t);
        return 1;
      }
      int64_t s;
      std::memcpy(&s, slots + 8 * t, 8);
      if (s < 0 || s >= numSlots)
        continue;
      float vals[128];
      float amax = 0;
      for (int64_t d = 0; d < D; ++d) {
        int64_t byte = (t * rowStride + d) * esize;
        if (byte + esize > kSize) {
          snprintf(err, errLen, "out-of-bounds read of k byte %lld",
                   (long long)byte);
          return 1;
        }
        float v;
        if (esize == 2) {
          uint16_t h;
          std::memcpy(&h, k + byte, 2);
          uint32_t u = static_cast<uint32_t>(h) << 16;
          std::memcpy(&v, &u, 4);
        } else {
          std::memcpy(&v, k + byte, 4);
        }
        vals[d] = v;
        amax = std::fmax(amax, std::fabs(v));
      }
      float scale = std::fmax(amax, 1e-4f) / (m->fnuz ? 224.0f : 448.0f);
      if (m->ue8m0) {
        uint32_t u;
        std::memcpy(&u, &scale, 4);
        u = (u + 0x7fffffu) & 0xff800000u;
        std::memcpy(&scale, &u, 4);
      }
      int64_t blk = s / bs, off = s % bs;
      int64_t base = blk * bs * (D + 4);
      for (int64_t d = 0; d < D; ++d) {
        int64_t byte = base + (m->preshuffle ? (off / 16 * 8 + d / 16) * 256 +
                                                   off % 16 * 16 + d % 16
                                             : off * D + d);
        if (byte >= cSize) {
          snprintf(err, errLen, "out-of-bounds write of cache byte %lld",
                   (long long)byte);
          return 1;
        }
        cache[byte] = encode(m->fnuz, vals[d] / scale);
      }
      int64_t sb = base + bs * D + off * 4;
      if (sb + 4 > cSize) {
        snprintf(err, errLen, "out-of-bounds write of cache byte %lld",
                 (long long)sb);
        return 1;
      }
      std::memcpy(cache + sb, &scale, 4);
    }
  }
  ++fake_emu_launches;
  return 0;
}

} // extern "C"
