// What Bluestein's chirp-z transform needs whatever runs its inner FFTs:
// LaneFft (lane_fft.h: lines in vector lanes) and BluesteinFft
// (bluestein_fft.h: one long line over four steps).
//
// With w[k] = e^(-i pi k^2 / n) (its conjugate for the inverse), the DFT
//   X[k] = w[k] sum_j (x[j] w[j]) conj(w[k - j])
// is a cyclic convolution of length m >= 2n - 1 of a = x w (zero from n on)
// with b[t] = conj(w[t]) at t and m - t, done as IFFT(FFT(a) FFT(b)).
#ifndef TESSERA_BACKENDS_CPU_BLUESTEIN_H_
#define TESSERA_BACKENDS_CPU_BLUESTEIN_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace tessera {
namespace cpu {
namespace bluestein {

// The smallest inner length m of the form 2^a, 3 * 2^a or 5 * 2^a (its
// passes radix 4 but for one) with m >= 2n - 1, m <= `max` and, where
// `usable` is not null, usable(m); 0 when there is none.  (64 lines of 1009
// points through LaneFft: inner 2048 0.26 ms, the 5-smooth 2025 = 3^4 * 5^2
// 0.39-0.40 ms.)
int64_t InnerLength(int64_t n, int64_t max, bool (*usable)(int64_t) = nullptr);

// w[k] = e^(-i pi k^2 / n), k < n, in double: k^2 reduced modulo 2n in
// integers first, so each angle is exact.
std::vector<std::complex<double>> Chirp(int64_t n);

// b of length m for the forward transform (conj(w) at t and m - t), or for
// the inverse (whose chirp is conj(w), so w).
std::vector<std::complex<double>> ConvolutionKernel(const std::vector<std::complex<double>>& chirp,
                                                    int64_t m, bool inverse);

}  // namespace bluestein
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_BLUESTEIN_H_
