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
// caller's); a real line's imaginary parts come out zero (im may be null
// for real lines, and is then left alone).
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
  if (!complex && im != nullptr) std::memset(im, 0, sizeof(float) * k0 * L);
  return k0;
}

// The inverse of GatherTiles, scaling by `scale`: the real parts only
// where the lines are real (im may then be null).
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

// The four lane buffers of n elements of a pass (uninitialized), staggered
// by 4 elements each: for power-of-two lengths their rows would otherwise
// share the L1 cache's sets, which the butterflies read and write at once
// (256 lines of 1024 points 0.175 -> 0.16 ms, 2000 of 512 0.66 -> 0.62).
template <typename R>
std::unique_ptr<R[]> LaneBuffers(int64_t n, R** re, R** im, R** work_re, R** work_im) {
  constexpr int64_t L = LaneFft<R>::kLanes;
  const int64_t pitch = n * L + 4 * L;
  std::unique_ptr<R[]> buffer(new R[4 * pitch]);
  *re = buffer.get();
  *im = *re + pitch;
  *work_re = *im + pitch;
  *work_im = *work_re + pitch;
  return buffer;
}

// Real lines two to a lane, for an RFFT's last axis (`forward`: real lines
// to half spectra) or an IRFFT's (half spectra to real lines): lane l of
// a group holds lines 2l and 2l + 1 of it as one complex line z = x + i y,
// whose DFT Z gives both spectra, X[k] = (Z[k] + conj(Z[n-k])) / 2 and
// Y[k] = (Z[k] - conj(Z[n-k])) / 2i; backwards, Z = X + i Y (negative
// frequencies rebuilt, X[0] and X[n/2] taken as real, as the real part of
// the inverse does) transforms to x + i y.  One transform per two lines
// (2000 real lines of 512 points: 0.58 -> 0.36 ms, XLA 0.32-0.35).  `lines`
// contiguous lines: n reals, or n/2 + 1 complex.
template <typename R>
void TransformRealPairs(const LaneFft<R>& fft, int64_t lines, bool forward, const void* in,
                        void* out, runtime::ThreadPool* pool) {
  using C = std::complex<R>;
  constexpr int L = LaneFft<R>::kLanes;
  constexpr int64_t kGroup = 2 * L;  // lines per pass
  const int64_t n = fft.size(), half = n / 2 + 1;
  const int64_t groups = (lines + kGroup - 1) / kGroup;
  const R scale = forward ? R(1) : R(1) / static_cast<R>(n);
  auto run = [&](int64_t begin, int64_t end) {
    // Uninitialized: the gather writes every element the transform reads.
    R *re, *im, *work_re, *work_im;
    const std::unique_ptr<R[]> buffer = LaneBuffers(n, &re, &im, &work_re, &work_im);
    for (int64_t group = begin; group < end; ++group) {
      const int64_t first = group * kGroup;
      const int64_t count = std::min(kGroup, lines - first);
      // Line 2l + part of the group, where it exists.
      auto has = [&](int l, int part) { return 2 * l + part < count; };
      const bool tiles = std::is_same_v<R, float> && count == kGroup;
      int64_t tiled = 0;
      if (forward) {
        // Even lines into the real parts, odd ones into the imaginary.
        const R* x = static_cast<const R*>(in) + first * n;
        if constexpr (std::is_same_v<R, float>) {
          if (tiles) {
            tiled = GatherTiles(x, 2 * n, false, n, re, nullptr);
            GatherTiles(x + n, 2 * n, false, n, im, nullptr);
          }
        }
        for (int64_t k0 = tiled; k0 < n; k0 += kGatherBlock) {
          const int64_t k1 = std::min(n, k0 + kGatherBlock);
          for (int l = 0; l < L; ++l) {
            for (int64_t k = k0; k < k1; ++k) {
              re[k * L + l] = has(l, 0) ? x[2 * l * n + k] : R(0);
              im[k * L + l] = has(l, 1) ? x[(2 * l + 1) * n + k] : R(0);
            }
          }
        }
      } else {
        // X (even lines) into the work pair, Y (odd lines) into (re, im).
        const C* x = static_cast<const C*>(in) + first * half;
        if constexpr (std::is_same_v<R, float>) {
          if (tiles) {
            const float* floats = reinterpret_cast<const float*>(x);
            tiled = GatherTiles(floats, 4 * half, true, half, work_re, work_im);
            GatherTiles(floats + 2 * half, 4 * half, true, half, re, im);
          }
        }
        for (int64_t k0 = tiled; k0 < half; k0 += kGatherBlock) {
          const int64_t k1 = std::min(half, k0 + kGatherBlock);
          for (int l = 0; l < L; ++l) {
            for (int64_t k = k0; k < k1; ++k) {
              const C even = has(l, 0) ? x[2 * l * half + k] : C(0);
              const C odd = has(l, 1) ? x[(2 * l + 1) * half + k] : C(0);
              work_re[k * L + l] = even.real();
              work_im[k * L + l] = even.imag();
              re[k * L + l] = odd.real();
              im[k * L + l] = odd.imag();
            }
          }
        }
        for (int l = 0; l < L; ++l) {
          work_im[l] = im[l] = R(0);
          if (n % 2 == 0) work_im[n / 2 * L + l] = im[n / 2 * L + l] = R(0);
        }
        LaneFft<R>::JoinRealPairs(n, work_re, work_im, re, im);  // Z = X + i Y
      }
      // Where the last stage left the lines; the other pair is scratch.
      const auto [z_re, z_im] = fft.Transform(re, im, work_re, work_im, !forward);
      R* free_re = z_re == re ? work_re : re;
      R* free_im = z_re == re ? work_im : im;
      tiled = 0;
      if (forward) {
        LaneFft<R>::SplitRealPairs(n, z_re, z_im, free_re, free_im);  // X, and Y over Z
        C* y = static_cast<C*>(out) + first * half;
        if constexpr (std::is_same_v<R, float>) {
          if (tiles) {
            float* floats = reinterpret_cast<float*>(y);
            tiled = ScatterTiles(free_re, free_im, 1.0f, true, half, floats, 4 * half);
            ScatterTiles(z_re, z_im, 1.0f, true, half, floats + 2 * half, 4 * half);
          }
        }
        for (int64_t k0 = tiled; k0 < half; k0 += kGatherBlock) {
          const int64_t k1 = std::min(half, k0 + kGatherBlock);
          for (int l = 0; l < L; ++l) {
            for (int64_t k = k0; k < k1; ++k) {
              if (has(l, 0)) y[2 * l * half + k] = C(free_re[k * L + l], free_im[k * L + l]);
              if (has(l, 1)) y[(2 * l + 1) * half + k] = C(z_re[k * L + l], z_im[k * L + l]);
            }
          }
        }
      } else {
        // x + i y: even lines from the real parts, odd ones from the
        // imaginary.
        R* y = static_cast<R*>(out) + first * n;
        if constexpr (std::is_same_v<R, float>) {
          if (tiles) {
            tiled = ScatterTiles(z_re, nullptr, scale, false, n, y, 2 * n);
            ScatterTiles(z_im, nullptr, scale, false, n, y + n, 2 * n);
          }
        }
        for (int64_t k0 = tiled; k0 < n; k0 += kGatherBlock) {
          const int64_t k1 = std::min(n, k0 + kGatherBlock);
          for (int l = 0; l < L; ++l) {
            for (int64_t k = k0; k < k1; ++k) {
              if (has(l, 0)) y[2 * l * n + k] = z_re[k * L + l] * scale;
              if (has(l, 1)) y[(2 * l + 1) * n + k] = z_im[k * L + l] * scale;
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
  if (inner == 1 && in_kind == LineIn::kReal && out_kind == LineOut::kHalfSpectrum) {
    TransformRealPairs(fft, lines, /*forward=*/true, in, out, pool);
    return;
  }
  if (inner == 1 && in_kind == LineIn::kHalfSpectrum && out_kind == LineOut::kReal) {
    TransformRealPairs(fft, lines, /*forward=*/false, in, out, pool);
    return;
  }
  auto run = [&](int64_t begin, int64_t end) {
    // Uninitialized: the gather writes every element the transform reads.
    R *re, *im, *work_re, *work_im;
    const std::unique_ptr<R[]> buffer = LaneBuffers(n, &re, &im, &work_re, &work_im);
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
      // A whole group of adjacent strided lines (the columns of a 2-D
      // transform) has each element's lanes side by side in memory: one
      // contiguous run of kLanes values per element (a 4 x 512 x 512 FFT:
      // 5.4 -> 1.66 ms; XLA 1.13).
      const bool adjacent = inner > 1 && count == L && in_base[L - 1] == in_base[0] + L - 1 &&
                            in_kind == LineIn::kComplex && out_kind == LineOut::kComplex;
      if (adjacent) {
        LaneFft<R>::DeinterleaveLanes(static_cast<const R*>(in) + 2 * in_base[0], 2 * inner, n, re,
                                      im);
      }
      int64_t tiled = adjacent ? n : 0;
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
      const auto [result_re, result_im] = fft.Transform(re, im, work_re, work_im, inverse);
      tiled = 0;
      if (adjacent) {
        LaneFft<R>::InterleaveLanes(result_re, result_im, scale, n,
                                    static_cast<R*>(out) + 2 * out_base[0], 2 * inner);
        tiled = n;
      }
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
