// LaneFft: one-dimensional FFTs of one length n, computed for a vector
// register's worth of independent lines at once (16 in f32, 8 in f64).
//
// The fft thunk's transforms are many lines of one length (the rows of a
// batch, or the columns of a 2-D transform), so the lines, not the points of
// one line, fill the vector lanes: element k of line l sits at
// [k * kLanes + l] of split real and imaginary arrays, and every butterfly
// is plain vertical arithmetic.  The algorithm is Stockham's self-sorting
// mixed-radix FFT (radix 4, then 2 and the odd primes up to 31, those from
// 11 on as direct DFTs; no bit reversal), twiddles computed in double once
// per plan.  Lengths with a prime factor above 31 are not supported
// (Supports); the thunk leaves those to Eigen.
//
//   LaneFft<float> fft(1024);
//   auto [result_re, result_im] = fft.Transform(re, im, work_re, work_im, false);
#ifndef TESSERA_BACKENDS_CPU_LANE_FFT_H_
#define TESSERA_BACKENDS_CPU_LANE_FFT_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "backends/cpu/lane_fft_kernels.h"

namespace tessera {
namespace cpu {

template <typename R>
class LaneFft {
 public:
  static constexpr int kLanes = lane_fft_internal::kLanes<R>;

  // Whether n >= 1 factors into primes up to 31.
  static bool Supports(int64_t n);

  // The plan for length n (Supports(n) must hold).
  explicit LaneFft(int64_t n);

  int64_t size() const { return n_; }

  // Transforms kLanes lines of size() elements, unscaled: the forward DFT
  // (e^(-2 pi i j k / n)), or the inverse's sum (e^(+...)) when `inverse`.
  // The stages alternate between (re, im) and (work_re, work_im), arrays of
  // size() * kLanes reals each; the result is in the pair this returns
  // (the first when the stage count is even) and the other is clobbered.
  std::pair<R*, R*> Transform(R* re, R* im, R* work_re, R* work_im, bool inverse) const;

 private:
  struct Stage {
    lane_fft_internal::RadixStage shape;
    std::vector<R> twiddle_re, twiddle_im;  // [j * radix + t]: w^(j t)
    std::vector<R> omega_re, omega_im;      // [k]: e^(-2 pi i k / radix)
  };
  int64_t n_;
  std::vector<Stage> stages_;
};

extern template class LaneFft<float>;
extern template class LaneFft<double>;

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_LANE_FFT_H_
