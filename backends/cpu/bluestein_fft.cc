#include "backends/cpu/bluestein_fft.h"

#include <algorithm>

#include "backends/cpu/bluestein.h"
#include "backends/cpu/fft_complex.h"

namespace tessera {
namespace cpu {

template <typename R>
int64_t BluesteinFft<R>::InnerLength(int64_t n) {
  return bluestein::InnerLength(n, kMaxInner, &FourStepFft<R>::Supports);
}

template <typename R>
bool BluesteinFft<R>::Supports(int64_t n) {
  return n >= 2 && InnerLength(n) > 0;
}

template <typename R>
BluesteinFft<R>::BluesteinFft(int64_t n) : n_(n), inner_(InnerLength(n)) {
  const int64_t m = inner_.size();
  const std::vector<std::complex<double>> chirp = bluestein::Chirp(n);
  for (const std::complex<double>& w : chirp) chirp_.push_back(std::complex<R>(w));
  const FourStepFft<double> spectrum(m);
  for (bool inverse : {false, true}) {
    const std::vector<std::complex<double>> b = bluestein::ConvolutionKernel(chirp, m, inverse);
    std::vector<std::complex<double>> transformed(m);
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
  auto times_chirp = [&](C x, int64_t k) {
    return inverse ? fft_complex::MultiplyByConj(x, chirp_[k])
                   : fft_complex::Multiply(x, chirp_[k]);
  };
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  std::vector<C> a(m), spectrum(m);
  for (int64_t line = 0; line < lines; ++line) {
    const C* x = in + line * n;
    for (int64_t k = 0; k < n; ++k) a[k] = times_chirp(x[k], k);
    std::fill(a.begin() + n, a.end(), C(0));
    inner_.Transform(a.data(), spectrum.data(), 1, false, pool);
    for (int64_t k = 0; k < m; ++k) spectrum[k] = fft_complex::Multiply(spectrum[k], kernel[k]);
    inner_.Transform(spectrum.data(), a.data(), 1, true, pool);  // / m
    C* y = out + line * n;
    for (int64_t k = 0; k < n; ++k) y[k] = times_chirp(a[k], k) * scale;
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace cpu
}  // namespace tessera
