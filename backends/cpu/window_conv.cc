// Window GEMMs for convolutions with a large window and a small output; see
// window_conv.h.
#include "backends/cpu/window_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/parallel_rows.h"
#include "backends/cpu/thread_scratch.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

constexpr int64_t kMinWindow = 64;
// The padded copy of the input is kept as the calling thread's scratch:
// larger inputs take im2col, whose scratch is a chunk of rows.
constexpr int64_t kMaxPaddedElements = int64_t{1} << 26;  // 256 MB of f32
constexpr int64_t kMinWindowPerOutput = 4;
// Parts of the work per thread: enough for the pool to even out.
constexpr int64_t kUnitsPerThread = 4;

// c (m x n, row stride ldc) = a (m x k, lda) x b (k x n, ldb), plus c
// where `accumulate`.
void Gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, int64_t lda,
          int64_t ldb, int64_t ldc, bool accumulate) {
  if (OneDnnGemmBlockF32(a, b, c, k, /*ta=*/false, /*tb=*/false, lda, ldb, ldc, 0, m, 0, n, 1.0f,
                         accumulate ? 1.0f : 0.0f)) {
    return;
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = accumulate ? c[i * ldc + j] : 0.0f;
      for (int64_t p = 0; p < k; ++p) sum += a[i * lda + p] * b[p * ldb + j];
      c[i * ldc + j] = sum;
    }
  }
}

}  // namespace

bool UsesWindowGemms(const ConvPlan& p) {
  if (p.type != F32 || p.groups() != 1 || p.spatial() == 0) return false;
  if (p.batch <= 0 || p.in_features <= 0 || p.out_features <= 0 || p.out_spatial() <= 0) {
    return false;
  }
  for (int d = 0; d < p.spatial(); ++d) {
    if (p.lhs_dilation[d] != 1 || p.reversal[d]) return false;
  }
  const int64_t window = p.kernel_elements();
  if (window < kMinWindow || window < kMinWindowPerOutput * p.out_spatial()) return false;
  int64_t padded = p.batch * p.in_features;
  for (int d = 0; d < p.spatial(); ++d) {
    const int64_t extent =
        (p.out_size[d] - 1) * p.stride[d] + (p.kernel_size[d] - 1) * p.dilation[d] + 1;
    // (The last dimension's phases round it up to a multiple of the dilation.)
    padded *= extent + p.dilation[d];
    if (padded > kMaxPaddedElements) return false;
  }
  return true;
}

