// LineFft: one axis of an FFT transformed a line at a time, the points of
// each line spread over the vector lanes and the thread pool: FourStepFft
// (four_step_fft.h) where the length splits, else Bluestein's transform
// over it (bluestein_fft.h).
//
// For the axes LaneFft (lane_fft.h, kLanes lines per pass) serves badly:
// too few lines to fill its lanes, or lines so long that its lane buffers
// outgrow the caches.  Eigen's tensor FFT, which ran those before, was
// inaccurate there: one real line of 300007 points transformed 1.4e-3 of
// the largest magnitude off numpy's float64 FFT, and two of 2^20 points 6.8e-4
// (here 2.1e-7 for both, in 7.5 and 5.0 ms against XLA's 16.6 and 5.1).
//
//   if (LineFft<float>::Supports(n)) {
//     LineFft<float>(n).TransformAxis(outer, 1, LineIn::kReal, x, LineOut::kHalfSpectrum, y,
//                                     false, pool);
//   }
#ifndef TESSERA_BACKENDS_CPU_LINE_FFT_H_
#define TESSERA_BACKENDS_CPU_LINE_FFT_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/bluestein_fft.h"
#include "backends/cpu/four_step_fft.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

// What a line of an FFT axis holds on the way in and out: n complex
// points; n reals; or the first n/2 + 1 of a Hermitian spectrum (an RFFT's
// result, an IRFFT's operand).
enum class LineIn { kComplex, kReal, kHalfSpectrum };
enum class LineOut { kComplex, kReal, kHalfSpectrum };

template <typename R>
class LineFft {
 public:
  // Four steps up to this length (2^26 points: 512 MB of c64 per line).
  static constexpr int64_t kMaxFourStepLength = int64_t{1} << 26;

  // Whether there is a plan for n: FourStepFft splits it, or n is not a
  // power of two and Bluestein's transform has an inner length for it.
  // (Short powers of two, which four steps cannot split, LaneFft serves.)
  static bool Supports(int64_t n);

  // The plan for length n (Supports(n) must hold).  `real`: the axis is
  // an RFFT's or IRFFT's last, its lines real on one side and half
  // spectra on the other.  For an even n whose half LineFft supports, the
  // plan then packs a real line's even and odd points into one complex
  // line of n/2 (XLA's transform does the same), half the work, and
  // TransformAxis then takes only contiguous real and half-spectrum lines
  // (inner 1, as a last axis has).
  explicit LineFft(int64_t n, bool real = false);

  int64_t size() const { return n_; }

  // Transforms every line along the middle axis of the row-major tensor
  // [outer, n, inner]: element k of line (o, c) at (o * n + k) * inner + c,
  // n being the axis's extent on that side (n/2 + 1 for a half spectrum).
  // The inverse is scaled by 1/n; a real result is the real part of the
  // inverse, the spectrum's negative frequencies rebuilt from its first
  // half (X[n - k] = conj(X[k])).  `in` may be `out`; `pool` may be null.
  void TransformAxis(int64_t outer, int64_t inner, LineIn in_kind, const void* in, LineOut out_kind,
                     void* out, bool inverse, runtime::ThreadPool* pool) const;

 private:
  // `lines` contiguous complex lines, in place or not.
  void Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines, bool inverse,
                 runtime::ThreadPool* pool) const;

  // The packed transform of `lines` contiguous real lines or half
  // spectra: through half_, a plan of n/2.
  void TransformPacked(int64_t lines, LineIn in_kind, const void* in, LineOut out_kind, void* out,
                       bool inverse, runtime::ThreadPool* pool) const;

  int64_t n_;
  std::unique_ptr<const FourStepFft<R>> four_step_;  // or
  std::unique_ptr<const BluesteinFft<R>> bluestein_;
  // Or, for packed real lines: the plan of n/2, and e^(-2 pi i k / n) for
  // k < n/2.
  std::unique_ptr<const LineFft<R>> half_;
  std::vector<std::complex<R>> half_twiddle_;
};

extern template class LineFft<float>;
extern template class LineFft<double>;

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LINE_FFT_H_
