// Conversions: convert (saturating float->int, wrapping int->int, rounding
// to 16-bit floats), bitcast-convert (same and different widths),
// reduce-precision, stochastic-convert, complex/real/imag.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorConvertTest, FloatToIntegerSaturates) {
  const Literal x = L("f32[8]", "{3e9, -3e9, inf, -inf, nan, -1.5, 2.5, -0}");
  EXPECT_EVAL(EvaluateRoot("s32[8] convert(p0)", {x}),
              L("s32[8]", "{2147483647, -2147483648, 2147483647, -2147483648, 0, -1, 2, 0}"));
  EXPECT_EVAL(EvaluateRoot("u8[8] convert(p0)", {x}), L("u8[8]", "{255, 0, 255, 0, 0, 0, 2, 0}"));
  EXPECT_EVAL(EvaluateRoot("s8[8] convert(p0)", {x}),
              L("s8[8]", "{127, -128, 127, -128, 0, -1, 2, 0}"));
  EXPECT_EVAL(EvaluateRoot("u32[8] convert(p0)", {x}),
              L("u32[8]", "{3000000000, 0, 4294967295, 0, 0, 0, 2, 0}"));
}

TEST(EvaluatorConvertTest, IntegerToIntegerWraps) {
  EXPECT_EVAL(EvaluateRoot("s8[4] convert(p0)", {L("s32[4]", "{300, -129, 127, -128}")}),
              L("s8[4]", "{44, 127, 127, -128}"));
  EXPECT_EVAL(EvaluateRoot("u32[2] convert(p0)", {L("s32[2]", "{-1, 7}")}),
              L("u32[2]", "{4294967295, 7}"));
  EXPECT_EVAL(EvaluateRoot("s64[2] convert(p0)", {L("u32[2]", "{4294967295, 0}")}),
              L("s64[2]", "{4294967295, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[3] convert(p0)", {L("s32[3]", "{0, 2, -1}")}),
              L("pred[3]", "{0, 1, 1}"));
}

TEST(EvaluatorConvertTest, PredAndFloats) {
  EXPECT_EVAL(EvaluateRoot("pred[4] convert(p0)", {L("f32[4]", "{0, -0, 0.5, nan}")}),
              L("pred[4]", "{0, 0, 1, 1}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] convert(p0)", {L("pred[2]", "{0, 1}")}), L("f32[2]", "{0, 1}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] convert(p0)", {L("s32[2]", "{16777217, -3}")}),
              L("f32[2]", "{16777216, -3}"));
}

TEST(EvaluatorConvertTest, RoundsToSixteenBitFloats) {
  // bf16: ties to even, overflow to inf, NaN stays NaN.
  EXPECT_EVAL(EvaluateRoot("bf16[5] convert(p0)",
                           {L("f32[5]", "{1.00390625, 1.005859375, 3.4028235e38, nan, -0}")}),
              L("bf16[5]", "{1, 1.0078125, inf, nan, -0}"));
  // f16: 65520 is halfway between 65504 and 2^16 and rounds to inf;
  // tiny values round into the subnormals or to zero.
  EXPECT_EVAL(EvaluateRoot("f16[5] convert(p0)",
                           {L("f32[5]", "{65520, 65519, 1e-8, 6e-8, -2049}")}),
              L("f16[5]", "{inf, 65504, 0, 5.96046448e-08, -2048}"));
  // f64 -> f16 rounds once (no double rounding through f32).
  EXPECT_EVAL(EvaluateRoot("f16[1] convert(p0)", {L("f64[1]", "{2049.0000000001}")}),
              L("f16[1]", "{2050}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] convert(p0)", {L("bf16[2]", "{1.5, -inf}")}),
              L("f32[2]", "{1.5, -inf}"));
}

