// LaneFft against the DFT's definition, summed in long double, on random
// lines: every radix alone and mixed, forward and inverse, f32 and f64.
#include "backends/cpu/lane_fft.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace {

template <typename R>
void CheckAgainstDft(int64_t n, bool inverse, double tolerance) {
  SCOPED_TRACE(::testing::Message() << "n " << n << (inverse ? " inverse" : " forward"));
  constexpr int L = LaneFft<R>::kLanes;
  std::mt19937_64 rng(n * 2 + inverse);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<R> re(n * L), im(n * L), work_re(n * L), work_im(n * L);
  for (R& x : re) x = static_cast<R>(uniform(rng));
  for (R& x : im) x = static_cast<R>(uniform(rng));
  const std::vector<R> in_re = re, in_im = im;
  ASSERT_TRUE(LaneFft<R>::Supports(n));
  const auto [out_re, out_im] =
      LaneFft<R>(n).Transform(re.data(), im.data(), work_re.data(), work_im.data(), inverse);

  // e^(-+2 pi i k / n), k < n, in long double.
  const long double pi = std::acos(-1.0L);
  std::vector<std::complex<long double>> roots(n);
  for (int64_t k = 0; k < n; ++k) {
    const long double angle = (inverse ? 2 : -2) * pi * k / n;
    roots[k] = {std::cos(angle), std::sin(angle)};
  }
  // Every lane runs the same arithmetic: the first, a middle and the last
  // are checked (the whole DFT in long double is slow).
  for (int l : {0, L / 2 + 1, L - 1}) {
    long double scale = 0, error = 0;
    for (int64_t j = 0; j < n; ++j) {
      std::complex<long double> sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        sum += std::complex<long double>(in_re[k * L + l], in_im[k * L + l]) * roots[(j * k) % n];
      }
      scale = std::max(scale, std::abs(sum));
      error = std::max(
          error, std::abs(sum - std::complex<long double>(out_re[j * L + l], out_im[j * L + l])));
    }
    ASSERT_LE(static_cast<double>(error / scale), tolerance) << "lane " << l;
  }
}

const int64_t kLengths[] = {1,   2,   3,   4,   5,   6,   7,   8,    9,    11,  12, 13,
                            15,  16,  17,  19,  22,  23,  25,  29,   30,   31,  49, 64,
                            100, 105, 128, 143, 210, 243, 961, 1000, 1024, 1536};

// Lengths with a prime factor above 31 (Bluestein's transform over a
// smooth length of at least 2n - 1): primes, a prime times a smooth
// factor, a square of one.
const int64_t kBluesteinLengths[] = {37, 74, 101, 127, 303, 1009, 1369, 2053};

TEST(LaneFftTest, BluesteinMatchesTheDft) {
  for (int64_t n : kBluesteinLengths) {
    EXPECT_FALSE(LaneFft<float>::IsSmooth(n));
    for (bool inverse : {false, true}) {
      CheckAgainstDft<float>(n, inverse, 2e-6);
      CheckAgainstDft<double>(n, inverse, 1e-14);
    }
  }
}

TEST(LaneFftTest, MatchesTheDftInF32) {
  for (int64_t n : kLengths) {
    for (bool inverse : {false, true}) {
      CheckAgainstDft<float>(n, inverse, 1e-6 * (2 + std::log2(n)));
    }
  }
}

TEST(LaneFftTest, MatchesTheDftInF64) {
  for (int64_t n : kLengths) {
    for (bool inverse : {false, true}) {
      CheckAgainstDft<double>(n, inverse, 2e-15 * (2 + std::log2(n)));
    }
  }
}

TEST(LaneFftTest, LengthsOfSmallPrimesAreSmooth) {
  for (int64_t n : {1, 2, 7, 8, 11, 22, 720, 1024, 13 * 64, 31 * 29, 2 * 3 * 5 * 7 * 64}) {
    EXPECT_TRUE(LaneFft<float>::IsSmooth(n)) << n;
    EXPECT_TRUE(LaneFft<float>::Supports(n)) << n;
  }
  for (int64_t n : {37, 1018, 41 * 64}) {
    EXPECT_FALSE(LaneFft<float>::IsSmooth(n)) << n;
    EXPECT_TRUE(LaneFft<float>::Supports(n)) << n;  // by Bluestein's transform
  }
  for (int64_t n : {0, -4}) EXPECT_FALSE(LaneFft<float>::Supports(n)) << n;
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
