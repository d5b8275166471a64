// LaneFft; see lane_fft.h.
#include "backends/cpu/lane_fft.h"

#include <cmath>
#include <utility>

#include "backends/cpu/eigen_dot.h"

namespace tessera {
namespace cpu {
namespace {

// The radices n factors into, largest sub-transforms first: 4s (fewest
// passes), a 2, then the odd primes up to 31 (primes from 11 on as direct
// p-point DFTs: p products per point, where Eigen's Bluestein transform
// ran 40 lines of 13 points at 1.5x XLA's time).  Empty when a larger
// prime divides n.
std::vector<int> Radices(int64_t n) {
  std::vector<int> radices;
  if (n < 1) return radices;
  while (n % 4 == 0) {
    radices.push_back(4);
    n /= 4;
  }
  for (int p : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31}) {
    while (n % p == 0) {
      radices.push_back(p);
      n /= p;
    }
  }
  if (n != 1) radices.clear();
  return radices;
}

}  // namespace

template <typename R>
bool LaneFft<R>::Supports(int64_t n) {
  return n == 1 || !Radices(n).empty();
}

template <typename R>
LaneFft<R>::LaneFft(int64_t n) : n_(n) {
  // Stage i runs on sub-transforms of length `length` (n, then n divided by
  // the earlier radices) with stride s (their product).
  int64_t length = n, s = 1;
  for (int p : Radices(n)) {
    Stage stage;
    const int64_t m = length / p;
    stage.shape = {p, m, s};
    stage.twiddle_re.resize(m * p);
    stage.twiddle_im.resize(m * p);
    for (int64_t j = 0; j < m; ++j) {
      for (int t = 0; t < p; ++t) {
        // (j t) mod length keeps the angle small, so it is exact in double.
        const double angle = -2.0 * M_PI * static_cast<double>((j * t) % length) / length;
        stage.twiddle_re[j * p + t] = static_cast<R>(std::cos(angle));
        stage.twiddle_im[j * p + t] = static_cast<R>(std::sin(angle));
      }
    }
    for (int k = 0; k < p; ++k) {
      const double angle = -2.0 * M_PI * k / p;
      stage.omega_re.push_back(static_cast<R>(std::cos(angle)));
      stage.omega_im.push_back(static_cast<R>(std::sin(angle)));
    }
    stages_.push_back(std::move(stage));
    length = m;
    s *= p;
  }
}

template <typename R>
std::pair<R*, R*> LaneFft<R>::Transform(R* re, R* im, R* work_re, R* work_im, bool inverse) const {
  const bool avx512 = eigen_dot_internal::KernelsSupported();
  R *x_re = re, *x_im = im, *y_re = work_re, *y_im = work_im;
  for (const Stage& stage : stages_) {
    if (avx512) {
      lane_fft_internal::avx512::RadixPass(stage.shape, stage.twiddle_re.data(),
                                           stage.twiddle_im.data(), stage.omega_re.data(),
                                           stage.omega_im.data(), inverse, x_re, x_im, y_re, y_im);
    } else {
      lane_fft_internal::baseline::RadixPass(
          stage.shape, stage.twiddle_re.data(), stage.twiddle_im.data(), stage.omega_re.data(),
          stage.omega_im.data(), inverse, x_re, x_im, y_re, y_im);
    }
    std::swap(x_re, y_re);
    std::swap(x_im, y_im);
  }
  return {x_re, x_im};
}

template class LaneFft<float>;
template class LaneFft<double>;

}  // namespace cpu
}  // namespace tessera
