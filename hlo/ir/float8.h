// The 8-bit float element types (F8E5M2, F8E4M3FN, ...) as plain value
// types, one template over the format: `bits` holds the encoding, float
// conversions are exact one way and round to nearest even the other, as
// ml_dtypes (JAX's float8 types) and XLA's convert do:
//  - a value past the largest finite one after rounding becomes infinity
//    where the format has one (E5M2, E4M3, E3M4) and NaN where it does not
//    (FN and FNUZ formats); infinities likewise;
//  - NaN stays NaN (FN: with its sign; FNUZ: the one NaN 0x80);
//  - FNUZ formats have no -0: a negative value that rounds to zero is +0.
// See FloatFormat (primitive_type.h) for the formats.
#ifndef TESSERA_HLO_IR_FLOAT8_H_
#define TESSERA_HLO_IR_FLOAT8_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hlo/ir/float16.h"

namespace tessera {

namespace float8_internal {

enum class Specials { kIeee, kFiniteNan, kFiniteUnsignedZero };

using float16_internal::BitsFloat;
using float16_internal::FloatBits;

// 2^n as a float, at compile time, for -126 <= n <= 127.
constexpr float PowerOfTwo(int n) {
  return std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23);
}

}  // namespace float8_internal

template <int kExponentBits, int kMantissaBits, int kBias, float8_internal::Specials kSpecials>
struct float8 {
  static_assert(1 + kExponentBits + kMantissaBits == 8);
  using Specials = float8_internal::Specials;
  static constexpr int kExponent = kExponentBits;
  static constexpr int kMantissa = kMantissaBits;
  static constexpr int kExponentBias = kBias;
  static constexpr Specials kSpecialValues = kSpecials;

  // The largest finite encoding (sign clear), and what a larger magnitude
  // becomes: infinity, or NaN where there is none.
  static constexpr uint32_t kMaxFinite = kSpecials == Specials::kIeee
                                             ? (((1u << kExponentBits) - 1) << kMantissaBits) - 1
                                         : kSpecials == Specials::kFiniteNan ? 0x7e
                                                                             : 0x7f;
  static constexpr uint32_t kInfinity = ((1u << kExponentBits) - 1) << kMantissaBits;

  uint8_t bits = 0;

  float8() = default;
  explicit float8(float f) : bits(FromFloat(f)) {}
  static float8 FromBits(uint8_t b) {
    float8 v;
    v.bits = b;
    return v;
  }
  explicit operator float() const { return ToFloat(bits); }
  friend bool operator==(float8 a, float8 b) { return float(a) == float(b); }

  // The NaN encoding for a NaN of sign `sign` (0 or 1).
  static uint8_t Nan(uint32_t sign) {
    if constexpr (kSpecials == Specials::kFiniteUnsignedZero) {
      return 0x80;
    } else if constexpr (kSpecials == Specials::kFiniteNan) {
      return static_cast<uint8_t>((sign << 7) | 0x7f);
    } else {
      return static_cast<uint8_t>((sign << 7) | kInfinity | (1u << (kMantissaBits - 1)));
    }
  }

  static uint8_t FromFloat(float f) {
    using float8_internal::BitsFloat;
    using float8_internal::FloatBits;
    const uint32_t u = FloatBits(f);
    const uint32_t sign = u >> 31;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return Nan(sign);
    // The smallest normal magnitude, 2^(1 - bias), as float bits.
    constexpr uint32_t kMinNormal = static_cast<uint32_t>(128 - kBias) << 23;
    uint32_t code;
    if (abs < kMinNormal) {
      // A subnormal (or zero) result: the multiple of the smallest
      // subnormal 2^(1 - bias - mantissa bits), to nearest even.  The
      // scaling by a power of two is exact.
      constexpr float kScale = float8_internal::PowerOfTwo(kBias - 1 + kMantissaBits);
      const float scaled = BitsFloat(abs) * kScale;
      code = static_cast<uint32_t>(std::nearbyint(scaled));
    } else {
      // Round the float's mantissa to kMantissaBits bits (a carry moves
      // into the exponent), then rebias the exponent.
      constexpr int kShift = 23 - kMantissaBits;
      const uint32_t rounded = abs + ((1u << (kShift - 1)) - 1) + ((abs >> kShift) & 1);
      code = (rounded >> kShift) - (static_cast<uint32_t>(127 - kBias) << kMantissaBits);
    }
    if (code > kMaxFinite) {
      if constexpr (kSpecials == Specials::kIeee) {
        code = kInfinity;
      } else {
        return Nan(sign);
      }
    }
    if (kSpecials == Specials::kFiniteUnsignedZero && code == 0) return 0;
    return static_cast<uint8_t>((sign << 7) | code);
  }

  static float ToFloat(uint8_t b) {
    using float8_internal::BitsFloat;
    using float8_internal::FloatBits;
    const uint32_t sign = uint32_t{b & 0x80u} << 24;
    const uint32_t exponent = (b >> kMantissaBits) & ((1u << kExponentBits) - 1);
    const uint32_t mantissa = b & ((1u << kMantissaBits) - 1);
    if constexpr (kSpecials == Specials::kFiniteUnsignedZero) {
      if (b == 0x80) return BitsFloat(0x7fc00000u);
    } else if constexpr (kSpecials == Specials::kFiniteNan) {
      if ((b & 0x7f) == 0x7f) return BitsFloat(sign | 0x7fc00000u);
    } else {
      if (exponent == (1u << kExponentBits) - 1) {
        return BitsFloat(sign | 0x7f800000u | (mantissa << (23 - kMantissaBits)));
      }
    }
    if (exponent == 0) {
      constexpr float kSmallest = float8_internal::PowerOfTwo(1 - kBias - kMantissaBits);
      const float magnitude = static_cast<float>(mantissa) * kSmallest;
      return BitsFloat(sign | FloatBits(magnitude));
    }
    return BitsFloat(sign | ((exponent + 127 - kBias) << 23) | (mantissa << (23 - kMantissaBits)));
  }
};

using float8_e5m2 = float8<5, 2, 15, float8_internal::Specials::kIeee>;
using float8_e4m3 = float8<4, 3, 7, float8_internal::Specials::kIeee>;
using float8_e3m4 = float8<3, 4, 3, float8_internal::Specials::kIeee>;
using float8_e4m3fn = float8<4, 3, 7, float8_internal::Specials::kFiniteNan>;
using float8_e4m3fnuz = float8<4, 3, 8, float8_internal::Specials::kFiniteUnsignedZero>;
using float8_e5m2fnuz = float8<5, 2, 16, float8_internal::Specials::kFiniteUnsignedZero>;
using float8_e4m3b11fnuz = float8<4, 3, 11, float8_internal::Specials::kFiniteUnsignedZero>;

// Whether T is one of the float8 types.
template <typename T>
struct IsFloat8 : std::false_type {};
template <int E, int M, int B, float8_internal::Specials S>
struct IsFloat8<float8<E, M, B, S>> : std::true_type {};
template <typename T>
constexpr bool kIsFloat8 = IsFloat8<T>::value;

}  // namespace tessera

#endif  // TESSERA_HLO_IR_FLOAT8_H_
