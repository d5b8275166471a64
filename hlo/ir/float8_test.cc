// The float8 types against their definitions: every encoding decodes to
// its value, encodes back, and values between two neighbours round to the
// nearer (to the even one on a tie), as ml_dtypes rounds.
#include "hlo/ir/float8.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

using float8_internal::Specials;

// What the format's definition says encoding `b` is.
template <typename T>
double DefinedValue(uint8_t b) {
  const int e = (b >> T::kMantissa) & ((1 << T::kExponent) - 1);
  const int m = b & ((1 << T::kMantissa) - 1);
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  const int all_ones = (1 << T::kExponent) - 1;
  if (T::kSpecialValues == Specials::kFiniteUnsignedZero && b == 0x80) return NAN;
  if (T::kSpecialValues == Specials::kFiniteNan && (b & 0x7f) == 0x7f) return NAN;
  if (T::kSpecialValues == Specials::kIeee && e == all_ones) {
    return m == 0 ? sign * INFINITY : NAN;
  }
  if (e == 0) return sign * std::ldexp(m, 1 - T::kExponentBias - T::kMantissa);
  return sign * std::ldexp(1.0 + std::ldexp(m, -T::kMantissa), e - T::kExponentBias);
}

template <typename T>
class Float8Test : public ::testing::Test {};

using Types = ::testing::Types<float8_e5m2, float8_e4m3, float8_e3m4, float8_e4m3fn,
                               float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz>;
TYPED_TEST_SUITE(Float8Test, Types);

TYPED_TEST(Float8Test, EveryEncodingDecodesToItsValueAndEncodesBack) {
  using T = TypeParam;
  for (int b = 0; b < 256; ++b) {
    const double want = DefinedValue<T>(static_cast<uint8_t>(b));
    const float got = static_cast<float>(T::FromBits(static_cast<uint8_t>(b)));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << b;
      EXPECT_TRUE(std::isnan(static_cast<float>(T(got)))) << b;
      continue;
    }
    EXPECT_EQ(static_cast<double>(got), want) << b;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << b;
    EXPECT_EQ(T(got).bits, b) << b << " decodes to " << got;
  }
}

TYPED_TEST(Float8Test, RoundsToNearestEven) {
  using T = TypeParam;
  // The finite non-negative values in increasing order, with their codes.
  std::vector<std::pair<double, int>> values;
  for (int b = 0; b < 128; ++b) {
    const double v = DefinedValue<T>(static_cast<uint8_t>(b));
    if (std::isfinite(v)) values.push_back({v, b});
  }
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const auto [low, low_code] = values[i];
    const auto [high, high_code] = values[i + 1];
    ASSERT_LT(low, high);
    const double mid = (low + high) / 2;  // exact in float: 8-bit neighbours
    const int even = (low_code & 1) == 0 ? low_code : high_code;
    for (double sign : {1.0, -1.0}) {
      const int sign_bit = sign < 0 ? 0x80 : 0;
      auto expect = [&](double x, int code) {
        int want = code | sign_bit;
        if (T::kSpecialValues == Specials::kFiniteUnsignedZero && code == 0) want = 0;
        EXPECT_EQ(T(static_cast<float>(sign * x)).bits, want) << sign * x;
      };
      expect(mid, even);
      expect(std::nextafter(static_cast<float>(mid), 0.0f), low_code);
      expect(std::nextafter(static_cast<float>(mid), INFINITY), high_code);
    }
  }
}

TYPED_TEST(Float8Test, OverflowInfinityAndNan) {
  using T = TypeParam;
  const float max = static_cast<float>(T::FromBits(T::kMaxFinite));
  // Past the largest value by half its ulp: the nearest even, which is
  // beyond the largest value exactly when the largest's code is odd.
  const float ulp = max - static_cast<float>(T::FromBits(T::kMaxFinite - 1));
  const bool ieee = T::kSpecialValues == Specials::kIeee;
  const T halfway(max + ulp / 2);
  if ((T::kMaxFinite & 1) == 0) {
    EXPECT_EQ(halfway.bits, T::kMaxFinite);
  } else if (ieee) {
    EXPECT_EQ(halfway.bits, T::kInfinity);
  } else {
    EXPECT_TRUE(std::isnan(static_cast<float>(halfway)));
  }
  for (float big : {max * 2, std::numeric_limits<float>::max(), INFINITY}) {
    const float got = static_cast<float>(T(-big));
    if (ieee) {
      EXPECT_EQ(got, -INFINITY) << big;
    } else {
      EXPECT_TRUE(std::isnan(got)) << big;
    }
  }
  EXPECT_TRUE(std::isnan(static_cast<float>(T(NAN))));
  EXPECT_TRUE(std::isnan(static_cast<float>(T(-NAN))));
  // Tiny values go to zero; FNUZ has no -0.
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(T(tiny).bits, 0);
  const bool unsigned_zero = T::kSpecialValues == Specials::kFiniteUnsignedZero;
  EXPECT_EQ(T(-tiny).bits, unsigned_zero ? 0 : 0x80);
  EXPECT_EQ(T(-0.0f).bits, unsigned_zero ? 0 : 0x80);
}

TEST(Float8Formats, LargestAndSmallestValues) {
  EXPECT_EQ(static_cast<float>(float8_e4m3fn::FromBits(0x7e)), 448.0f);
  EXPECT_EQ(static_cast<float>(float8_e5m2::FromBits(0x7b)), 57344.0f);
  EXPECT_EQ(static_cast<float>(float8_e4m3::FromBits(0x77)), 240.0f);
  EXPECT_EQ(static_cast<float>(float8_e3m4::FromBits(0x6f)), 15.5f);
  EXPECT_EQ(static_cast<float>(float8_e4m3fnuz::FromBits(0x7f)), 240.0f);
  EXPECT_EQ(static_cast<float>(float8_e5m2fnuz::FromBits(0x7f)), 57344.0f);
  EXPECT_EQ(static_cast<float>(float8_e4m3b11fnuz::FromBits(0x7f)), 30.0f);
  EXPECT_EQ(static_cast<float>(float8_e4m3fn::FromBits(1)), std::ldexp(1.0f, -9));
  EXPECT_EQ(static_cast<float>(float8_e5m2::FromBits(1)), std::ldexp(1.0f, -16));
  EXPECT_EQ(static_cast<float>(float8_e5m2fnuz::FromBits(1)), std::ldexp(1.0f, -17));
  EXPECT_EQ(static_cast<float>(float8_e4m3b11fnuz::FromBits(1)), std::ldexp(1.0f, -13));
  // ml_dtypes' results for a few values.
  EXPECT_EQ(float8_e4m3fn(464.0f).bits, 0x7e);  // tie: down to the even 448
  EXPECT_EQ(float8_e4m3fn(-1.0f).bits, 0xb8);
  EXPECT_EQ(float8_e5m2(0.1f).bits, 0x2e);
  EXPECT_EQ(float8_e4m3fnuz(1.0f).bits, 0x40);
}

}  // namespace
}  // namespace tessera
