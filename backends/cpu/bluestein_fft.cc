#include "backends/cpu/bluestein_fft.h"

#include <algorithm>
#include <memory>

#include "backends/cpu/bluestein.h"
#include "backends/cpu/lane_fft.h"
#include "runtime/thread_pool.h"

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
  const R scale = inverse ? R(1) / static_cast<R>(n) : R(1);
  // y = a b s over [0, count), in chunks over the pool where long.
  auto multiply = [&](int64_t count, const C* a, const C* b, bool conjugate_b, R s, C* y) {
    constexpr int64_t kChunk = int64_t{1} << 14;
    const int64_t chunks = (count + kChunk - 1) / kChunk;
    auto run = [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t k = c * kChunk, size = std::min(kChunk, count - k);
        MultiplyPointwise<R>(size, a + k, b + k, conjugate_b, s, y + k);
      }
    };
    if (pool == nullptr || chunks < 2) {
      run(0, chunks);
    } else {
      pool->ParallelFor(chunks, pool->BlockSizeFor(chunks), run);
    }
  };
  // One line's chirped points, zero-padded to m, transformed in place
  // (uninitialized reals: std::complex would zero all m every call).
  std::unique_ptr<R[]> storage(new R[2 * m]);
  C* a = reinterpret_cast<C*>(storage.get());
  for (int64_t line = 0; line < lines; ++line) {
    multiply(n, in + line * n, chirp_.data(), inverse, R(1), a);
    std::fill(a + n, a + m, C(0));
    inner_.Transform(a, a, 1, false, pool);
    multiply(m, a, kernel.data(), false, R(1), a);
    inner_.Transform(a, a, 1, true, pool);  // / m
    multiply(n, a, chirp_.data(), inverse, scale, out + line * n);
  }
}

template class BluesteinFft<float>;
template class BluesteinFft<double>;

}  // namespace cpu
}  // namespace tessera