absl::Status RunWindowGemms(const ConvPlan& p, const float* input, const float* kernel,
                            float* output, runtime::ThreadPool* pool) {
  const int S = p.spatial();
  const int last = S - 1;
  const int64_t N = p.batch, C = p.in_features, O = p.out_features;
  // The padded input P, dense: [N][E_0]...[E_{last-1}][phase][E'][C].
  // E_d: the positions the window reads along dimension d; P holds
  // input[n, q - pad, c] at position q, zero outside the input.  Along the
  // last dimension, positions are split by their residue modulo the window
  // dilation (phase q % dilation, then q / dilation): a tap reads one phase
  // at consecutive positions, so its (j, c) block is contiguous.
  std::vector<int64_t> extent(S), pitch(S);
  for (int d = 0; d < S; ++d) {
    extent[d] = (p.out_size[d] - 1) * p.stride[d] + (p.kernel_size[d] - 1) * p.dilation[d] + 1;
  }
  const int64_t phases = p.dilation[last];
  const int64_t phase_length = (extent[last] + phases - 1) / phases;
  const int64_t row_elements = phases * phase_length * C;
  int64_t batch_pitch = row_elements;
  for (int d = last - 1; d >= 0; --d) {
    pitch[d] = batch_pitch;
    batch_pitch *= extent[d];
  }
  float* padded = ThreadScratch<float, 6>(N * batch_pitch);
  int64_t rows = N;  // rows of P: (n, outer positions)
  for (int d = 0; d < last; ++d) rows *= extent[d];
  ParallelRows(pool, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      float* dst = padded + row * row_elements;
      int64_t rest = row;
      const float* src = input;
      bool inside = true;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t i = rest % extent[d] - p.pad[d];
        rest /= extent[d];
        inside = inside && i >= 0 && i < p.in_size[d];
        src += i * p.in_stride_s[d];
      }
      src += rest * p.in_stride_n;
      if (!inside) {
        std::memset(dst, 0, row_elements * sizeof(float));
        continue;
      }
      for (int64_t slot = 0; slot < phases * phase_length; ++slot) {
        const int64_t q = (slot % phase_length) * phases + slot / phase_length;
        const int64_t i = q - p.pad[last];
        float* to = dst + slot * C;
        if (q >= extent[last] || i < 0 || i >= p.in_size[last]) {
          std::memset(to, 0, C * sizeof(float));
          continue;
        }
        const float* from = src + i * p.in_stride_s[last];
        if (p.in_stride_c == 1) {
          std::memcpy(to, from, C * sizeof(float));
        } else {
          for (int64_t c = 0; c < C; ++c) to[c] = from[c * p.in_stride_c];
        }
      }
    }
  });

  // The kernel as dense HWIO: [K_0]...[K_last][C][O].
  const int64_t window = p.kernel_elements();
  const float* hwio = kernel;
  if (p.kernel_use != ConvPlan::KernelUse::kDirect) {
    float* packed = ThreadScratch<float, 7>(window * C * O);
    ParallelRows(pool, window, 8, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        int64_t rest = k;
        const float* src = kernel;
        for (int d = last; d >= 0; --d) {
          src += (rest % p.kernel_size[d]) * p.k_stride_s[d];
          rest /= p.kernel_size[d];
        }
        for (int64_t c = 0; c < C; ++c) {
          float* dst = packed + (k * C + c) * O;
          for (int64_t o = 0; o < O; ++o) dst[o] = src[c * p.k_stride_i + o * p.k_stride_o];
        }
      }
    });
    hwio = packed;
  }

  // Units of work: the window's outer positions, each the whole last
  // dimension, or chunks of it where there are too few of those.
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= p.kernel_size[d];
  const int64_t contraction = p.kernel_size[last] * C;  // (j, c) per GEMM
  const int threads = pool == nullptr ? 1 : pool->parallelism();
  const int64_t wanted = threads == 1 ? 1 : kUnitsPerThread * threads;
  const int64_t chunks =
      std::min<int64_t>(p.kernel_size[last], std::max<int64_t>(1, (wanted + outer - 1) / outer));
  const int64_t chunk_taps = (p.kernel_size[last] + chunks - 1) / chunks;  // of the last dimension
  const int64_t units = outer * chunks;
  const int64_t parts = std::min<int64_t>(threads, units);
  const int64_t positions = p.out_spatial();
  const int64_t tile = N * O;  // one output position's accumulators
  float* sums = ThreadScratch<float, 8>(parts * positions * tile);

  ParallelRows(pool, parts, 1, [&](int64_t part_begin, int64_t part_end) {
    for (int64_t part = part_begin; part < part_end; ++part) {
      float* acc = sums + part * positions * tile;
      const int64_t first = units * part / parts, stop = units * (part + 1) / parts;
      bool started = false;  // acc holds this part's sums (else garbage)
      for (int64_t unit = first; unit < stop; ++unit) {
        const int64_t ko = unit / chunks;
        const int64_t j0 = (unit % chunks) * chunk_taps;
        const int64_t j1 = std::min(p.kernel_size[last], j0 + chunk_taps);
        if (j0 >= j1) continue;
        // The window's outer position's offset into P, and its HWIO block.
        int64_t window_offset = 0, rest = ko;
        for (int d = last - 1; d >= 0; --d) {
          window_offset += (rest % p.kernel_size[d]) * p.dilation[d] * pitch[d];
          rest /= p.kernel_size[d];
        }
        const float* b = hwio + (ko * contraction + j0 * C) * O;
        for (int64_t t = 0; t < positions; ++t) {
          // Tap j of the last dimension reads position q0 + j * dilation:
          // phase q0 % dilation, slot q0 / dilation + j.
          const int64_t q0 = (t % p.out_size[last]) * p.stride[last];
          int64_t offset = window_offset + ((q0 % phases) * phase_length + q0 / phases + j0) * C;
          int64_t r = t / p.out_size[last];
          for (int d = last - 1; d >= 0; --d) {
            offset += (r % p.out_size[d]) * p.stride[d] * pitch[d];
            r /= p.out_size[d];
          }
          Gemm(padded + offset, b, acc + t * tile, N, O, (j1 - j0) * C, batch_pitch, O, O,
               /*accumulate=*/started);
        }
        started = true;
      }
      if (!started) std::memset(acc, 0, positions * tile * sizeof(float));
    }
  });

  // The parts' sums, into the output's layout.
  ParallelRows(pool, positions * N, 16, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t t = row / N, n = row % N;
      float* dst = output + n * p.out_stride_n;
      int64_t r = t;
      for (int d = last; d >= 0; --d) {
        dst += (r % p.out_size[d]) * p.out_stride_s[d];
        r /= p.out_size[d];
      }
      for (int64_t o = 0; o < O; ++o) {
        float sum = 0.0f;
        for (int64_t part = 0; part < parts; ++part) {
          sum += sums[(part * positions + t) * tile + n * O + o];
        }
        dst[o * p.out_stride_o] = sum;
      }
    }
  });
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