TEST(EvaluatorConvertTest, Float8Types) {
  // e4m3fn: no infinities (overflow is NaN), 464 ties down to 448; e5m2:
  // overflow is inf; fnuz: no -0.
  EXPECT_EVAL(EvaluateRoot("f8e4m3fn[6] convert(p0)",
                           {L("f32[6]", "{464, 465, -0.3, inf, 0.0009765625, -0}")}),
              L("f8e4m3fn[6]", "{448, nan, -0.3125, nan, 0, -0}"));
  EXPECT_EVAL(EvaluateRoot("f8e5m2[3] convert(p0)", {L("f32[3]", "{61440, 61439, 1.1}")}),
              L("f8e5m2[3]", "{inf, 57344, 1}"));
  EXPECT_EVAL(EvaluateRoot("f8e4m3fnuz[2] convert(p0)", {L("f32[2]", "{-0, -0.0001}")}),
              L("f8e4m3fnuz[2]", "{0, 0}"));
  // f8 arithmetic in f32, rounded once (400 ties down to the even 384);
  // f8 to f8 through f32 (exact).
  EXPECT_EVAL(EvaluateRoot("f8e4m3fn[2] multiply(p0, p0)", {L("f8e4m3fn[2]", "{1.125, 20}")}),
              L("f8e4m3fn[2]", "{1.25, 384}"));
  EXPECT_EVAL(EvaluateRoot("f8e5m2[2] convert(p0)", {L("f8e4m3fn[2]", "{1.125, -448}")}),
              L("f8e5m2[2]", "{1, -448}"));
  EXPECT_EVAL(EvaluateRoot("bf16[1] convert(p0)", {L("f8e3m4[1]", "{15.5}")}),
              L("bf16[1]", "{15.5}"));
  // Printed as the shortest decimal that reads back.
  EXPECT_EQ(L("f8e4m3b11fnuz[3]", "{0.1, -30, nan}").ToString(),
            "f8e4m3b11fnuz[3]{0} {0.1, -30, nan}");
}

TEST(EvaluatorConvertTest, BitcastConvertSameWidth) {
  EXPECT_EVAL(EvaluateRoot("s32[3] bitcast-convert(p0)", {L("f32[3]", "{1, -0, 0}")}),
              L("s32[3]", "{1065353216, -2147483648, 0}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] bitcast-convert(p0)", {L("u32[2]", "{1065353216, 3221225472}")}),
              L("f32[2]", "{1, -2}"));
  EXPECT_EVAL(EvaluateRoot("u16[1] bitcast-convert(p0)", {L("bf16[1]", "{1}")}), L("u16[1]", "{16256}"));
}

TEST(EvaluatorConvertTest, BitcastConvertChangesWidthAlongTheMinorDimension) {
  // Little-endian: the lowest byte comes first in the new minor dimension.
  EXPECT_EVAL(EvaluateRoot("u8[2,4] bitcast-convert(p0)", {L("u32[2]", "{16909060, 255}")}),
              L("u8[2,4]", "{ { 4, 3, 2, 1 }, { 255, 0, 0, 0 } }"));
  EXPECT_EVAL(EvaluateRoot("u32[2] bitcast-convert(p0)",
                           {L("u8[2,4]", "{ { 4, 3, 2, 1 }, { 255, 0, 0, 0 } }")}),
              L("u32[2]", "{16909060, 255}"));
  EXPECT_EVAL(EvaluateRoot("u16[2] bitcast-convert(p0)", {L("f32[]", "1")}), L("u16[2]", "{0, 16256}"));
  EXPECT_EVAL(EvaluateRoot("f64[] bitcast-convert(p0)", {L("u32[2]", "{0, 1072693248}")}),
              L("f64[]", "1"));
}

TEST(EvaluatorConvertTest, ReducePrecision) {
  const Literal x = L("f32[8]", "{3e9, -3e9, inf, -inf, nan, -1.5, 2.5, -0}");
  EXPECT_EVAL(EvaluateRoot("f32[8] reduce-precision(p0), exponent_bits=5, mantissa_bits=2", {x}),
              L("f32[8]", "{inf, -inf, inf, -inf, nan, -1.5, 2.5, -0}"));
  // bf16's format: rounds the mantissa to nearest even.
  EXPECT_EVAL(EvaluateRoot("f32[3] reduce-precision(p0), exponent_bits=8, mantissa_bits=7",
                           {L("f32[3]", "{1.00390625, 1.005859375, 1.01171875}")}),
              L("f32[3]", "{1, 1.0078125, 1.015625}"));
  // f16's format: 1e-5 is below f16's normal range and flushes to zero;
  // 70000 overflows; 1.0009765625 = 1 + 2^-10 is representable.
  EXPECT_EVAL(EvaluateRoot("f32[4] reduce-precision(p0), exponent_bits=5, mantissa_bits=10",
                           {L("f32[4]", "{1e-5, -70000, 1.0009765625, 1.00048828125}")}),
              L("f32[4]", "{0, -inf, 1.0009765625, 1}"));
  // With no mantissa bits a NaN cannot be represented and becomes +inf
  // whatever its sign (XLA's CPU backend and evaluator), and ties go to the
  // even exponent: 1.5 -> 2 (exponent 128), 3 -> 2.
  EXPECT_EVAL(EvaluateRoot("f32[5] reduce-precision(p0), exponent_bits=8, mantissa_bits=0",
                           {L("f32[5]", "{nan, -nan, 1.5, 3, 1e-5}")}),
              L("f32[5]", "{inf, inf, 2, 2, 7.62939453125e-06}"));
  EXPECT_EVAL(EvaluateRoot("f64[2] reduce-precision(p0), exponent_bits=8, mantissa_bits=23",
                           {L("f64[2]", "{0.1, 1e300}")}),
              L("f64[2]", "{0.100000001490116119384765625, inf}"));
  EXPECT_EVAL(EvaluateRoot("bf16[1] reduce-precision(p0), exponent_bits=5, mantissa_bits=2",
                           {L("bf16[1]", "{1.375}")}),
              L("bf16[1]", "{1.5}"));
}

