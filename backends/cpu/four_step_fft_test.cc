// FourStepFft against a direct DFT in double: forward and inverse, float
// and double, square and oblong splits, several lines at once (and split
// over a pool), and the lengths it takes.
#include "backends/cpu/four_step_fft.h"

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

template <typename R>
void CheckAgainstDirectDft(int64_t n, int64_t lines, bool inverse, runtime::ThreadPool* pool) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " lines=" << lines << " inverse=" << inverse);
  std::mt19937_64 rng(n + lines);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::complex<R>> in(n * lines), out(n * lines);
  for (auto& x : in) x = {static_cast<R>(uniform(rng)), static_cast<R>(uniform(rng))};
  ASSERT_TRUE(FourStepFft<R>::Supports(n));
  FourStepFft<R>(n).Transform(in.data(), out.data(), lines, inverse, pool);
  const double sign = inverse ? 1 : -1;
  // A sample of outputs per line (a whole direct DFT is n^2).
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t k = 0; k < n; k += (k % 7 == 0 ? 1 : 61)) {
      std::complex<double> sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double angle = sign * 2 * M_PI * static_cast<double>((j * k) % n) / n;
        sum += std::complex<double>(in[line * n + j]) * std::polar(1.0, angle);
      }
      if (inverse) sum /= static_cast<double>(n);
      // Outputs are about sqrt(n) (the inverse's 1/sqrt(n)) in size; the
      // rounding error grows with log2(n) passes.
      const double size = inverse ? 1 / std::sqrt(n) : std::sqrt(n);
      const double tolerance = (sizeof(R) == 4 ? 1e-6 : 1e-15) * size * std::log2(n);
      const std::complex<double> got(out[line * n + k]);
      ASSERT_LE(std::abs(got - sum), tolerance) << "line " << line << " k " << k;
    }
  }
}

TEST(FourStepFftTest, MatchesTheDirectDft) {
  runtime::ThreadPool pool(2);
  for (bool inverse : {false, true}) {
    CheckAgainstDirectDft<float>(256, 1, inverse, nullptr);  // 16 x 16
    CheckAgainstDirectDft<float>(4096, 2, inverse, &pool);   // 64 x 64
    CheckAgainstDirectDft<float>(3840, 3, inverse, &pool);   // 48 x 80
    CheckAgainstDirectDft<float>(16384, 1, inverse, &pool);  // 128 x 128
    CheckAgainstDirectDft<double>(64, 2, inverse, nullptr);  // 8 x 8
    CheckAgainstDirectDft<double>(2048, 3, inverse, &pool);  // 32 x 64
  }
}

TEST(FourStepFftTest, TakesLengthsThatSplitIntoLaneMultiples) {
  EXPECT_TRUE(FourStepFft<float>::Supports(256));
  EXPECT_TRUE(FourStepFft<float>::Supports(1 << 20));
  EXPECT_FALSE(FourStepFft<float>::Supports(128));       // 16 x 8
  EXPECT_FALSE(FourStepFft<float>::Supports(256 * 37));  // a factor LaneFft lacks
  EXPECT_FALSE(FourStepFft<float>::Supports(1000));
  EXPECT_TRUE(FourStepFft<double>::Supports(64));
  EXPECT_EQ(FourStepFft<float>(4096).size(), 4096);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
