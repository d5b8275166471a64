// The generators; see rng_bit_generator_kernels.h.  Each of 16 lanes runs
// one counter through the rounds, so a round is the same few vector
// operations on every lane (one register of words with AVX-512).  The
// rounds and constants are those of hlo/evaluator/evaluator_rng.cc, which
// checks them against the Random123 known answers.
#include "backends/cpu/rng_bit_generator_kernels.h"

namespace tessera {
namespace cpu {
namespace rng_internal {
#ifdef TESSERA_RNG_AVX512
namespace avx512 {
#else
namespace baseline {
#endif
namespace {

constexpr int kLanes = 16;
typedef uint32_t Words __attribute__((vector_size(4 * kLanes)));
typedef uint64_t Wide __attribute__((vector_size(8 * kLanes)));

// first, first + 1, ..., first + 15, modulo 2^64.
Wide Counters(uint64_t first) {
  const Wide iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return first + iota;
}
Words Low(Wide v) { return __builtin_convertvector(v, Words); }
Words High(Wide v) { return __builtin_convertvector(v >> 32, Words); }
Wide Widen(Words v) { return __builtin_convertvector(v, Wide); }

// One ThreeFry round: x0 += x1; x1 = rotl(x1, R) ^ x0.
template <int R>
void Mix(Words& x0, Words& x1) {
  x0 += x1;
  x1 = (x1 << R) | (x1 >> (32 - R));
  x1 ^= x0;
}

// ThreeFry-2x32-20 of the 16 counters from `first` (x0 from the low word).
void ThreeFry(uint64_t key, uint64_t first, Words& x0, Words& x1) {
  const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  const uint32_t ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
  const Wide counters = Counters(first);
  x0 = Low(counters) + k0;
  x1 = High(counters) + k1;
  for (uint32_t i = 1; i <= 5; ++i) {
    if (i % 2 == 1) {
      Mix<13>(x0, x1), Mix<15>(x0, x1), Mix<26>(x0, x1), Mix<6>(x0, x1);
    } else {
      Mix<17>(x0, x1), Mix<29>(x0, x1), Mix<16>(x0, x1), Mix<24>(x0, x1);
    }
    x0 += ks[i % 3];
    x1 += ks[(i + 1) % 3] + i;
  }
}

// Philox-4x32-10 of the 16 128-bit counters from (low, high).
void Philox(uint64_t key, uint64_t low, uint64_t high, Words w[4]) {
  constexpr uint32_t kW32A = 0x9E3779B9, kW32B = 0xBB67AE85;
  constexpr uint64_t kM4x32A = 0xD2511F53, kM4x32B = 0xCD9E8D57;
  const Wide lows = Counters(low);
  // A lane whose low word wrapped carries into the high word (the
  // comparison is -1 where true).
  const Wide highs = high - (Wide)(lows < low);
  Words x0 = Low(lows), x1 = High(lows), x2 = Low(highs), x3 = High(highs);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const Wide p0 = Widen(x0) * kM4x32A;
    const Wide p1 = Widen(x2) * kM4x32B;
    x0 = High(p1) ^ x1 ^ k0;
    x1 = Low(p1);
    x2 = High(p0) ^ x3 ^ k1;
    x3 = Low(p0);
    k0 += kW32A;
    k1 += kW32B;
  }
  w[0] = x0, w[1] = x1, w[2] = x2, w[3] = x3;
}

template <typename T>
void Interleaved(uint64_t key, uint64_t first, int64_t count, T* out, int64_t limit) {
  for (int64_t b = 0; b < count; b += kLanes) {
    Words x0, x1;
    ThreeFry(key, first + static_cast<uint64_t>(b), x0, x1);
    T* o = out + 2 * b;
    if (count - b >= kLanes && 2 * (b + kLanes) <= limit) {
      for (int l = 0; l < kLanes; ++l) {
        o[2 * l] = static_cast<T>(x0[l]);
        o[2 * l + 1] = static_cast<T>(x1[l]);
      }
      continue;
    }
    for (int l = 0; l < kLanes && b + l < count; ++l) {
      if (2 * (b + l) < limit) o[2 * l] = static_cast<T>(x0[l]);
      if (2 * (b + l) + 1 < limit) o[2 * l + 1] = static_cast<T>(x1[l]);
    }
  }
}

template <typename T>
void Split(uint64_t key, uint64_t first, int64_t count, T* out_x0, T* out_x1) {
  for (int64_t b = 0; b < count; b += kLanes) {
    Words x0, x1;
    ThreeFry(key, first + static_cast<uint64_t>(b), x0, x1);
    const int n = count - b >= kLanes ? kLanes : static_cast<int>(count - b);
    for (int l = 0; l < n; ++l) out_x0[b + l] = static_cast<T>(x0[l]);
    if (out_x1 == nullptr) continue;
    for (int l = 0; l < n; ++l) out_x1[b + l] = static_cast<T>(x1[l]);
  }
}

template <typename T>
void Words4(uint64_t key, uint64_t low, uint64_t high, int64_t count, T* out, int64_t limit) {
  for (int64_t b = 0; b < count; b += kLanes) {
    const uint64_t step = static_cast<uint64_t>(b);
    Words w[4];
    Philox(key, low + step, high + (low + step < low ? 1 : 0), w);
    T* o = out + 4 * b;
    if (count - b >= kLanes && 4 * (b + kLanes) <= limit) {
      for (int l = 0; l < kLanes; ++l) {
        for (int j = 0; j < 4; ++j) o[4 * l + j] = static_cast<T>(w[j][l]);
      }
      continue;
    }
    for (int l = 0; l < kLanes && b + l < count; ++l) {
      for (int j = 0; j < 4; ++j) {
        if (4 * (b + l) + j < limit) o[4 * l + j] = static_cast<T>(w[j][l]);
      }
    }
  }
}

void WideWords4(uint64_t key, uint64_t low, uint64_t high, int64_t count, uint64_t* out,
                int64_t limit) {
  for (int64_t b = 0; b < count; b += kLanes) {
    const uint64_t step = static_cast<uint64_t>(b);
    Words w[4];
    Philox(key, low + step, high + (low + step < low ? 1 : 0), w);
    const Wide even = Widen(w[0]) | (Widen(w[1]) << 32);
    const Wide odd = Widen(w[2]) | (Widen(w[3]) << 32);
    uint64_t* o = out + 2 * b;
    for (int l = 0; l < kLanes && b + l < count; ++l) {
      if (2 * (b + l) < limit) o[2 * l] = even[l];
      if (2 * (b + l) + 1 < limit) o[2 * l + 1] = odd[l];
    }
  }
}

}  // namespace

void ThreeFryInterleaved(uint64_t key, uint64_t first, int64_t count, int width, void* out,
                         int64_t limit) {
  switch (width) {
    case 1: return Interleaved(key, first, count, static_cast<uint8_t*>(out), limit);
    case 2: return Interleaved(key, first, count, static_cast<uint16_t*>(out), limit);
    default: return Interleaved(key, first, count, static_cast<uint32_t*>(out), limit);
  }
}

void ThreeFrySplit(uint64_t key, uint64_t first, int64_t count, int width, void* out_x0,
                   void* out_x1) {
  switch (width) {
    case 1:
      return Split(key, first, count, static_cast<uint8_t*>(out_x0), static_cast<uint8_t*>(out_x1));
    case 2:
      return Split(key, first, count, static_cast<uint16_t*>(out_x0),
                   static_cast<uint16_t*>(out_x1));
    default:
      return Split(key, first, count, static_cast<uint32_t*>(out_x0),
                   static_cast<uint32_t*>(out_x1));
  }
}

void ThreeFryWide(uint64_t key, uint64_t first, int64_t count, uint64_t* out) {
  for (int64_t b = 0; b < count; b += kLanes) {
    Words x0, x1;
    ThreeFry(key, first + static_cast<uint64_t>(b), x0, x1);
    const Wide words = Widen(x0) | (Widen(x1) << 32);
    for (int l = 0; l < kLanes && b + l < count; ++l) out[b + l] = words[l];
  }
}

void PhiloxWords(uint64_t key, uint64_t low, uint64_t high, int64_t count, int width, void* out,
                 int64_t limit) {
  switch (width) {
    case 1: return Words4(key, low, high, count, static_cast<uint8_t*>(out), limit);
    case 2: return Words4(key, low, high, count, static_cast<uint16_t*>(out), limit);
    case 4: return Words4(key, low, high, count, static_cast<uint32_t*>(out), limit);
    default: return WideWords4(key, low, high, count, static_cast<uint64_t*>(out), limit);
  }
}

}  // namespace avx512 or baseline
}  // namespace rng_internal
}  // namespace cpu
}  // namespace tessera
