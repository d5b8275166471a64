// FourStepFft against a direct DFT in double: forward and inverse, float
// and double, square and oblong splits, several lines at once (and split
// over a pool), and the lengths it takes.
#include "backends/cpu/four_step_fft.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "backends/cpu/fft_test_util.h"
#include "gtest/gtest.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

template <typename R>
void CheckAgainstDirectDft(int64_t n, int64_t lines, bool inverse, runtime::ThreadPool* pool) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " lines=" << lines << " inverse=" << inverse);
  std::mt19937_64 rng(n + lines);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::complex<R>> in(n * lines), out(n * lines);
  for (auto& x : in) x = {static_cast<R>(uniform(rng)), static_cast<R>(uniform(rng))};
  ASSERT_TRUE(FourStepFft<R>::Supports(n));
  FourStepFft<R>(n).Transform(in.data(), out.data(), lines, inverse, pool);
  // A sample of outputs per line (a whole direct DFT is n^2): pairs of
  // neighbours, at most about 128 in all.
  const int64_t jump = std::max<int64_t>(61, n / 64);
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t k = 0; k < n; k += (k % 7 == 0 ? 1 : jump)) {
      const std::complex<double> want = testing::DirectDftAt(in.data() + line * n, n, k, inverse);
      const std::complex<double> got(out[line * n + k]);
      ASSERT_LE(std::abs(got - want), testing::DftTolerance<R>(n, inverse))
          << "line " << line << " k " << k;
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
    // Sides that are not multiples of the lanes: the last group of
    // columns, rows or both partly idle.
    CheckAgainstDirectDft<float>(272, 2, inverse, nullptr);   // 16 x 17
    CheckAgainstDirectDft<float>(1000, 1, inverse, nullptr);  // 25 x 40
    CheckAgainstDirectDft<float>(20000, 2, inverse, &pool);   // 125 x 160
    CheckAgainstDirectDft<float>(59049, 1, inverse, &pool);   // 243 x 243
    CheckAgainstDirectDft<double>(1001, 2, inverse, &pool);   // 13 x 77
  }
}

TEST(FourStepFftTest, TakesLengthsThatSplitIntoSmoothSidesOfAtLeastTheLanes) {
  EXPECT_TRUE(FourStepFft<float>::Supports(256));
  EXPECT_TRUE(FourStepFft<float>::Supports(1 << 20));
  EXPECT_TRUE(FourStepFft<float>::Supports(1000));
  EXPECT_TRUE(FourStepFft<float>::Supports(16 * 31));
  EXPECT_FALSE(FourStepFft<float>::Supports(128));       // 16 x 8
  EXPECT_FALSE(FourStepFft<float>::Supports(256 * 37));  // a factor LaneFft lacks
  EXPECT_FALSE(FourStepFft<float>::Supports(15 * 17));   // a side under 16
  EXPECT_FALSE(FourStepFft<float>::Supports(1009));
  EXPECT_TRUE(FourStepFft<double>::Supports(64));
  EXPECT_EQ(FourStepFft<float>(4096).size(), 4096);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
