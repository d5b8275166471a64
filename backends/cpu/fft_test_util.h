// The DFT of one line at one output, summed directly in double: the
// reference of the FFT tests (four_step_fft_test, bluestein_fft_test),
// which sample outputs where a whole direct DFT (n^2) would take too long.
#ifndef TESSERA_BACKENDS_CPU_FFT_TEST_UTIL_H_
#define TESSERA_BACKENDS_CPU_FFT_TEST_UTIL_H_

#include <cmath>
#include <complex>
#include <cstdint>

namespace tessera {
namespace cpu {
namespace testing {

// X[k] of the n points at `line` (the inverse's, with its 1/n, when
// `inverse`).  (j k) mod n keeps each angle exact in double.
template <typename R>
std::complex<double> DirectDftAt(const std::complex<R>* line, int64_t n, int64_t k, bool inverse) {
  const double sign = inverse ? 1 : -1;
  std::complex<double> sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double angle = sign * 2 * M_PI * static_cast<double>((j * k) % n) / n;
    sum += std::complex<double>(line[j]) * std::polar(1.0, angle);
  }
  return inverse ? sum / static_cast<double>(n) : sum;
}

// The tolerance for an output of a float (R = float) or double transform
// of n points: outputs are about sqrt(n) (the inverse's 1/sqrt(n)) in
// size, and the rounding error grows with log2(n) passes; `ulps` scales it.
template <typename R>
double DftTolerance(int64_t n, bool inverse, double ulps = 1) {
  const double size = inverse ? 1 / std::sqrt(n) : std::sqrt(n);
  return ulps * (sizeof(R) == 4 ? 1e-6 : 1e-15) * size * std::log2(n);
}

}  // namespace testing
}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_FFT_TEST_UTIL_H_
