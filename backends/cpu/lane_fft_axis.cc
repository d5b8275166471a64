#include "backends/cpu/lane_fft_axis.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <type_traits>

#include "backends/cpu/transpose_tile.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Axes of at least this many points in all split their groups of lines
// over the pool (fewer cost more to hand out than to compute).
constexpr int64_t kParallelPoints = 1 << 15;

// Elements of each line moved between the lines and the lane buffer per
// block (16 lanes x 64 elements x 2 parts: 8 KB of f32).
constexpr int64_t kGatherBlock = 64;

// f32 lines into LaneFft's lanes through 16 x 16 tile transposes: 16
// lines of contiguous elements, line_stride floats apart, complex
// (interleaved parts: 8 elements per tile) or real (16).  Returns how many
// leading elements were moved (the rest, fewer than a tile, are the
// caller's); a real line's imaginary parts come out zero.
int64_t GatherTiles(const float* lines, int64_t line_stride, bool complex, int64_t elements,
                    float* re, float* im) {
  constexpr int L = LaneFft<float>::kLanes;
  const TransposeTileFunction transpose = TransposeTileRoutine();
  alignas(64) float tile[L * L];
  const int64_t per_tile = complex ? L / 2 : L;
  int64_t k0 = 0;
  for (; k0 + per_tile <= elements; k0 += per_tile) {
    if (!complex) {
      transpose(lines + k0, line_stride, re + k0 * L);  // rows become lane vectors
      continue;
    }
    // Row 2j of the transposed tile is element k0 + j's real parts, row
    // 2j + 1 its imaginary parts.
    transpose(lines + 2 * k0, line_stride, tile);
    for (int64_t j = 0; j < per_tile; ++j) {
      std::memcpy(re + (k0 + j) * L, tile + 2 * j * L, sizeof(float) * L);
      std::memcpy(im + (k0 + j) * L, tile + (2 * j + 1) * L, sizeof(float) * L);
    }
  }
  if (!complex) std::memset(im, 0, sizeof(float) * k0 * L);
  return k0;
}

// The inverse of GatherTiles, scaling by `scale`: the real parts only
// where the lines are real.
int64_t ScatterTiles(const float* re, const float* im, float scale, bool complex, int64_t elements,
                     float* lines, int64_t line_stride) {
  constexpr int L = LaneFft<float>::kLanes;
  const TransposeTileFunction transpose = TransposeTileRoutine();
  alignas(64) float tile[L * L], transposed[L * L];
  const int64_t per_tile = complex ? L / 2 : L;
  int64_t k0 = 0;
  for (; k0 + per_tile <= elements; k0 += per_tile) {
    for (int64_t j = 0; j < per_tile; ++j) {
      float* row = tile + (complex ? 2 * j : j) * L;
      std::memcpy(row, re + (k0 + j) * L, sizeof(float) * L);
      if (complex) std::memcpy(row + L, im + (k0 + j) * L, sizeof(float) * L);
    }
    if (scale != 1.0f) {
      for (float& x : tile) x *= scale;
    }
    transpose(tile, L, transposed);  // row l: line l's 16 floats
    float* to = lines + (complex ? 2 * k0 : k0);
    for (int l = 0; l < L; ++l) {
      std::memcpy(to + l * line_stride, transposed + l * L, sizeof(float) * L);
    }
  }
  return k0;
}

}  // namespace