TEST(EvaluatorConvertTest, StochasticConvert) {
  // A fractional part of 0.5 rounds away from zero when the random bits,
  // read as a fraction of 2^32, are below 0.5.
  EXPECT_EVAL(EvaluateRoot("s32[4] stochastic-convert(p0, p1)",
                           {L("f32[4]", "{2.5, -2.5, 2.5, 7}"),
                            L("u32[4]", "{0, 0, 4294967295, 0}")}),
              L("s32[4]", "{3, -3, 2, 7}"));
}

TEST(EvaluatorConvertTest, ComplexRealImag) {
  EXPECT_EVAL(EvaluateRoot("c64[2] complex(p0, p1)", {L("f32[2]", "{1, -0}"), L("f32[2]", "{2, 3}")}),
              L("c64[2]", "{(1, 2), (-0, 3)}"));
  const Literal z = L("c128[2]", "{(1.5, -2), (nan, 4)}");
  EXPECT_EVAL(EvaluateRoot("f64[2] real(p0)", {z}), L("f64[2]", "{1.5, nan}"));
  EXPECT_EVAL(EvaluateRoot("f64[2] imag(p0)", {z}), L("f64[2]", "{-2, 4}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] real(p0)", {L("f32[2]", "{1, 2}")}), L("f32[2]", "{1, 2}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] imag(p0)", {L("f32[2]", "{1, 2}")}), L("f32[2]", "{0, 0}"));
  EXPECT_EVAL(EvaluateRoot("c64[2] convert(p0)", {L("f32[2]", "{1, 2}")}),
              L("c64[2]", "{(1, 0), (2, 0)}"));
}

TEST(EvaluatorConvertTest, FloatToWideIntegersSaturate) {
  // 2^63 and above saturate to INT64_MAX; 2^62 converts exactly.
  EXPECT_EVAL(EvaluateRoot("s64[5] convert(p0)", {L("f32[5]", "{9.3e18, -9.3e18, nan, 4.611686e18, -inf}")}),
              L("s64[5]", "{9223372036854775807, -9223372036854775808, 0, 4611686018427387904, "
                          "-9223372036854775808}"));
  EXPECT_EVAL(EvaluateRoot("u64[4] convert(p0)", {L("f64[4]", "{1.8e19, 2e19, -1, nan}")}),
              L("u64[4]", "{18000000000000000000, 18446744073709551615, 0, 0}"));
  // The largest f32 below 2^31 converts exactly; 2^31 saturates.
  EXPECT_EVAL(EvaluateRoot("s32[2] convert(p0)", {L("f32[2]", "{2147483520, 2147483648}")}),
              L("s32[2]", "{2147483520, 2147483647}"));
  EXPECT_EVAL(EvaluateRoot("s8[3] convert(p0)", {L("f16[3]", "{300, -300, 1.5}")}), L("s8[3]", "{127, -128, 1}"));
  // bf16 70000 is 70144; it saturates u16.
  EXPECT_EVAL(EvaluateRoot("u16[3] convert(p0)", {L("bf16[3]", "{-1, 70000, nan}")}), L("u16[3]", "{0, 65535, 0}"));
}

TEST(EvaluatorConvertTest, IntegersToFloatsRound) {
  // 65520 is halfway between f16's 65504 and 2^16: ties to even overflow.
  EXPECT_EVAL(EvaluateRoot("f16[3] convert(p0)", {L("s32[3]", "{65520, 65519, -70000}")}),
              L("f16[3]", "{inf, 65504, -inf}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] convert(p0)", {L("u32[2]", "{4294967295, 16777219}")}),
              L("f32[2]", "{4294967296, 16777220}"));
  EXPECT_EVAL(EvaluateRoot("f64[2] convert(p0)", {L("s64[2]", "{9007199254740993, -9223372036854775808}")}),
              L("f64[2]", "{9007199254740992, -9223372036854775808}"));
  EXPECT_EVAL(EvaluateRoot("bf16[2] convert(p0)", {L("s32[2]", "{257, 259}")}), L("bf16[2]", "{256, 260}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] convert(p0)", {L("pred[2]", "{1, 0}")}), L("s32[2]", "{1, 0}"));
}

