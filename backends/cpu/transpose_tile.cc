// The 16x16 tile transpose; see transpose_tile.h.
#include "backends/cpu/transpose_tile.h"

#include <cstdint>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/llvm_jit_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tessera {
namespace cpu {
namespace {

constexpr int kSize = static_cast<int>(kTransposeTileRoutineSize);

#if defined(__x86_64__)
__attribute__((target("avx512f"))) __m512 LowPairs(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}
__attribute__((target("avx512f"))) __m512 HighPairs(__m512 a, __m512 b) {
  return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
}

// Rounds 1 and 2 interleave 32-bit, then 64-bit elements of row pairs
// within each 128-bit lane: row 4g+k then holds, in lane L, rows 4g..4g+3
// of column 4L+k.  Rounds 3 and 4 transpose the 4x4 grid of lanes among
// rows k, 4+k, 8+k and 12+k.
__attribute__((target("avx512f"))) void TransposeTileAvx512(const void* src, int64_t src_stride,
                                                            void* dst) {
  const float* in = static_cast<const float*>(src);
  float* out = static_cast<float*>(dst);
  // Every loop unrolled, so that rows and pairs live in the 32 registers:
  // at -O2 GCC kept the loops and both arrays on the stack, a store and a
  // load per step (the routine took 2.4 times as long, and x.T + y of
  // 2048x2048 2.4-2.6 ms against 1.4 for the same kernel with an unrolled
  // routine).
  __m512 rows[kSize], pairs[kSize];
#pragma GCC unroll 16
  for (int i = 0; i < kSize; ++i) rows[i] = _mm512_loadu_ps(in + i * src_stride);
#pragma GCC unroll 8
  for (int i = 0; i < kSize / 2; ++i) {
    pairs[2 * i] = _mm512_unpacklo_ps(rows[2 * i], rows[2 * i + 1]);
    pairs[2 * i + 1] = _mm512_unpackhi_ps(rows[2 * i], rows[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int g = 0; g < kSize / 4; ++g) {
    rows[4 * g + 0] = LowPairs(pairs[4 * g], pairs[4 * g + 2]);
    rows[4 * g + 1] = HighPairs(pairs[4 * g], pairs[4 * g + 2]);
    rows[4 * g + 2] = LowPairs(pairs[4 * g + 1], pairs[4 * g + 3]);
    rows[4 * g + 3] = HighPairs(pairs[4 * g + 1], pairs[4 * g + 3]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    // _mm512_shuffle_f32x4(a, b, imm): lanes a[imm0], a[imm1], b[imm2], b[imm3].
    const __m512 first = _mm512_shuffle_f32x4(rows[k], rows[4 + k], 0x44);   // a0 a1 b0 b1
    const __m512 second = _mm512_shuffle_f32x4(rows[k], rows[4 + k], 0xEE);  // a2 a3 b2 b3
    const __m512 third = _mm512_shuffle_f32x4(rows[8 + k], rows[12 + k], 0x44);
    const __m512 fourth = _mm512_shuffle_f32x4(rows[8 + k], rows[12 + k], 0xEE);
    _mm512_storeu_ps(out + (0 + k) * kSize, _mm512_shuffle_f32x4(first, third, 0x88));
    _mm512_storeu_ps(out + (4 + k) * kSize, _mm512_shuffle_f32x4(first, third, 0xDD));
    _mm512_storeu_ps(out + (8 + k) * kSize, _mm512_shuffle_f32x4(second, fourth, 0x88));
    _mm512_storeu_ps(out + (12 + k) * kSize, _mm512_shuffle_f32x4(second, fourth, 0xDD));
  }
}
#endif

}  // namespace

void TransposeTileScalar(const void* src, int64_t src_stride, void* dst) {
  const char* in = static_cast<const char*>(src);
  char* out = static_cast<char*>(dst);
  for (int a = 0; a < kSize; ++a) {
    for (int i = 0; i < kSize; ++i) {
      std::memcpy(out + (a * kSize + i) * 4, in + (i * src_stride + a) * 4, 4);
    }
  }
}

TransposeTileFunction TransposeTileRoutine() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return TransposeTileAvx512;
#endif
  return TransposeTileScalar;
}

void RegisterTransposeTileRoutine() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm_ir::RegisterRuntimeSymbols(
        kTransposeTileRoutine,
        [](absl::string_view name, const llvm_ir::JitOptions&) -> absl::StatusOr<uint64_t> {
          if (name != kTransposeTileRoutine) {
            return absl::NotFoundError(absl::StrCat("'", name, "' is not a tile transpose"));
          }
          return reinterpret_cast<uint64_t>(TransposeTileRoutine());
        });
  });
}

}  // namespace cpu
}  // namespace tessera
