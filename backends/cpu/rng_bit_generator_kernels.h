// The generators of rng-bit-generator over runs of counters, for the CPU
// backend's thunk (rng_bit_generator_thunk.h): ThreeFry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds), 16 counters at a time in vector lanes.  Built
// twice, for the baseline ISA and for AVX-512 (the same source under two
// namespaces, see the BUILD file); the thunk picks one by the host.  Plain
// loops only, no standard-library templates: an inline function compiled
// for AVX-512 here must not be what the linker keeps for the baseline code
// elsewhere.
//
// Counters wrap modulo 2^64 (ThreeFry) or 2^128 (Philox), as XLA's do.
// Words narrower than 32 bits keep the low bits of each 32-bit word.
// `width` is the output element's size in bytes: 1, 2, 4 or 8.
#ifndef TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_KERNELS_H_
#define TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_KERNELS_H_

#include <cstdint>

namespace tessera {
namespace cpu {
namespace rng_internal {

// The three ThreeFry layouts, for counters first, first + 1, ...,
// first + count - 1 (the i-th is counter i below), with (x0, x1) each
// counter's pair of words:
//   ThreeFryInterleaved: out[2i] = x0, out[2i + 1] = x1, writing only the
//     first `limit` elements of out (an odd split dimension's last pair);
//   ThreeFrySplit: x0 to out_x0[i], x1 to out_x1[i] (null: not written);
//   ThreeFryWide (width 8): out[i] = x0 | x1 << 32.
// PhiloxWords: counter i (the 128-bit (low, high) advanced by i) makes the
// words w0..w3, stored as out[4i + j] = wj (width 8: out[2i] = w0 | w1 <<
// 32, out[2i + 1] = w2 | w3 << 32), writing only the first `limit`
// elements of out.
#define TESSERA_RNG_DECLARE(ns)                                                                    \
  namespace ns {                                                                                   \
  void ThreeFryInterleaved(uint64_t key, uint64_t first, int64_t count, int width, void* out,      \
                           int64_t limit);                                                         \
  void ThreeFrySplit(uint64_t key, uint64_t first, int64_t count, int width, void* out_x0,         \
                     void* out_x1);                                                                \
  void ThreeFryWide(uint64_t key, uint64_t first, int64_t count, uint64_t* out);                   \
  void PhiloxWords(uint64_t key, uint64_t low, uint64_t high, int64_t count, int width, void* out, \
                   int64_t limit);                                                                 \
  }

TESSERA_RNG_DECLARE(baseline)
TESSERA_RNG_DECLARE(avx512)

#undef TESSERA_RNG_DECLARE

}  // namespace rng_internal
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_RNG_BIT_GENERATOR_KERNELS_H_