TEST(EvaluatorConvertTest, FloatToFloat) {
  EXPECT_EVAL(EvaluateRoot("f32[4] convert(p0)", {L("f64[4]", "{1e300, -1e-50, 0.1, -nan}")}),
              L("f32[4]", "{inf, -0, 0.1, -nan}"));
  EXPECT_EVAL(EvaluateRoot("f64[2] convert(p0)", {L("f16[2]", "{5.96046448e-08, -65504}")}),
              L("f64[2]", "{5.9604644775390625e-08, -65504}"));
  // f16 -> bf16 goes through the exact value: 2049 is not an f16 value,
  // 2048 + 1/1024 rounds to bf16's 2048.
  EXPECT_EVAL(EvaluateRoot("bf16[2] convert(p0)", {L("f16[2]", "{2050, 0.0999755859375}")}),
              L("bf16[2]", "{2048, 0.10009765625}"));
}

TEST(EvaluatorConvertTest, ComplexConversions) {
  // complex -> real keeps the real part (then converts it).
  EXPECT_EVAL(EvaluateRoot("f32[2] convert(p0)", {L("c64[2]", "{(1.5, 2), (-0, 7)}")}), L("f32[2]", "{1.5, -0}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] convert(p0)", {L("c64[2]", "{(2.7, 9), (-3e10, 0)}")}),
              L("s32[2]", "{2, -2147483648}"));
  EXPECT_EVAL(EvaluateRoot("c128[2] convert(p0)", {L("c64[2]", "{(1.5, -2), (0.1, 0)}")}),
              L("c128[2]", "{(1.5, -2), (0.10000000149011612, 0)}"));
  EXPECT_EVAL(EvaluateRoot("c64[2] convert(p0)", {L("s32[2]", "{-3, 16777217}")}),
              L("c64[2]", "{(-3, 0), (16777216, 0)}"));
}

TEST(EvaluatorConvertTest, BitcastConvertKeepsEveryBit) {
  EXPECT_EVAL(EvaluateRoot("s32[3] bitcast-convert(p0)", {L("f32[3]", "{nan, -nan, -inf}")}),
              L("s32[3]", "{2143289344, -4194304, -8388608}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] bitcast-convert(p0)", {L("s32[2]", "{1, 2139095041}")}),
              L("f32[2]", "{1.40129846e-45, nan(0x1)}"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2] bitcast-convert(p0)", {L("f64[2]", "{1, -2}")}),
              L("s32[2,2]", "{ { 0, 1072693248 }, { 0, -1073741824 } }"));
  EXPECT_EVAL(EvaluateRoot("f16[2] bitcast-convert(p0)", {L("s16[2]", "{31744, -1024}")}),
              L("f16[2]", "{inf, -inf}"));
  EXPECT_EVAL(EvaluateRoot("u8[0,4] bitcast-convert(p0)", {L("f32[0]", "{}")}), L("u8[0,4]", "{}"));
}

TEST(EvaluatorConvertTest, ReducePrecisionOnSixteenBitTypesUsesTheirOwnBits) {
  // An f16 subnormal (0x0180 = 3 * 2^-17) keeps its place when the exponent
  // is not narrowed; rounding to 2 mantissa bits happens on f16's bits:
  // 0x0180 -> 0x0200 = 2^-15.  Through f32 it would flush to zero.
  EXPECT_EVAL(EvaluateRoot("f16[3] reduce-precision(p0), exponent_bits=5, mantissa_bits=2",
                           {L("f16[3]", "{2.288818359375e-05, 5.96046448e-08, 1.375}")}),
              L("f16[3]", "{3.0517578125e-05, 0, 1.5}"));
  EXPECT_EVAL(EvaluateRoot("f16[2] reduce-precision(p0), exponent_bits=5, mantissa_bits=10",
                           {L("f16[2]", "{5.96046448e-08, nan}")}),
              L("f16[2]", "{5.96046448e-08, nan}"));
  // Narrowing bf16's exponent to f16's range: 1e5 overflows, 1e-5 flushes.
  EXPECT_EVAL(EvaluateRoot("bf16[3] reduce-precision(p0), exponent_bits=5, mantissa_bits=7",
                           {L("bf16[3]", "{1e5, -1e-5, 2}")}),
              L("bf16[3]", "{inf, -0, 2}"));
  EXPECT_EVAL(EvaluateRoot("bf16[2] reduce-precision(p0), exponent_bits=8, mantissa_bits=0",
                           {L("bf16[2]", "{-nan, 3}")}),
              L("bf16[2]", "{inf, 2}"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
