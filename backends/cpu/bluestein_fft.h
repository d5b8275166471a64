// Long 1-D complex FFTs whose length FourStepFft cannot split (a prime
// factor beyond 31, or a side shorter than the lanes): Bluestein's
// chirp-z transform (bluestein.h) over a FourStepFft of length m >= 2n - 1.
//
// For few lines, where LaneFft's own Bluestein transform (lane_fft.h) would
// leave most of its 16 lanes idle, and for lengths beyond LaneFft's reach.
// Eigen's Bluestein transform, which ran these before, was inaccurate on
// long lines: one line of 300007 points was 160 off numpy's float64 FFT,
// for outputs of magnitude about 220 (XLA: 0.01).
//
//   if (BluesteinFft<float>::Supports(n)) BluesteinFft<float>(n).Transform(...);
#ifndef TESSERA_BACKENDS_CPU_BLUESTEIN_FFT_H_
#define TESSERA_BACKENDS_CPU_BLUESTEIN_FFT_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "backends/cpu/four_step_fft.h"

namespace tessera {
namespace runtime {
class ThreadPool;
}  // namespace runtime

namespace cpu {

template <typename R>
class BluesteinFft {
 public:
  // Inner lengths up to this (4 Mi points: 32 MB of c64 per buffer).
  static constexpr int64_t kMaxInner = int64_t{1} << 23;

  // Whether n >= 2 has an inner length m (2^a, 3 * 2^a or 5 * 2^a, at
  // least 2n - 1, at most kMaxInner) that FourStepFft splits.
  static bool Supports(int64_t n);
  // That length, or 0.
  static int64_t InnerLength(int64_t n);

  // The plan for length n (Supports(n) must hold).
  explicit BluesteinFft(int64_t n);

  int64_t size() const { return n_; }

  // out[line] = the DFT of in[line] for `lines` contiguous lines of size()
  // points (the inverse, scaled by 1/size(), when `inverse`), one line at
  // a time, each transform's steps split over `pool` (may be null).  in and
  // out may be the same.
  void Transform(const std::complex<R>* in, std::complex<R>* out, int64_t lines, bool inverse,
                 runtime::ThreadPool* pool) const;

 private:
  int64_t n_;
  FourStepFft<R> inner_;
  // w[k], k < n, and FFT_m(b) for the forward and the inverse transform
  // (b's spectrum unscaled: the inner inverse divides by m), computed in
  // double.
  std::vector<std::complex<R>> chirp_, kernel_, kernel_inverse_;
};

extern template class BluesteinFft<float>;
extern template class BluesteinFft<double>;

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_BLUESTEIN_FFT_H_
