// The two 16-bit float element types, as plain value types: `half` (IEEE
// binary16, F16) and `bfloat16` (BF16).  Conversions from float round to
// nearest even and keep NaN a NaN; conversions to float are exact.
#ifndef TESSERA_HLO_IR_FLOAT16_H_
#define TESSERA_HLO_IR_FLOAT16_H_

#include <cstdint>
#include <cstring>

namespace tessera {

namespace float16_internal {
inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace float16_internal

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) : bits(FromFloat(f)) {}
  static bfloat16 FromBits(uint16_t b) {
    bfloat16 v;
    v.bits = b;
    return v;
  }
  explicit operator float() const { return float16_internal::BitsFloat(uint32_t{bits} << 16); }

  static uint16_t FromFloat(float f) {
    uint32_t u = float16_internal::FloatBits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
    const uint32_t rounding_bias = 0x7fff + ((u >> 16) & 1);
    return static_cast<uint16_t>((u + rounding_bias) >> 16);
  }
  friend bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
};

struct half {
  uint16_t bits = 0;

  half() = default;
  explicit half(float f) : bits(FromFloat(f)) {}
  static half FromBits(uint16_t b) {
    half v;
    v.bits = b;
    return v;
  }
  explicit operator float() const { return ToFloat(bits); }

  static uint16_t FromFloat(float f) {
    const uint32_t u = float16_internal::FloatBits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ff));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {
      // Result is subnormal (or zero): scale into the subnormal range with
      // round-to-nearest-even done by the float adder.
      const float scaled = float16_internal::BitsFloat(abs) + 0.5f;
      return static_cast<uint16_t>(sign | (float16_internal::FloatBits(scaled) - 0x3f000000u));
    }
    const uint32_t mantissa_odd = (abs >> 13) & 1;
    uint32_t rounded = abs + 0xc8000fffu + mantissa_odd;  // rebias exponent, round
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }

  static float ToFloat(uint16_t h) {
    const uint32_t sign = uint32_t{h & 0x8000u} << 16;
    const uint32_t exponent = (h >> 10) & 0x1f;
    const uint32_t mantissa = h & 0x3ff;
    if (exponent == 0) {
      // Zero or subnormal: value = mantissa * 2^-24.
      const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
      return float16_internal::BitsFloat(sign | float16_internal::FloatBits(magnitude));
    }
    if (exponent == 31) return float16_internal::BitsFloat(sign | 0x7f800000u | (mantissa << 13));
    return float16_internal::BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  friend bool operator==(half a, half b) { return float(a) == float(b); }
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_FLOAT16_H_
