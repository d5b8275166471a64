// BluesteinFft against a direct DFT in double at sampled outputs: forward
// and inverse, float and double, primes and composite lengths four steps
// cannot split, a length beyond LaneFft's reach, several lines (and split
// over a pool), in place; and the lengths it takes.
#include "backends/cpu/bluestein_fft.h"

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "backends/cpu/bluestein.h"
#include "backends/cpu/fft_test_util.h"
#include "gtest/gtest.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

template <typename R>
void CheckAgainstDirectDft(int64_t n, int64_t lines, bool inverse, bool in_place,
                           runtime::ThreadPool* pool) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " lines=" << lines << " inverse=" << inverse
                                    << " in_place=" << in_place);
  std::mt19937_64 rng(n + lines);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::complex<R>> in(n * lines), out(n * lines);
  for (auto& x : in) x = {static_cast<R>(uniform(rng)), static_cast<R>(uniform(rng))};
  const std::vector<std::complex<R>> original = in;
  ASSERT_TRUE(BluesteinFft<R>::Supports(n));
  std::complex<R>* result = in_place ? in.data() : out.data();
  BluesteinFft<R>(n).Transform(in.data(), result, lines, inverse, pool);
  // About 40 outputs per line, the first and last included (a whole
  // direct DFT is n^2).  The tolerance is twice FourStepFft's: the inner
  // transforms run twice, over about 2n points.
  const int64_t step = std::max<int64_t>(1, n / 37);
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t k = 0; k < n; k = k + step < n || k == n - 1 ? k + step : n - 1) {
      const std::complex<double> want =
          testing::DirectDftAt(original.data() + line * n, n, k, inverse);
      const std::complex<double> got(result[line * n + k]);
      ASSERT_LE(std::abs(got - want), testing::DftTolerance<R>(n, inverse, 2))
          << "line " << line << " k " << k;
    }
  }
}

TEST(BluesteinFftTest, MatchesTheDirectDft) {
  runtime::ThreadPool pool(2);
  for (int64_t n : {2, 37, 1000, 1009, 20011}) {
    for (bool inverse : {false, true}) {
      CheckAgainstDirectDft<float>(n, 2, inverse, false, nullptr);
      CheckAgainstDirectDft<double>(n, 1, inverse, true, &pool);
    }
  }
  // Beyond LaneFft's 2^18 points, where Eigen's transform had been 160 off
  // for outputs of about 220.
  CheckAgainstDirectDft<float>(300007, 1, false, false, &pool);
}

// The inner length: the smallest 2^a, 3 * 2^a or 5 * 2^a of at least
// 2n - 1 that is usable, within the bound.
TEST(BluesteinFftTest, InnerLengthsAreSmallAndSmooth) {
  EXPECT_EQ(bluestein::InnerLength(1009, 1 << 20), 2048);   // 2017 points needed
  EXPECT_EQ(bluestein::InnerLength(4099, 1 << 20), 10240);  // 8197: 5 * 2^11
  EXPECT_EQ(bluestein::InnerLength(20, 1 << 20), 40);       // 39: 5 * 2^3
  EXPECT_EQ(bluestein::InnerLength(4099, 8192), 0);
  // Usable only from 2^13 on: 10240 = 5 * 2^11 is, 12288 = 3 * 2^12 too;
  // the smaller one wins.
  EXPECT_EQ(bluestein::InnerLength(4099, 1 << 20, [](int64_t m) { return m >= 8192; }), 10240);
  EXPECT_EQ(bluestein::InnerLength(4099, 1 << 20, [](int64_t m) { return m % 3 == 0; }), 12288);
}

TEST(BluesteinFftTest, TakesLengthsWithAnInnerLength) {
  EXPECT_FALSE(BluesteinFft<float>::Supports(1));
  EXPECT_TRUE(BluesteinFft<float>::Supports(2));
  EXPECT_TRUE(BluesteinFft<float>::Supports(300007));
  EXPECT_TRUE(BluesteinFft<double>::Supports(BluesteinFft<double>::kMaxInner / 4));
  EXPECT_FALSE(BluesteinFft<float>::Supports(BluesteinFft<float>::kMaxInner));
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
