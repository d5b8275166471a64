#include "backends/cpu/bluestein.h"

#include <cmath>

namespace tessera {
namespace cpu {
namespace bluestein {

int64_t InnerLength(int64_t n, int64_t max, bool (*usable)(int64_t)) {
  int64_t best = 0;
  for (int64_t odd : {1, 3, 5}) {
    int64_t m = odd;
    while (m < 2 * n - 1) m *= 2;
    while (m <= max && usable != nullptr && !usable(m)) m *= 2;
    if (m <= max && (best == 0 || m < best)) best = m;
  }
  return best;
}

std::vector<std::complex<double>> Chirp(int64_t n) {
  std::vector<std::complex<double>> chirp(n);
  for (int64_t k = 0; k < n; ++k) {
    chirp[k] = std::polar(1.0, -M_PI * static_cast<double>((k * k) % (2 * n)) / n);
  }
  return chirp;
}

std::vector<std::complex<double>> ConvolutionKernel(const std::vector<std::complex<double>>& chirp,
                                                    int64_t m, bool inverse) {
  std::vector<std::complex<double>> b(m);
  for (int64_t t = 0; t < static_cast<int64_t>(chirp.size()); ++t) {
    b[t] = inverse ? chirp[t] : std::conj(chirp[t]);
    if (t > 0) b[m - t] = b[t];
  }
  return b;
}

}  // namespace bluestein
}  // namespace cpu
}  // namespace tessera
