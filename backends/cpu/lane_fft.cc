// LaneFft; see lane_fft.h.
#include "backends/cpu/lane_fft.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <utility>
#include <vector>

#include "backends/cpu/bluestein.h"
#include "backends/cpu/eigen_dot.h"

namespace tessera {
namespace cpu {
namespace {

// Calls lane kernel `name` (lane_fft_kernels.h) in the build for the
// host's ISA: AVX-512 where the host has it, else the baseline.
#define TESSERA_LANE_KERNEL(name, ...)                                                   \
  (eigen_dot_internal::KernelsSupported() ? lane_fft_internal::avx512::name(__VA_ARGS__) \
                                          : lane_fft_internal::baseline::name(__VA_ARGS__))

// The radices n factors into, largest sub-transforms first: 4s (fewest
// passes), a 2, then the odd primes up to 31 (3 and 5 in butterflies of
// their own, the others as direct p-point DFTs: p products per point,
// where Eigen's Bluestein transform ran 40 lines of 13 points at 1.5x
// XLA's time).  Empty when a larger prime divides n.
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

// y[k * L + l] = x[k * L + l] * (f_re[k] + i sign f_im[k]) for k < count,
// every lane l (y may be x), in the AVX-512 kernel where the host has it.
template <typename R>
void MultiplyLines(const R* x_re, const R* x_im, const R* f_re, const R* f_im, R sign,
                   int64_t count, R* y_re, R* y_im) {
  TESSERA_LANE_KERNEL(MultiplyLanesByPoints, count, x_re, x_im, f_re, f_im, sign, y_re, y_im);
}

}  // namespace

// Bluestein's chirp-z transform (bluestein.h) over a smooth LaneFft of
// the inner length; FFT(b) / m computed once, in double.
template <typename R>
struct LaneFft<R>::Bluestein {
  // (No bound on the inner length of its own: the thunk bounds n.)
  explicit Bluestein(int64_t n)
      : m(bluestein::InnerLength(n, std::numeric_limits<int64_t>::max() / 2)), inner(m) {
    const std::vector<std::complex<double>> chirp = bluestein::Chirp(n);
    for (const std::complex<double>& w : chirp) {
      chirp_re.push_back(static_cast<R>(w.real()));
      chirp_im.push_back(static_cast<R>(w.imag()));
    }
    for (bool inverse : {false, true}) {
      // b in lane 0 of a double transform of length m.
      constexpr int L = LaneFft<double>::kLanes;
      std::vector<double> re(m * L, 0.0), im(m * L, 0.0), work_re(m * L), work_im(m * L);
      const std::vector<std::complex<double>> b = bluestein::ConvolutionKernel(chirp, m, inverse);
      for (int64_t t = 0; t < m; ++t) {
        re[t * L] = b[t].real();
        im[t * L] = b[t].imag();
      }
      const auto [out_re, out_im] =
          LaneFft<double>(m).Transform(re.data(), im.data(), work_re.data(), work_im.data(), false);
      std::vector<R>& k_re = inverse ? kernel_inverse_re : kernel_re;
      std::vector<R>& k_im = inverse ? kernel_inverse_im : kernel_im;
      for (int64_t k = 0; k < m; ++k) {
        k_re.push_back(static_cast<R>(out_re[k * L] / m));
        k_im.push_back(static_cast<R>(out_im[k * L] / m));
      }
    }
  }

