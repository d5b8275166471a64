#include "backends/cpu/four_step_fft.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/functional/function_ref.h"
#include "backends/cpu/transpose_tile.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// n rounded up to a multiple of the lanes.
template <typename R>
int64_t Padded(int64_t n) {
  constexpr int64_t lanes = LaneFft<R>::kLanes;
  return (n + lanes - 1) / lanes * lanes;
}

// n1 * n2 = n, both at least `lanes` and smooth (LaneFft transforms them
// directly), with the fewest points transformed: the n2 columns run in
// groups of `lanes`, the last one partly idle, and so do the n1 rows
// (1000 = 25 x 40 transforms 32 x 40 + 48 x 25 points).  Ties go to the
// split closest to square.
template <typename R>
std::optional<std::pair<int64_t, int64_t>> Split(int64_t n) {
  constexpr int64_t lanes = LaneFft<R>::kLanes;
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t best_points = 0;
  for (int64_t n1 = lanes; n1 * n1 <= n; ++n1) {
    const int64_t n2 = n / n1;
    if (n % n1 != 0 || !LaneFft<R>::IsSmooth(n1) || !LaneFft<R>::IsSmooth(n2)) continue;
    const int64_t points = Padded<R>(n1) * n2 + Padded<R>(n2) * n1;
    if (!best.has_value() || points <= best_points) {
      best = {n1, n2};
      best_points = points;
    }
  }
  return best;
}

// Lines times points from which the steps' blocks are split over the pool.
constexpr int64_t kParallelPoints = int64_t{1} << 15;

void RunBlocks(runtime::ThreadPool* pool, int64_t blocks, int64_t points,
               absl::FunctionRef<void(int64_t, int64_t)> run) {
  if (pool == nullptr || points < kParallelPoints) {
    run(0, blocks);
  } else {
    pool->ParallelFor(blocks, pool->BlockSizeFor(blocks), run);
  }
}

}  // namespace

template <typename R>
bool FourStepFft<R>::Supports(int64_t n) {
  return Split<R>(n).has_value();
}

template <typename R>
FourStepFft<R>::FourStepFft(int64_t n)
    : n1_(Split<R>(n)->first),
      n2_(Split<R>(n)->second),
      columns_(n1_),
      rows_(n2_),
      twiddle_re_(n),
      twiddle_im_(n) {
  for (int64_t k1 = 0; k1 < n1_; ++k1) {
    for (int64_t j2 = 0; j2 < n2_; ++j2) {
      // The product reduced modulo n first keeps the angle exact.
      const double angle =
          -2.0 * M_PI * static_cast<double>((k1 * j2) % n) / static_cast<double>(n);
      twiddle_re_[k1 * n2_ + j2] = static_cast<R>(std::cos(angle));
      twiddle_im_[k1 * n2_ + j2] = static_cast<R>(std::sin(angle));
    }
  }
}

