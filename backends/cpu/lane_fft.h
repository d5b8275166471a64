// LaneFft: one-dimensional FFTs of one length n, computed for a vector
// register's worth of independent lines at once (16 in f32, 8 in f64).
//
// The fft thunk's transforms are many lines of one length (the rows of a
// batch, or the columns of a 2-D transform), so the lines, not the points of
// one line, fill the vector lanes: element k of line l sits at
// [k * kLanes + l] of split real and imaginary arrays, and every butterfly
// is plain vertical arithmetic.  The algorithm is Stockham's self-sorting
// mixed-radix FFT (radix 4, then 2 and the odd primes up to 31: 3 and 5
// in butterflies of their own, the others as direct DFTs; no bit
// reversal), twiddles computed in double once per plan.  A length with a prime factor above 31 runs
// as Bluestein's chirp-z transform: a cyclic convolution of length m >= 2n - 1 (2^a, 3 * 2^a or 5 *
// 2^a) through two smooth transforms of length m.
//
//   LaneFft<float> fft(1024);
//   auto [result_re, result_im] = fft.Transform(re, im, work_re, work_im, false);
#ifndef TESSERA_BACKENDS_CPU_LANE_FFT_H_
#define TESSERA_BACKENDS_CPU_LANE_FFT_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/lane_fft_kernels.h"

namespace tessera {
namespace cpu {

template <typename R>
class LaneFft {
 public:
  static constexpr int kLanes = lane_fft_internal::kLanes<R>;

  // Whether there is a plan for length n: every n >= 1.
  static bool Supports(int64_t n) { return n >= 1; }
  // Whether n >= 1 factors into primes up to 31: transformed directly, in
  // radix passes (else by Bluestein's algorithm: 64 lines of 1009 points
  // took 0.26 ms, of 1000 points 0.10).
  static bool IsSmooth(int64_t n);

  // The plan for length n >= 1.
  explicit LaneFft(int64_t n);

  int64_t size() const { return n_; }

  // Transforms kLanes lines of size() elements, unscaled: the forward DFT
  // (e^(-2 pi i j k / n)), or the inverse's sum (e^(+...)) when `inverse`.
  // The stages alternate between (re, im) and (work_re, work_im), arrays of
  // size() * kLanes reals each; the result is in the pair this returns
  // (the first when the stage count is even) and the other is clobbered.
  // (Bluestein's transform works in scratch of its own, per thread, and
  // returns (re, im).)
  std::pair<R*, R*> Transform(R* re, R* im, R* work_re, R* work_im, bool inverse) const;

  // Real lines two to a lane, x + i y in one complex lane (real FFTs of
  // many lines: one transform per two lines).  SplitRealPairs: from the
  // transform Z of n points in (z_re, z_im), X[k] = (Z[k] + conj(Z[n-k]))/2
  // into (x_re, x_im) and Y[k] = (Z[k] - conj(Z[n-k]))/2i over Z, for
  // k <= n/2.  JoinRealPairs: from the half spectra X in (x_re, x_im) and
  // Y in (y_re, y_im) (k <= n/2, X[0] and Y[0] real, and X[n/2] and Y[n/2]
  // for even n), Z = X + i Y of all n points over Y, their negative
  // frequencies rebuilt (X[n-k] = conj(X[k])); its inverse is x + i y.
  static void SplitRealPairs(int64_t n, R* z_re, R* z_im, R* x_re, R* x_im);
  static void JoinRealPairs(int64_t n, const R* x_re, const R* x_im, R* y_re, R* y_im);

  // Lanes of adjacent complex lines (the columns of a 2-D transform):
  // element k of the kLanes lines is kLanes interleaved complex values at
  // from + k * stride (reals), split into re[k * kLanes + l] and
  // im[k * kLanes + l], for k < count; InterleaveLanes the way back,
  // scaled.
  static void DeinterleaveLanes(const R* from, int64_t stride, int64_t count, R* re, R* im);
  static void InterleaveLanes(const R* re, const R* im, R scale, int64_t count, R* to,
                              int64_t stride);
  // y[r] = a[r] * w[r] (w's imaginary parts times `sign`) for `rows` rows
  // of kLanes lanes: a and y kLanes apart, w w_stride apart (in place or
  // not).
  static void TwiddleRows(int64_t rows, const R* a_re, const R* a_im, const R* w_re, const R* w_im,
                          int64_t w_stride, R sign, R* y_re, R* y_im);

 private:
  struct Bluestein;
  std::pair<R*, R*> TransformByBluestein(R* re, R* im, bool inverse) const;

  struct Stage {
    lane_fft_internal::RadixStage shape;
    std::vector<R> twiddle_re, twiddle_im;  // [j * radix + t]: w^(j t)
    std::vector<R> omega_re, omega_im;      // [k]: e^(-2 pi i k / radix)
  };
  int64_t n_;
  std::vector<Stage> stages_;
  std::shared_ptr<const Bluestein> bluestein_;  // null for smooth lengths
};

// A real line of n = 2h points packed into h complex points z (z[j] =
// x[2j] + i x[2j+1]) and its spectrum X (line_fft.cc; vectorized along
// the line, not over lanes).  PackedToSpectrum: from Z = DFT_h(z),
// X[k] = (Z[k] + conj(Z[h-k])) / 2 + w[k] (Z[k] - conj(Z[h-k])) / 2i;
// SpectrumToPacked: the inverse's packed line Z[k] = E + i O from X, with
// E = (X[k] + conj(X[h-k])) / 2 and O = (X[k] - conj(X[h-k])) conj(w[k]) / 2.
// w[k] = e^(-2 pi i k / n).  For k in [begin, end), 1 <= k < h; arrays of
// interleaved complex values (x and z must not overlap).
template <typename R>
void PackedToSpectrum(int64_t h, int64_t begin, int64_t end, const std::complex<R>* z,
                      const std::complex<R>* w, std::complex<R>* x);
template <typename R>
void SpectrumToPacked(int64_t h, int64_t begin, int64_t end, const std::complex<R>* x,
                      const std::complex<R>* w, std::complex<R>* z);

// y[k] = a[k] * b[k] * scale (conj(b[k]) where `conjugate_b`) for
// k < count (y may be a): Bluestein's chirps and kernel spectra.
template <typename R>
void MultiplyPointwise(int64_t count, const std::complex<R>* a, const std::complex<R>* b,
                       bool conjugate_b, R scale, std::complex<R>* y);

extern template class LaneFft<float>;
extern template class LaneFft<double>;

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LANE_FFT_H_