  int64_t m;
  LaneFft<R> inner;                   // length m, smooth
  std::vector<R> chirp_re, chirp_im;  // computed in double
  std::vector<R> kernel_re, kernel_im, kernel_inverse_re, kernel_inverse_im;
};

template <typename R>
bool LaneFft<R>::IsSmooth(int64_t n) {
  return n == 1 || !Radices(n).empty();
}

template <typename R>
LaneFft<R>::LaneFft(int64_t n) : n_(n) {
  if (!IsSmooth(n)) {
    bluestein_ = std::make_shared<const Bluestein>(n);
    return;
  }
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
std::pair<R*, R*> LaneFft<R>::TransformByBluestein(R* re, R* im, bool inverse) const {
  constexpr int L = kLanes;
  const Bluestein& plan = *bluestein_;
  const int64_t n = n_, m = plan.m;
  // a, then the inner transforms' four arrays: the calling thread's, kept
  // (grown to the longest transform it ran) up to 16 MB, else this call's.
  constexpr int64_t kKeptScratchBytes = int64_t{16} << 20;
  thread_local std::vector<R> kept;
  std::vector<R> own;
  std::vector<R>& scratch =
      4 * m * L * static_cast<int64_t>(sizeof(R)) <= kKeptScratchBytes ? kept : own;
  if (scratch.size() < static_cast<size_t>(4 * m * L)) scratch.resize(4 * m * L);
  R* a_re = scratch.data();
  R* a_im = a_re + m * L;
  R* b_re = a_im + m * L;
  R* b_im = b_re + m * L;
  const R sign = inverse ? R(-1) : R(1);  // the inverse's chirp is conj(w)
  MultiplyLines(re, im, plan.chirp_re.data(), plan.chirp_im.data(), sign, n, a_re, a_im);
  std::fill(a_re + n * L, a_re + m * L, R(0));
  std::fill(a_im + n * L, a_im + m * L, R(0));
  auto [f_re, f_im] = plan.inner.Transform(a_re, a_im, b_re, b_im, false);
  const std::vector<R>& k_re = inverse ? plan.kernel_inverse_re : plan.kernel_re;
  const std::vector<R>& k_im = inverse ? plan.kernel_inverse_im : plan.kernel_im;
  MultiplyLines(f_re, f_im, k_re.data(), k_im.data(), R(1), m, f_re, f_im);
  // The inverse transform's sum (FFT(b) carries the 1/m), into whichever
  // pair is free.
  R* free_re = f_re == a_re ? b_re : a_re;
  R* free_im = f_im == a_im ? b_im : a_im;
  const auto [c_re, c_im] = plan.inner.Transform(f_re, f_im, free_re, free_im, true);
  MultiplyLines(c_re, c_im, plan.chirp_re.data(), plan.chirp_im.data(), sign, n, re, im);
  return {re, im};
}

template <typename R>
std::pair<R*, R*> LaneFft<R>::Transform(R* re, R* im, R* work_re, R* work_im, bool inverse) const {
  if (bluestein_ != nullptr) return TransformByBluestein(re, im, inverse);
  R *x_re = re, *x_im = im, *y_re = work_re, *y_im = work_im;
  for (const Stage& stage : stages_) {
    TESSERA_LANE_KERNEL(RadixPass, stage.shape, stage.twiddle_re.data(), stage.twiddle_im.data(),
                        stage.omega_re.data(), stage.omega_im.data(), inverse, x_re, x_im, y_re,
                        y_im);
    std::swap(x_re, y_re);
    std::swap(x_im, y_im);
  }
  return {x_re, x_im};
}

template <typename R>
void LaneFft<R>::SplitRealPairs(int64_t n, R* z_re, R* z_im, R* x_re, R* x_im) {
  TESSERA_LANE_KERNEL(SplitRealPairs, n, z_re, z_im, x_re, x_im);
}

template <typename R>
void LaneFft<R>::JoinRealPairs(int64_t n, const R* x_re, const R* x_im, R* y_re, R* y_im) {
  TESSERA_LANE_KERNEL(JoinRealPairs, n, x_re, x_im, y_re, y_im);
}

template <typename R>
void LaneFft<R>::DeinterleaveLanes(const R* from, int64_t stride, int64_t count, R* re, R* im) {
  TESSERA_LANE_KERNEL(DeinterleaveLanes, from, stride, count, re, im);
}

template <typename R>
void LaneFft<R>::InterleaveLanes(const R* re, const R* im, R scale, int64_t count, R* to,
                                 int64_t stride) {
  TESSERA_LANE_KERNEL(InterleaveLanes, re, im, scale, count, to, stride);
}

template <typename R>
void LaneFft<R>::TwiddleRows(int64_t rows, const R* a_re, const R* a_im, const R* w_re,
                             const R* w_im, int64_t w_stride, R sign, R* y_re, R* y_im) {
  TESSERA_LANE_KERNEL(TwiddleRows, rows, a_re, a_im, w_re, w_im, w_stride, sign, y_re, y_im);
}

template <typename R>
void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const std::complex<R>* z,
                      const std::complex<R>* w, std::complex<R>* x) {
  const R* zr = reinterpret_cast<const R*>(z);
  const R* wr = reinterpret_cast<const R*>(w);
  R* xr = reinterpret_cast<R*>(x);
  TESSERA_LANE_KERNEL(PackedToSpectrum, h, begin, end, zr, wr, xr);
}

template <typename R>
void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const std::complex<R>* x,
                      const std::complex<R>* w, std::complex<R>* z) {
  const R* xr = reinterpret_cast<const R*>(x);
  const R* wr = reinterpret_cast<const R*>(w);
  R* zr = reinterpret_cast<R*>(z);
  TESSERA_LANE_KERNEL(SpectrumToPacked, h, begin, end, xr, wr, zr);
}

template <typename R>
void MultiplyPointwise(int64_t count, const std::complex<R>* a, const std::complex<R>* b,
                       bool conjugate_b, R scale, std::complex<R>* y) {
  const R* ar = reinterpret_cast<const R*>(a);
  const R* br = reinterpret_cast<const R*>(b);
  R* yr = reinterpret_cast<R*>(y);
  const R sign = conjugate_b ? R(-1) : R(1);
  TESSERA_LANE_KERNEL(MultiplyPointwise, count, ar, br, sign, scale, yr);
}

template void MultiplyPointwise<float>(int64_t, const std::complex<float>*,
                                       const std::complex<float>*, bool, float,
                                       std::complex<float>*);
template void MultiplyPointwise<double>(int64_t, const std::complex<double>*,
                                        const std::complex<double>*, bool, double,
                                        std::complex<double>*);
template void PackedToSpectrum<float>(int64_t, int64_t, int64_t, const std::complex<float>*,
                                      const std::complex<float>*, std::complex<float>*);
template void PackedToSpectrum<double>(int64_t, int64_t, int64_t, const std::complex<double>*,
                                       const std::complex<double>*, std::complex<double>*);
template void SpectrumToPacked<float>(int64_t, int64_t, int64_t, const std::complex<float>*,
                                      const std::complex<float>*, std::complex<float>*);
template void SpectrumToPacked<double>(int64_t, int64_t, int64_t, const std::complex<double>*,
                                       const std::complex<double>*, std::complex<double>*);

template class LaneFft<float>;
template class LaneFft<double>;

}  // namespace cpu
}  // namespace tessera