template <typename R>
void FourStepFft<R>::Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines,
                               bool inverse, runtime::ThreadPool* pool) const {
  constexpr int L = kLanes;
  const int64_t n1 = n1_, n2 = n2_, n = n1 * n2;
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  const R sign = inverse ? R(-1) : R(1);  // the inverse's twiddles are conjugates
  // The twiddled column transforms, laid out as the row transforms read
  // them: for each line, block c of 16 rows k1 = 16c + l is [j2][l] (the
  // last block's rows from n1 on idle).
  const int64_t row_blocks = (n1 + L - 1) / L, per_line = row_blocks * L * n2;
  std::unique_ptr<R[]> rows_re(new R[lines * per_line]), rows_im(new R[lines * per_line]);

  // Steps 1 and 2: columns j2 = 16b + l of each line, 16 at a time (the
  // last block's lanes from n2 on idle, at zero).
  const int64_t column_blocks = (n2 + L - 1) / L;
  RunBlocks(pool, lines * column_blocks, lines * n, [&](int64_t begin, int64_t end) {
    std::unique_ptr<R[]> buffer(new R[4 * n1 * L]);
    R* re = buffer.get();
    R* im = re + n1 * L;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t line = task / column_blocks, b = task % column_blocks;
      const int count = static_cast<int>(std::min<int64_t>(L, n2 - b * L));
      const std::complex<R>* x = in + line * n + b * L;
      // A whole block's 16 columns are 16 adjacent points of each row.
      if (count == L) {
        LaneFft<R>::DeinterleaveLanes(reinterpret_cast<const R*>(x), 2 * n2, n1, re, im);
      }
      for (int64_t j1 = 0; j1 < n1 && count < L; ++j1) {
        std::fill(re + j1 * L, re + (j1 + 1) * L, R(0));
        std::fill(im + j1 * L, im + (j1 + 1) * L, R(0));
        for (int l = 0; l < count; ++l) {
          re[j1 * L + l] = x[n2 * j1 + l].real();
          im[j1 * L + l] = x[n2 * j1 + l].imag();
        }
      }
      const auto [column_re, column_im] =
          columns_.Transform(re, im, im + n1 * L, im + 2 * n1 * L, inverse);
      R* to_re = rows_re.get() + line * per_line;
      R* to_im = rows_im.get() + line * per_line;
      int64_t k1 = 0;
      if constexpr (std::is_same_v<R, float>) {
        // Whole 16 x 16 blocks twiddled in a tile ([k1][l], as the columns
        // left them), then transposed into the rows' layout ([j2][k1]).
        const TransposeTileFunction transpose = TransposeTileRoutine();
        alignas(64) float tile_re[L * L], tile_im[L * L];
        for (; count == L && k1 + L <= n1; k1 += L) {
          LaneFft<float>::TwiddleRows(
              L, column_re + k1 * L, column_im + k1 * L, twiddle_re_.data() + k1 * n2 + b * L,
              twiddle_im_.data() + k1 * n2 + b * L, n2, sign, tile_re, tile_im);
          transpose(tile_re, L, to_re + (k1 / L) * n2 * L + b * L * L);
          transpose(tile_im, L, to_im + (k1 / L) * n2 * L + b * L * L);
        }
      }
      for (; k1 < n1; ++k1) {
        R* row_re = to_re + (k1 / L) * n2 * L + k1 % L;
        R* row_im = to_im + (k1 / L) * n2 * L + k1 % L;
        const R* w_re = twiddle_re_.data() + k1 * n2 + b * L;
        const R* w_im = twiddle_im_.data() + k1 * n2 + b * L;
        for (int l = 0; l < count; ++l) {
          const R a = column_re[k1 * L + l], c = column_im[k1 * L + l];
          const R wr = w_re[l], wi = sign * w_im[l];
          const int64_t j2 = b * L + l;
          row_re[j2 * L] = a * wr - c * wi;
          row_im[j2 * L] = a * wi + c * wr;
        }
      }
    }
  });

  // Steps 3 and 4: rows k1 = 16c + l of each line, 16 at a time; row k1's
  // output k2 is X[k1 + n1 k2], so the 16 rows write 16 adjacent points.
  RunBlocks(pool, lines * row_blocks, lines * n, [&](int64_t begin, int64_t end) {
    std::unique_ptr<R[]> work(new R[2 * n2 * L]);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t line = task / row_blocks, c = task % row_blocks;
      const int count = static_cast<int>(std::min<int64_t>(L, n1 - c * L));
      R* re = rows_re.get() + line * per_line + c * n2 * L;
      R* im = rows_im.get() + line * per_line + c * n2 * L;
      for (int64_t j2 = 0; j2 < n2 && count < L; ++j2) {  // idle rows at zero
        std::fill(re + j2 * L + count, re + (j2 + 1) * L, R(0));
        std::fill(im + j2 * L + count, im + (j2 + 1) * L, R(0));
      }
      const auto [row_re, row_im] =
          rows_.Transform(re, im, work.get(), work.get() + n2 * L, inverse);
      std::complex<R>* x = out + line * n + c * L;
      if (count == L) {  // 16 adjacent outputs per k2
        LaneFft<R>::InterleaveLanes(row_re, row_im, scale, n2, reinterpret_cast<R*>(x), 2 * n1);
        continue;
      }
      for (int64_t k2 = 0; k2 < n2; ++k2) {
        for (int l = 0; l < count; ++l) {
          x[n1 * k2 + l] = std::complex<R>(row_re[k2 * L + l] * scale, row_im[k2 * L + l] * scale);
        }
      }
    }
  });
}

template class FourStepFft<float>;
template class FourStepFft<double>;

}  // namespace cpu
}  // namespace tessera
