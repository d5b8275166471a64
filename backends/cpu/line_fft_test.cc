// LineFft's axis transforms against a direct DFT in double at sampled
// outputs: complex lines in place and strided (the middle axis of
// [outer, n, inner]), real lines to half spectra and back, each through
// four steps and through Bluestein's transform, and real lines of even
// length packed two points to one.
#include "backends/cpu/line_fft.h"

#include <complex>
#include <random>
#include <vector>

#include "backends/cpu/fft_test_util.h"
#include "gtest/gtest.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

struct Case {
  int64_t n, outer, inner;
  LineIn in_kind;
  LineOut out_kind;
  bool inverse, real_plan;
};

// Element k of line (o, c) of a tensor [outer, extent, inner].
int64_t At(const Case& c, int64_t extent, int64_t o, int64_t line_c, int64_t k) {
  return (o * extent + k) * c.inner + line_c;
}

template <typename R>
void CheckAxis(const Case& c, runtime::ThreadPool* pool) {
  using C = std::complex<R>;
  SCOPED_TRACE(::testing::Message()
               << "n=" << c.n << " outer=" << c.outer << " inner=" << c.inner
               << " in=" << static_cast<int>(c.in_kind) << " out=" << static_cast<int>(c.out_kind)
               << " inverse=" << c.inverse << " real_plan=" << c.real_plan);
  const int64_t n = c.n, half = n / 2 + 1;
  const int64_t n_in = c.in_kind == LineIn::kHalfSpectrum ? half : n;
  const int64_t n_out = c.out_kind == LineOut::kHalfSpectrum ? half : n;
  std::mt19937_64 rng(n + c.inner);
  std::uniform_real_distribution<double> uniform(-1, 1);
  // The input as complex values (imaginary parts zero for real lines).
  std::vector<C> input(c.outer * n_in * c.inner);
  for (C& x : input) {
    x = C(static_cast<R>(uniform(rng)),
          c.in_kind == LineIn::kReal ? R(0) : static_cast<R>(uniform(rng)));
  }
  std::vector<R> real_in, real_out;
  std::vector<C> complex_out(c.out_kind == LineOut::kReal ? 0 : c.outer * n_out * c.inner);
  const void* in = input.data();
  if (c.in_kind == LineIn::kReal) {
    for (const C& x : input) real_in.push_back(x.real());
    in = real_in.data();
  }
  void* out = complex_out.data();
  if (c.out_kind == LineOut::kReal) {
    real_out.resize(c.outer * n_out * c.inner);
    out = real_out.data();
  } else if (c.in_kind == LineIn::kComplex && c.out_kind == LineOut::kComplex) {
    complex_out = input;  // in place
    in = out = complex_out.data();
  }
  ASSERT_TRUE(LineFft<R>::Supports(n));
  LineFft<R>(n, c.real_plan)
      .TransformAxis(c.outer, c.inner, c.in_kind, in, c.out_kind, out, c.inverse, pool);

  // About 23 outputs per line, odd and even ones, the first and last.
  const int64_t step = std::max<int64_t>(1, n_out / 23) | 1;
  for (int64_t o = 0; o < c.outer; ++o) {
    for (int64_t line_c = 0; line_c < c.inner; ++line_c) {
      // The whole line, its negative frequencies rebuilt where it is a half
      // spectrum, and X[0] and X[n/2] real (the result is real).
      std::vector<C> line(n);
      for (int64_t k = 0; k < n_in; ++k) line[k] = input[At(c, n_in, o, line_c, k)];
      if (c.in_kind == LineIn::kHalfSpectrum) {
        line[0] = C(line[0].real(), 0);
        if (n % 2 == 0) line[n / 2] = C(line[n / 2].real(), 0);
        for (int64_t k = half; k < n; ++k) line[k] = std::conj(line[n - k]);
      }
      for (int64_t k = 0; k < n_out;
           k = k + step < n_out || k == n_out - 1 ? k + step : n_out - 1) {
        std::complex<double> want = testing::DirectDftAt(line.data(), n, k, c.inverse);
        std::complex<double> got;
        if (c.out_kind == LineOut::kReal) {
          want = want.real();
          got = real_out[At(c, n_out, o, line_c, k)];
        } else {
          got = std::complex<double>(complex_out[At(c, n_out, o, line_c, k)]);
        }
        ASSERT_LE(std::abs(got - want), testing::DftTolerance<R>(n, c.inverse, 2))
            << "line (" << o << ", " << line_c << ") k " << k;
      }
    }
  }
}

TEST(LineFftTest, ComplexAxesMatchTheDirectDft) {
  runtime::ThreadPool pool(2);
  for (bool inverse : {false, true}) {
    // Four steps (1024 = 32 x 32; c128: 320 = 64 x 5) and Bluestein's
    // transform (1009, a prime), contiguous lines and strided ones.
    CheckAxis<float>({1024, 2, 1, LineIn::kComplex, LineOut::kComplex, inverse, false}, &pool);
    CheckAxis<float>({1024, 2, 3, LineIn::kComplex, LineOut::kComplex, inverse, false}, nullptr);
    CheckAxis<float>({1009, 1, 5, LineIn::kComplex, LineOut::kComplex, inverse, false}, &pool);
    CheckAxis<double>({320, 3, 2, LineIn::kComplex, LineOut::kComplex, inverse, false}, &pool);
    CheckAxis<double>({1009, 2, 1, LineIn::kComplex, LineOut::kComplex, inverse, false}, nullptr);
  }
}

TEST(LineFftTest, RealAxesMatchTheDirectDft) {
  runtime::ThreadPool pool(2);
  // Even lengths packed (4096: four steps of 2048; 2000: Bluestein's
  // transform of 1000) and not; odd lengths, which do not pack; and lines
  // strided by an inner dimension where unpacked.
  for (int64_t n : {4096, 2000, 1009, 1025}) {
    for (bool real_plan : {true, false}) {
      CheckAxis<float>({n, 2, 1, LineIn::kReal, LineOut::kHalfSpectrum, false, real_plan}, &pool);
      CheckAxis<float>({n, 3, 1, LineIn::kHalfSpectrum, LineOut::kReal, true, real_plan}, &pool);
      CheckAxis<double>({n, 2, 1, LineIn::kReal, LineOut::kHalfSpectrum, false, real_plan},
                        nullptr);
      CheckAxis<double>({n, 2, 1, LineIn::kHalfSpectrum, LineOut::kReal, true, real_plan}, nullptr);
    }
    CheckAxis<float>({n, 1, 3, LineIn::kHalfSpectrum, LineOut::kReal, true, false}, &pool);
    CheckAxis<double>({n, 1, 2, LineIn::kReal, LineOut::kHalfSpectrum, false, false}, nullptr);
  }
}

TEST(LineFftTest, SupportsLengthsFourStepsSplitAndOthersButShortPowersOfTwo) {
  EXPECT_TRUE(LineFft<float>::Supports(256));
  EXPECT_TRUE(LineFft<float>::Supports(1009));
  EXPECT_TRUE(LineFft<float>::Supports(300007));
  EXPECT_TRUE(LineFft<float>::Supports(int64_t{1} << 26));
  EXPECT_FALSE(LineFft<float>::Supports(128));  // LaneFft's
  EXPECT_FALSE(LineFft<float>::Supports(int64_t{1} << 27));
  EXPECT_FALSE(LineFft<float>::Supports(0));
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