template <typename R>
void LaneTransformAxis(const LaneFft<R>& fft, int64_t outer, int64_t inner, LineIn in_kind,
                       const void* in, LineOut out_kind, void* out, bool inverse,
                       runtime::ThreadPool* pool) {
  using C = std::complex<R>;
  constexpr int L = LaneFft<R>::kLanes;
  const int64_t n = fft.size(), half = n / 2 + 1;
  const int64_t n_in = in_kind == LineIn::kHalfSpectrum ? half : n;
  const int64_t n_out = out_kind == LineOut::kHalfSpectrum ? half : n;
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  const int64_t lines = outer * inner, groups = (lines + L - 1) / L;
  auto run = [&](int64_t begin, int64_t end) {
    // Uninitialized: the gather writes every element the transform reads.
    std::unique_ptr<R[]> buffer(new R[4 * n * L]);
    R* re = buffer.get();
    R* im = re + n * L;
    int64_t in_base[L], out_base[L];
    for (int64_t group = begin; group < end; ++group) {
      const int64_t first = group * L;
      const int count = static_cast<int>(std::min<int64_t>(L, lines - first));
      for (int l = 0; l < count; ++l) {
        const int64_t line = first + l, o = line / inner, c = line % inner;
        in_base[l] = o * n_in * inner + c;
        out_base[l] = o * n_out * inner + c;
      }
      // Lines in, kGatherBlock elements at a time, so that the block of
      // the lane buffer being written stays in the L1 cache.
      const int64_t loaded = in_kind == LineIn::kHalfSpectrum ? n_in : n;
      // Whole groups of contiguous f32 lines go through tile transposes.
      const bool tiles = std::is_same_v<R, float> && inner == 1 && count == L;
      int64_t tiled = 0;
      if constexpr (std::is_same_v<R, float>) {
        if (tiles) {
          const bool complex = in_kind != LineIn::kReal;
          tiled = GatherTiles(static_cast<const float*>(in) + (complex ? 2 : 1) * in_base[0],
                              (complex ? 2 : 1) * n_in, complex, loaded, re, im);
        }
      }
      for (int64_t k0 = tiled; k0 < loaded; k0 += kGatherBlock) {
        const int64_t k1 = std::min(loaded, k0 + kGatherBlock);
        for (int l = 0; l < L; ++l) {
          if (l >= count) {  // a partial group's idle lanes: zeros
            for (int64_t k = k0; k < k1; ++k) re[k * L + l] = im[k * L + l] = R(0);
          } else if (in_kind == LineIn::kReal) {
            const R* from = static_cast<const R*>(in) + in_base[l];
            for (int64_t k = k0; k < k1; ++k) {
              re[k * L + l] = from[k * inner];
              im[k * L + l] = R(0);
            }
          } else {
            const C* from = static_cast<const C*>(in) + in_base[l];
            for (int64_t k = k0; k < k1; ++k) {
              re[k * L + l] = from[k * inner].real();
              im[k * L + l] = from[k * inner].imag();
            }
          }
        }
      }
      // The negative frequencies: X[k] = conj(X[n - k]) for k > n/2.
      for (int64_t k = loaded; k < n; ++k) {
        for (int l = 0; l < L; ++l) {
          re[k * L + l] = re[(n - k) * L + l];
          im[k * L + l] = -im[(n - k) * L + l];
        }
      }
      // Where the last stage left the lines (re and im are scratch after).
      const auto [result_re, result_im] =
          fft.Transform(re, im, im + n * L, im + 2 * n * L, inverse);
      tiled = 0;
      if constexpr (std::is_same_v<R, float>) {
        if (tiles) {
          const bool complex = out_kind != LineOut::kReal;
          tiled = ScatterTiles(result_re, result_im, scale, complex, n_out,
                               static_cast<float*>(out) + (complex ? 2 : 1) * out_base[0],
                               (complex ? 2 : 1) * n_out);
        }
      }
      for (int64_t k0 = tiled; k0 < n_out; k0 += kGatherBlock) {
        const int64_t k1 = std::min(n_out, k0 + kGatherBlock);
        for (int l = 0; l < count; ++l) {
          if (out_kind == LineOut::kReal) {
            R* to = static_cast<R*>(out) + out_base[l];
            for (int64_t k = k0; k < k1; ++k) to[k * inner] = result_re[k * L + l] * scale;
          } else {
            C* to = static_cast<C*>(out) + out_base[l];
            for (int64_t k = k0; k < k1; ++k) {
              to[k * inner] = C(result_re[k * L + l] * scale, result_im[k * L + l] * scale);
            }
          }
        }
      }
    }
  };
  if (pool == nullptr || lines * n < kParallelPoints) {
    run(0, groups);
  } else {
    pool->ParallelFor(groups, pool->BlockSizeFor(groups), run);
  }
}

template void LaneTransformAxis<float>(const LaneFft<float>&, int64_t, int64_t, LineIn, const void*,
                                       LineOut, void*, bool, runtime::ThreadPool*);
template void LaneTransformAxis<double>(const LaneFft<double>&, int64_t, int64_t, LineIn,
                                        const void*, LineOut, void*, bool, runtime::ThreadPool*);

}  // namespace cpu
}  // namespace tessera
