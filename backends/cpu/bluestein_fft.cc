#include "backends/cpu/bluestein_fft.h"

#include <algorithm>
#include <cmath>

namespace tessera {
namespace cpu {
namespace {

// The smallest inner length for n: 2^a, 3 * 2^a or 5 * 2^a, at least
// 2n - 1, that FourStepFft splits; 0 when none is at most kMaxInner.
template <typename R>
int64_t InnerLength(int64_t n) {
  int64_t best = 0;
  for (int64_t odd : {1, 3, 5}) {
    int64_t m = odd;
    while (m < 2 * n - 1) m *= 2;
    while (m <= BluesteinFft<R>::kMaxInner && !FourStepFft<R>::Supports(m)) m *= 2;
    if (m <= BluesteinFft<R>::kMaxInner && (best == 0 || m < best)) best = m;
  }
  return best;
}

}  // namespace

template <typename R>
bool BluesteinFft<R>::Supports(int64_t n) {
  return n >= 2 && InnerLength<R>(n) > 0;
}

template <typename R>
BluesteinFft<R>::BluesteinFft(int64_t n) : n_(n), inner_(InnerLength<R>(n)) {
  const int64_t m = inner_.size();
  std::vector<std::complex<double>> chirp(n);
  for (int64_t k = 0; k < n; ++k) {
    const double angle = -M_PI * static_cast<double>((k * k) % (2 * n)) / n;
    chirp[k] = {std::cos(angle), std::sin(angle)};
    chirp_.push_back(std::complex<R>(chirp[k]));
  }
  const FourStepFft<double> spectrum(m);
  for (bool inverse : {false, true}) {
    // b = conj(w) forward; the inverse's chirp is conj(w), so its b is w.
    std::vector<std::complex<double>> b(m), transformed(m);
    for (int64_t t = 0; t < n; ++t) {
      b[t] = inverse ? chirp[t] : std::conj(chirp[t]);
      if (t > 0) b[m - t] = b[t];
    }
    spectrum.Transform(b.data(), transformed.data(), 1, false, nullptr);
    std::vector<std::complex<R>>& kernel = inverse ? kernel_inverse_ : kernel_;
    for (const std::complex<double>& value : transformed) kernel.push_back(std::complex<R>(value));
  }
}

template <typename R>
void BluesteinFft<R>::Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines,
                                bool inverse, runtime::ThreadPool* pool) const {
  using C = std::complex<R>;
  const int64_t n = n_, m = inner_.size();
  const std::vector<C>& kernel = inverse ? kernel_inverse_ : kernel_;
  // The inverse's chirp is conj(w), and its result carries 1/n.
  auto chirp = [&](int64_t k) { return inverse ? std::conj(chirp_[k]) : chirp_[k]; };
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  std::vector<C> a(m), spectrum(m);
  for (int64_t line = 0; line < lines; ++line) {
    const C* x = in + line * n;
    for (int64_t k = 0; k < n; ++k) a[k] = x[k] * chirp(k);
    std::fill(a.begin() + n, a.end(), C(0));
    inner_.Transform(a.data(), spectrum.data(), 1, false, pool);
    for (int64_t k = 0; k < m; ++k) spectrum[k] *= kernel[k];
    inner_.Transform(spectrum.data(), a.data(), 1, true, pool);  // / m
    C* y = out + line * n;
    for (int64_t k = 0; k < n; ++k) y[k] = a[k] * chirp(k) * scale;
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace cpu
}  // namespace tessera
