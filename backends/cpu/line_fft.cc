#include "backends/cpu/line_fft.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/fft_complex.h"

namespace tessera {
namespace cpu {
namespace {

// Lines gathered into one contiguous block per transform call, up to this
// many points in all (8 MB of c64), so that Bluestein's and the four steps'
// scratch serves several short lines at once.
constexpr int64_t kBlockPoints = int64_t{1} << 20;

bool PowerOfTwo(int64_t n) { return (n & (n - 1)) == 0; }

// Runs `lines` lines through `transform` in contiguous blocks of lines of
// `points` complex points: load(line, to) fills one line of a block,
// transform(block, count) transforms its first `count` lines in place, and
// store(line, from) writes one line back.
template <typename C, typename Load, typename Transform, typename Store>
void InBlocks(int64_t lines, int64_t points, Load load, Transform transform, Store store) {
  const int64_t per_block = std::clamp<int64_t>(kBlockPoints / points, 1, lines);
  std::vector<C> block(per_block * points);
  for (int64_t first = 0; first < lines; first += per_block) {
    const int64_t count = std::min(per_block, lines - first);
    for (int64_t i = 0; i < count; ++i) load(first + i, block.data() + i * points);
    transform(block.data(), count);
    for (int64_t i = 0; i < count; ++i) store(first + i, block.data() + i * points);
  }
}

}  // namespace

template <typename R>
bool LineFft<R>::Supports(int64_t n) {
  if (n < 1) return false;
  if (n <= kMaxFourStepLength && FourStepFft<R>::Supports(n)) return true;
  return !PowerOfTwo(n) && BluesteinFft<R>::Supports(n);
}

template <typename R>
LineFft<R>::LineFft(int64_t n, bool real) : n_(n) {
  if (real && n % 2 == 0 && Supports(n / 2)) {
    const int64_t h = n / 2;
    half_ = std::make_unique<const LineFft<R>>(h);
    half_twiddle_.reserve(h);
    for (int64_t k = 0; k < h; ++k) {
      const double angle = -2 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      half_twiddle_.push_back(std::complex<R>(std::polar(1.0, angle)));
    }
    return;
  }
  if (n <= kMaxFourStepLength && FourStepFft<R>::Supports(n)) {
    four_step_ = std::make_unique<const FourStepFft<R>>(n);
  } else {
    bluestein_ = std::make_unique<const BluesteinFft<R>>(n);
  }
}

template <typename R>
void LineFft<R>::Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines,
                           bool inverse, runtime::ThreadPool* pool) const {
  // Both read all of their lines before writing any (into scratch of
  // their own), so in may be out.
  if (four_step_ != nullptr) {
    four_step_->Transform(in, out, lines, inverse, pool);
  } else {
    bluestein_->Transform(in, out, lines, inverse, pool);
  }
}

template <typename R>
void LineFft<R>::TransformAxis(int64_t outer, int64_t inner, LineIn in_kind, const void* in,
                               LineOut out_kind, void* out, bool inverse,
                               runtime::ThreadPool* pool) const {
  using C = std::complex<R>;
  if (half_ != nullptr) {
    TransformPacked(outer, inner, in_kind, in, out_kind, out, inverse, pool);
    return;
  }
  const int64_t n = n_, half = n / 2 + 1;
  if (inner == 1 && in_kind == LineIn::kComplex && out_kind == LineOut::kComplex) {
    Transform(static_cast<const C*>(in), static_cast<C*>(out), outer, inverse, pool);
    return;
  }
  const int64_t n_in = in_kind == LineIn::kHalfSpectrum ? half : n;
  const int64_t n_out = out_kind == LineOut::kHalfSpectrum ? half : n;
  auto load = [&](int64_t index, C* line) {
    const int64_t base = index / inner * n_in * inner + index % inner;
    if (in_kind == LineIn::kReal) {
      const R* from = static_cast<const R*>(in) + base;
      for (int64_t k = 0; k < n; ++k) line[k] = C(from[k * inner], R(0));
      return;
    }
    const C* from = static_cast<const C*>(in) + base;
    for (int64_t k = 0; k < n_in; ++k) line[k] = from[k * inner];
    // The negative frequencies of a half spectrum.
    for (int64_t k = n_in; k < n; ++k) line[k] = std::conj(line[n - k]);
  };
  auto transform = [&](C* block, int64_t count) { Transform(block, block, count, inverse, pool); };
  auto store = [&](int64_t index, const C* line) {
    const int64_t base = index / inner * n_out * inner + index % inner;
    if (out_kind == LineOut::kReal) {
      R* to = static_cast<R*>(out) + base;
      for (int64_t k = 0; k < n; ++k) to[k * inner] = line[k].real();
      return;
    }
    C* to = static_cast<C*>(out) + base;
    for (int64_t k = 0; k < n_out; ++k) to[k * inner] = line[k];
  };
  InBlocks<C>(outer * inner, n, load, transform, store);
}

template <typename R>
void LineFft<R>::TransformPacked(int64_t outer, int64_t inner, LineIn in_kind, const void* in,
                                 LineOut out_kind, void* out, bool inverse,
                                 runtime::ThreadPool* pool) const {
  using C = std::complex<R>;
  using fft_complex::Half;
  using fft_complex::Multiply;
  using fft_complex::MultiplyByConj;
  const int64_t n = n_, h = n / 2;
  const C* w = half_twiddle_.data();
  auto load = [&](int64_t index, C* z) {
    const int64_t o = index / inner, c = index % inner;
    if (in_kind == LineIn::kReal) {
      const R* x = static_cast<const R*>(in) + o * n * inner + c;
      for (int64_t j = 0; j < h; ++j) z[j] = C(x[2 * j * inner], x[(2 * j + 1) * inner]);
      return;
    }
    const C* x = static_cast<const C*>(in) + o * (h + 1) * inner + c;
    // X[0] and X[h] count by their real parts: the result is the real part
    // of the inverse of the spectrum rebuilt from its first half.
    const R x0 = x[0].real(), xh = x[h * inner].real();
    z[0] = C((x0 + xh) / 2, (x0 - xh) / 2);
    for (int64_t k = 1; k < h; ++k) {
      const C a = x[k * inner], b = std::conj(x[(h - k) * inner]);
      const C even = Half(a + b), odd = MultiplyByConj(Half(a - b), w[k]);
      z[k] = C(even.real() - odd.imag(), even.imag() + odd.real());  // E + i O
    }
  };
  auto transform = [&](C* block, int64_t count) {
    half_->Transform(block, block, count, inverse, pool);
  };
  auto store = [&](int64_t index, const C* z) {
    const int64_t o = index / inner, c = index % inner;
    if (out_kind == LineOut::kReal) {
      R* x = static_cast<R*>(out) + o * n * inner + c;
      for (int64_t j = 0; j < h; ++j) {
        x[2 * j * inner] = z[j].real();
        x[(2 * j + 1) * inner] = z[j].imag();
      }
      return;
    }
    C* x = static_cast<C*>(out) + o * (h + 1) * inner + c;
    x[0] = C(z[0].real() + z[0].imag(), 0);
    x[h * inner] = C(z[0].real() - z[0].imag(), 0);
    for (int64_t k = 1; k < h; ++k) {
      const C a = z[k], b = std::conj(z[h - k]);
      const C even = Half(a + b), d = Half(a - b);
      const C odd(d.imag(), -d.real());  // (a - b) / 2i
      x[k * inner] = even + Multiply(odd, w[k]);
    }
  };
  InBlocks<C>(outer * inner, h, load, transform, store);
}

template class LineFft<float>;
template class LineFft<double>;

}  // namespace cpu
}  // namespace tessera
