// Long 1-D complex FFTs, a line at a time, for LineFft (line_fft.h), the
// fft thunks' axes of few or long lines: Bailey's four steps over LaneFft
// (lane_fft.h).  A line of n = n1 * n2
// points is an n1 x n2 matrix A[j1][j2] = x[n2 j1 + j2]; its DFT is
//   X[k1 + n1 k2] = sum_j2 W_n2^(j2 k2) W_n^(j2 k1) sum_j1 W_n1^(j1 k1) A[j1][j2],
// so n2 transforms of length n1 (the columns: 16 adjacent columns are
// 16 lanes, read in place), a twiddle, and n1 transforms of length n2
// (the rows, 16 at a time), whose results are 16 adjacent outputs each.
// LaneFft alone fills its lanes with whole lines, which a batch of two
// leaves mostly idle; Eigen's radix-2 transform (what ran before: 0.2 ms
// for two 4096-point lines, XLA 0.06) vectorizes within a line but slowly.
//
//   if (FourStepFft<float>::Supports(n)) FourStepFft<float>(n).Transform(...);
#ifndef TESSERA_BACKENDS_CPU_FOUR_STEP_FFT_H_
#define TESSERA_BACKENDS_CPU_FOUR_STEP_FFT_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "backends/cpu/lane_fft.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

template <typename R>
class FourStepFft {
 public:
  static constexpr int kLanes = LaneFft<R>::kLanes;

  // Whether n splits into n1 * n2, each at least kLanes and with no prime
  // factor beyond 31 (which LaneFft transforms directly).  Neither need be
  // a multiple of kLanes: the last group of columns or rows runs with
  // some lanes idle.
  static bool Supports(int64_t n);

  // The plan for length n (Supports(n) must hold).
  explicit FourStepFft(int64_t n);

  int64_t size() const { return n1_ * n2_; }

  // out[line] = the DFT of in[line] for `lines` contiguous lines of size()
  // points (the inverse, scaled by 1/size(), when `inverse`).  `pool` may
  // be null.  in may be out (the lines are read whole, into scratch,
  // before any output is written); otherwise they must not overlap.
  void Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines, bool inverse,
                 runtime::ThreadPool* pool) const;

 private:
  int64_t n1_, n2_;
  LaneFft<R> columns_, rows_;  // lengths n1 and n2
  // W_n^(k1 j2) at [k1 * n2 + j2] (forward; conjugated for the inverse).
  std::vector<R> twiddle_re_, twiddle_im_;
};

extern template class FourStepFft<float>;
extern template class FourStepFft<double>;

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_FOUR_STEP_FFT_H_
