// Elementwise ops: arithmetic, logic, shifts, compare, select and clamp,
// with the edge cases XLA defines (NaN, inf, -0, integer wraparound,
// division by zero, out-of-range shifts) and the 16-bit float rounding.
#include <cmath>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorElementwiseTest, FloatAddPropagatesNanInfAndSignedZero) {
  EXPECT_EVAL(EvaluateRoot("f32[6] add(p0, p1)",
                           {L("f32[6]", "{-0, -0, inf, nan, 1.5, inf}"),
                            L("f32[6]", "{-0, 0, -inf, 1, 2.25, 1}")}),
              L("f32[6]", "{-0, 0, nan, nan, 3.75, inf}"));
  EXPECT_EVAL(EvaluateRoot("f64[3] multiply(p0, p1)",
                           {L("f64[3]", "{-0, 0, inf}"), L("f64[3]", "{5, -5, 0}")}),
              L("f64[3]", "{-0, -0, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] divide(p0, p1)",
                           {L("f32[4]", "{1, -1, 0, 6}"), L("f32[4]", "{0, 0, 0, -4}")}),
              L("f32[4]", "{inf, -inf, nan, -1.5}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] subtract(p0, p1)",
                           {L("f32[2]", "{0, inf}"), L("f32[2]", "{0, inf}")}),
              L("f32[2]", "{0, nan}"));
}

TEST(EvaluatorElementwiseTest, IntegerArithmeticWraps) {
  EXPECT_EVAL(EvaluateRoot("s32[3] add(p0, p1)",
                           {L("s32[3]", "{2147483647, -2147483648, 5}"),
                            L("s32[3]", "{1, -1, -7}")}),
              L("s32[3]", "{-2147483648, 2147483647, -2}"));
  EXPECT_EVAL(EvaluateRoot("s8[3] multiply(p0, p1)",
                           {L("s8[3]", "{100, -128, 16}"), L("s8[3]", "{3, -1, 16}")}),
              L("s8[3]", "{44, -128, 0}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] subtract(p0, p1)", {L("u8[2]", "{0, 5}"), L("u8[2]", "{1, 3}")}),
              L("u8[2]", "{255, 2}"));
  EXPECT_EVAL(EvaluateRoot("u16[1] multiply(p0, p1)", {L("u16[1]", "{65535}"), L("u16[1]", "{65535}")}),
              L("u16[1]", "{1}"));
  EXPECT_EVAL(EvaluateRoot("s64[2] subtract(p0, p1)",
                           {L("s64[2]", "{-9223372036854775808, 0}"), L("s64[2]", "{1, -9223372036854775808}")}),
              L("s64[2]", "{9223372036854775807, -9223372036854775808}"));
  EXPECT_EVAL(EvaluateRoot("s32[3] negate(p0)", {L("s32[3]", "{-2147483648, 5, 0}")}),
              L("s32[3]", "{-2147483648, -5, 0}"));
  EXPECT_EVAL(EvaluateRoot("s32[3] abs(p0)", {L("s32[3]", "{-2147483648, -5, 7}")}),
              L("s32[3]", "{-2147483648, 5, 7}"));
  EXPECT_EVAL(EvaluateRoot("u32[2] negate(p0)", {L("u32[2]", "{1, 0}")}),
              L("u32[2]", "{4294967295, 0}"));
}

TEST(EvaluatorElementwiseTest, IntegerDivisionEdgeCases) {
  // x / 0 = -1, INT_MIN / -1 = INT_MIN; division truncates toward zero.
  EXPECT_EVAL(EvaluateRoot("s32[6] divide(p0, p1)",
                           {L("s32[6]", "{7, -7, 7, -7, -2147483648, 5}"),
                            L("s32[6]", "{0, 0, 2, 2, -1, -1}")}),
              L("s32[6]", "{-1, -1, 3, -3, -2147483648, -5}"));
  // x % 0 = x, INT_MIN % -1 = 0; the sign follows the dividend.
  EXPECT_EVAL(EvaluateRoot("s32[6] remainder(p0, p1)",
                           {L("s32[6]", "{7, -7, 7, -7, -2147483648, 5}"),
                            L("s32[6]", "{0, 0, 2, 2, -1, -1}")}),
              L("s32[6]", "{7, -7, 1, -1, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("u32[2] divide(p0, p1)", {L("u32[2]", "{7, 7}"), L("u32[2]", "{0, 2}")}),
              L("u32[2]", "{4294967295, 3}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] remainder(p0, p1)", {L("u8[2]", "{7, 200}"), L("u8[2]", "{0, 7}")}),
              L("u8[2]", "{7, 4}"));
  EXPECT_EVAL(EvaluateRoot("s8[1] divide(p0, p1)", {L("s8[1]", "{-128}"), L("s8[1]", "{-1}")}),
              L("s8[1]", "{-128}"));
}

TEST(EvaluatorElementwiseTest, FloatRemainderIsFmod) {
  EXPECT_EVAL(EvaluateRoot("f32[5] remainder(p0, p1)",
                           {L("f32[5]", "{5.5, -5.5, 5.5, 1, inf}"),
                            L("f32[5]", "{2, 2, -2, 0, 1}")}),
              L("f32[5]", "{1.5, -1.5, 1.5, nan, nan}"));
}

TEST(EvaluatorElementwiseTest, ShiftsOutOfRange) {
  EXPECT_EVAL(EvaluateRoot("s32[5] shift-left(p0, p1)",
                           {L("s32[5]", "{1, 1, 1, -8, 3}"), L("s32[5]", "{31, 32, -1, 1, 0}")}),
              L("s32[5]", "{-2147483648, 0, 0, -16, 3}"));
  EXPECT_EVAL(EvaluateRoot("s32[5] shift-right-arithmetic(p0, p1)",
                           {L("s32[5]", "{-8, -8, 8, -8, 8}"), L("s32[5]", "{1, 32, 32, -1, 2}")}),
              L("s32[5]", "{-4, -1, 0, -1, 2}"));
  EXPECT_EVAL(EvaluateRoot("s32[4] shift-right-logical(p0, p1)",
                           {L("s32[4]", "{-8, -8, 8, -1}"), L("s32[4]", "{28, 32, 1, -5}")}),
              L("s32[4]", "{15, 0, 4, 0}"));
  EXPECT_EVAL(EvaluateRoot("u8[4] shift-right-arithmetic(p0, p1)",
                           {L("u8[4]", "{128, 128, 64, 255}"), L("u8[4]", "{1, 8, 9, 200}")}),
              L("u8[4]", "{192, 255, 0, 255}"));
  EXPECT_EVAL(EvaluateRoot("u8[3] shift-left(p0, p1)",
                           {L("u8[3]", "{255, 1, 1}"), L("u8[3]", "{1, 7, 8}")}),
              L("u8[3]", "{254, 128, 0}"));
}

TEST(EvaluatorElementwiseTest, MaximumMinimumPropagateNanAndOrderSignedZeros) {
  EXPECT_EVAL(EvaluateRoot("f32[6] maximum(p0, p1)",
                           {L("f32[6]", "{nan, 1, -0, 0, -inf, 2}"),
                            L("f32[6]", "{1, nan, 0, -0, -1, 3}")}),
              L("f32[6]", "{nan, nan, 0, 0, -1, 3}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] minimum(p0, p1)",
                           {L("f32[6]", "{nan, 1, -0, 0, inf, 2}"),
                            L("f32[6]", "{1, nan, 0, -0, 1, 3}")}),
              L("f32[6]", "{nan, nan, -0, -0, 1, 2}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] maximum(p0, p1)", {L("s32[2]", "{-5, 7}"), L("s32[2]", "{3, -9}")}),
              L("s32[2]", "{3, 7}"));
  EXPECT_EVAL(EvaluateRoot("u32[1] minimum(p0, p1)", {L("u32[1]", "{4294967295}"), L("u32[1]", "{1}")}),
              L("u32[1]", "{1}"));
}

TEST(EvaluatorElementwiseTest, CompareFloatIeee) {
  const Literal a = L("f32[5]", "{nan, -0, 1, -inf, nan}");
  const Literal b = L("f32[5]", "{nan, 0, 2, -inf, 1}");
  EXPECT_EVAL(EvaluateRoot("pred[5] compare(p0, p1), direction=EQ", {a, b}),
              L("pred[5]", "{0, 1, 0, 1, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[5] compare(p0, p1), direction=NE", {a, b}),
              L("pred[5]", "{1, 0, 1, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[5] compare(p0, p1), direction=LT", {a, b}),
              L("pred[5]", "{0, 0, 1, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[5] compare(p0, p1), direction=GE", {a, b}),
              L("pred[5]", "{0, 1, 0, 1, 0}"));
}

TEST(EvaluatorElementwiseTest, CompareFloatTotalOrder) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN.
  const Literal a = L("f32[7]", "{-nan, -inf, -1, -0, 0, 1, inf}");
  const Literal b = L("f32[7]", "{-inf, -1, -0, 0, 1, inf, nan}");
  EXPECT_EVAL(EvaluateRoot("pred[7] compare(p0, p1), direction=LT, type=TOTALORDER", {a, b}),
              L("pred[7]", "{1, 1, 1, 1, 1, 1, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[7] compare(p1, p0), direction=LT, type=TOTALORDER", {a, b}),
              L("pred[7]", "{0, 0, 0, 0, 0, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[3] compare(p0, p1), direction=EQ, type=TOTALORDER",
                           {L("f32[3]", "{nan, -0, 1}"), L("f32[3]", "{nan, 0, 1}")}),
              L("pred[3]", "{1, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=GT, type=TOTALORDER",
                           {L("bf16[2]", "{nan, -0}"), L("bf16[2]", "{inf, -1}")}),
              L("pred[2]", "{1, 1}"));
}

TEST(EvaluatorElementwiseTest, CompareIntegersAndPred) {
  EXPECT_EVAL(EvaluateRoot("pred[3] compare(p0, p1), direction=LT",
                           {L("s32[3]", "{-1, 5, 2}"), L("s32[3]", "{0, 5, 1}")}),
              L("pred[3]", "{1, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=GT",
                           {L("u32[2]", "{4294967295, 0}"), L("u32[2]", "{1, 0}")}),
              L("pred[2]", "{1, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=LT",
                           {L("pred[2]", "{0, 1}"), L("pred[2]", "{1, 1}")}),
              L("pred[2]", "{1, 0}"));
}

TEST(EvaluatorElementwiseTest, SelectAndClamp) {
  EXPECT_EVAL(EvaluateRoot("f32[3] select(p0, p1, p2)",
                           {L("pred[3]", "{1, 0, 1}"), L("f32[3]", "{1, 2, 3}"),
                            L("f32[3]", "{-1, -2, -3}")}),
              L("f32[3]", "{1, -2, 3}"));
  EXPECT_EVAL(EvaluateRoot("s32[4] clamp(p0, p1, p2)",
                           {L("s32[]", "-2"), L("s32[4]", "{-5, 0, 5, 2}"), L("s32[]", "2")}),
              L("s32[4]", "{-2, 0, 2, 2}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] clamp(p0, p1, p2)",
                           {L("f32[3]", "{0, nan, 0}"), L("f32[3]", "{nan, 1, 5}"),
                            L("f32[3]", "{1, 2, 4}")}),
              L("f32[3]", "{nan, nan, 4}"));
}

TEST(EvaluatorElementwiseTest, IntegerPower) {
  // A negative exponent gives 1 for base 1 and 0 otherwise, -1 included (as
  // XLA's evaluator and CPU backend); 2^32 wraps to 0.
  EXPECT_EVAL(EvaluateRoot("s32[9] power(p0, p1)",
                           {L("s32[9]", "{2, 3, -2, 1, -1, -1, 5, 0, 2}"),
                            L("s32[9]", "{10, 3, 3, -5, -3, -2, -1, 0, 32}")}),
              L("s32[9]", "{1024, 27, -8, 1, 0, 0, 0, 1, 0}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] power(p0, p1)", {L("u8[2]", "{3, 2}"), L("u8[2]", "{5, 8}")}),
              L("u8[2]", "{243, 0}"));
}

TEST(EvaluatorElementwiseTest, FloatPower) {
  EXPECT_EVAL(EvaluateRoot("f32[6] power(p0, p1)",
                           {L("f32[6]", "{0, 2, nan, 1, -8, 4}"),
                            L("f32[6]", "{0, -1, 0, nan, 0.5, 0.5}")}),
              L("f32[6]", "{1, 0.5, 1, 1, nan, 2}"));
}

TEST(EvaluatorElementwiseTest, FloatUnary) {
  const Literal x = L("f32[6]", "{-2.5, -0, 0, 2.5, 3.5, nan}");
  EXPECT_EVAL(EvaluateRoot("f32[6] abs(p0)", {x}), L("f32[6]", "{2.5, 0, 0, 2.5, 3.5, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] negate(p0)", {x}), L("f32[6]", "{2.5, 0, -0, -2.5, -3.5, -nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] sign(p0)", {x}), L("f32[6]", "{-1, -0, 0, 1, 1, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] floor(p0)", {x}), L("f32[6]", "{-3, -0, 0, 2, 3, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] ceil(p0)", {x}), L("f32[6]", "{-2, -0, 0, 3, 4, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] round-nearest-afz(p0)", {x}),
              L("f32[6]", "{-3, -0, 0, 3, 4, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[6] round-nearest-even(p0)", {x}),
              L("f32[6]", "{-2, -0, 0, 2, 4, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[5] sqrt(p0)", {L("f32[5]", "{4, -1, -0, inf, 2.25}")}),
              L("f32[5]", "{2, nan, -0, inf, 1.5}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] rsqrt(p0)", {L("f32[3]", "{4, 0, inf}")}),
              L("f32[3]", "{0.5, inf, 0}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] log(p0)", {L("f32[4]", "{1, 0, -1, inf}")}),
              L("f32[4]", "{0, -inf, nan, inf}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] exponential(p0)", {L("f32[3]", "{0, -inf, inf}")}),
              L("f32[3]", "{1, 0, inf}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] cbrt(p0)", {L("f32[3]", "{-8, 27, -0}")}),
              L("f32[3]", "{-2, 3, -0}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] logistic(p0)", {L("f32[3]", "{0, inf, -inf}")}),
              L("f32[3]", "{0.5, 1, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[4] is-finite(p0)", {L("f32[4]", "{1, inf, -inf, nan}")}),
              L("pred[4]", "{1, 0, 0, 0}"));
}

TEST(EvaluatorElementwiseTest, Transcendentals) {
  const Literal x = L("f32[3]", "{0.5, -1.25, 2}");
  auto near = [&](absl::string_view op, double (*fn)(double)) {
    Literal expected = x;
    for (int64_t i = 0; i < 3; ++i) expected.SetFromDouble(i, fn(x.GetAsDouble(i)));
    EXPECT_EVAL_NEAR(EvaluateRoot(absl::StrCat("f32[3] ", op, "(p0)"), {x}), expected, 1e-6, 1e-7)
        << op;
  };
  near("sine", [](double v) { return std::sin(v); });
  near("cosine", [](double v) { return std::cos(v); });
  near("tan", [](double v) { return std::tan(v); });
  near("tanh", [](double v) { return std::tanh(v); });
  near("erf", [](double v) { return std::erf(v); });
  near("exponential-minus-one", [](double v) { return std::expm1(v); });
  near("log-plus-one", [](double v) { return std::log1p(v); });
  near("atan", [](double v) { return std::atan(v); });
  near("sinh", [](double v) { return std::sinh(v); });
  near("cosh", [](double v) { return std::cosh(v); });
  near("asinh", [](double v) { return std::asinh(v); });
  const Literal unit = L("f32[3]", "{0.5, -0.25, 0.75}");
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[3] acos(p0)", {unit}),
                   L("f32[3]", "{1.04719755, 1.82347658, 0.722734248}"), 1e-6);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[3] asin(p0)", {unit}),
                   L("f32[3]", "{0.523598776, -0.252680255, 0.848062079}"), 1e-6);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[3] atanh(p0)", {unit}),
                   L("f32[3]", "{0.549306144, -0.255412812, 0.972955075}"), 1e-6);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[2] acosh(p0)", {L("f32[2]", "{1, 2}")}),
                   L("f32[2]", "{0, 1.3169579}"), 1e-6);
  // Outside their domains: NaN, or infinity at the poles.
  EXPECT_EVAL(EvaluateRoot("f32[4] acos(p0)", {L("f32[4]", "{2, -2, 1, nan}")}),
              L("f32[4]", "{nan, nan, 0, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] atanh(p0)", {L("f32[3]", "{1, -1, 2}")}),
              L("f32[3]", "{inf, -inf, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] acosh(p0)", {L("f32[2]", "{0.5, inf}")}), L("f32[2]", "{nan, inf}"));
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[4] atan2(p0, p1)",
                                {L("f32[4]", "{1, 1, -1, 0}"), L("f32[4]", "{1, -1, -1, -1}")}),
                   L("f32[4]", "{0.785398163, 2.35619449, -2.35619449, 3.14159265}"), 1e-6);
}

TEST(EvaluatorElementwiseTest, IntegerUnaryAndBitOps) {
  EXPECT_EVAL(EvaluateRoot("s32[5] count-leading-zeros(p0)",
                           {L("s32[5]", "{0, 1, -1, 65536, 2147483647}")}),
              L("s32[5]", "{32, 31, 0, 15, 1}"));
  EXPECT_EVAL(EvaluateRoot("u8[3] popcnt(p0)", {L("u8[3]", "{0, 255, 10}")}), L("u8[3]", "{0, 8, 2}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] popcnt(p0)", {L("s32[2]", "{-1, 7}")}), L("s32[2]", "{32, 3}"));
  EXPECT_EVAL(EvaluateRoot("s32[3] not(p0)", {L("s32[3]", "{0, -1, 5}")}), L("s32[3]", "{-1, 0, -6}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] not(p0)", {L("pred[2]", "{0, 1}")}), L("pred[2]", "{1, 0}"));
  EXPECT_EVAL(EvaluateRoot("s32[3] sign(p0)", {L("s32[3]", "{-7, 0, 9}")}), L("s32[3]", "{-1, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("u32[3] and(p0, p1)", {L("u32[3]", "{12, 0, 255}"), L("u32[3]", "{10, 7, 15}")}),
              L("u32[3]", "{8, 0, 15}"));
  EXPECT_EVAL(EvaluateRoot("s8[2] or(p0, p1)", {L("s8[2]", "{12, -128}"), L("s8[2]", "{3, 1}")}),
              L("s8[2]", "{15, -127}"));
  EXPECT_EVAL(EvaluateRoot("pred[4] xor(p0, p1)", {L("pred[4]", "{0, 0, 1, 1}"), L("pred[4]", "{0, 1, 0, 1}")}),
              L("pred[4]", "{0, 1, 1, 0}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] mulhi(p0, p1)",
                           {L("s32[2]", "{65536, -65536}"), L("s32[2]", "{65536, 65536}")}),
              L("s32[2]", "{1, -1}"));
  EXPECT_EVAL(EvaluateRoot("u32[1] mulhi(p0, p1)", {L("u32[1]", "{4294967295}"), L("u32[1]", "{4294967295}")}),
              L("u32[1]", "{4294967294}"));
}

TEST(EvaluatorElementwiseTest, SixteenBitFloatsRoundOnce) {
  // 1 + 2^-8 is halfway between two bf16 values: ties to even gives 1.
  EXPECT_EVAL(EvaluateRoot("bf16[2] add(p0, p1)", {L("bf16[2]", "{1, 1}"), L("bf16[2]", "{0.00390625, 0.0078125}")}),
              L("bf16[2]", "{1, 1.0078125}"));
  // 2048 + 1 = 2049 is halfway between f16 values 2048 and 2050: 2048.
  EXPECT_EVAL(EvaluateRoot("f16[2] add(p0, p1)", {L("f16[2]", "{2048, 2048}"), L("f16[2]", "{1, 3}")}),
              L("f16[2]", "{2048, 2052}"));
  // f16 overflows to inf past 65504 + half an ulp.
  EXPECT_EVAL(EvaluateRoot("f16[2] multiply(p0, p1)", {L("f16[2]", "{65504, 300}"), L("f16[2]", "{2, 300}")}),
              L("f16[2]", "{inf, inf}"));
  EXPECT_EVAL(EvaluateRoot("bf16[2] maximum(p0, p1)", {L("bf16[2]", "{nan, -0}"), L("bf16[2]", "{1, 0}")}),
              L("bf16[2]", "{nan, 0}"));
}

TEST(EvaluatorElementwiseTest, ComplexArithmetic) {
  const Literal a = L("c64[2]", "{(1, 2), (-3, 4)}");
  const Literal b = L("c64[2]", "{(3, -1), (0, 2)}");
  EXPECT_EVAL(EvaluateRoot("c64[2] add(p0, p1)", {a, b}), L("c64[2]", "{(4, 1), (-3, 6)}"));
  EXPECT_EVAL(EvaluateRoot("c64[2] multiply(p0, p1)", {a, b}), L("c64[2]", "{(5, 5), (-8, -6)}"));
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[2] divide(p0, p1)", {a, b}),
                   L("c64[2]", "{(0.1, 0.7), (2, 1.5)}"), 1e-6, 0);
  EXPECT_EVAL(EvaluateRoot("c64[2] negate(p0)", {a}), L("c64[2]", "{(-1, -2), (3, -4)}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] abs(p0)", {L("c64[2]", "{(3, 4), (-5, 12)}")}), L("f32[2]", "{5, 13}"));
  EXPECT_EVAL(EvaluateRoot("c128[2] sign(p0)", {L("c128[2]", "{(3, 4), (0, 0)}")}),
              L("c128[2]", "{(0.6, 0.8), (0, 0)}"));
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[1] exponential(p0)", {L("c64[1]", "{(0, 3.14159265)}")}),
                   L("c64[1]", "{(-1, 0)}"), 1e-6, 1e-6);
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[1] sqrt(p0)", {L("c64[1]", "{(-4, 0)}")}),
                   L("c64[1]", "{(0, 2)}"), 1e-6, 1e-6);
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=EQ",
                           {a, L("c64[2]", "{(1, 2), (-3, -4)}")}),
              L("pred[2]", "{1, 0}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=NE",
                           {a, L("c64[2]", "{(1, 2), (-3, -4)}")}),
              L("pred[2]", "{0, 1}"));
}

TEST(EvaluatorElementwiseTest, PredArithmetic) {
  const Literal a = L("pred[4]", "{0, 0, 1, 1}");
  const Literal b = L("pred[4]", "{0, 1, 0, 1}");
  EXPECT_EVAL(EvaluateRoot("pred[4] add(p0, p1)", {a, b}), L("pred[4]", "{0, 1, 1, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[4] multiply(p0, p1)", {a, b}), L("pred[4]", "{0, 0, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[4] and(p0, p1)", {a, b}), L("pred[4]", "{0, 0, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[4] or(p0, p1)", {a, b}), L("pred[4]", "{0, 1, 1, 1}"));
}

TEST(EvaluatorElementwiseTest, EmptyShapes) {
  EXPECT_EVAL(EvaluateRoot("f32[0] add(p0, p1)", {L("f32[0]", "{}"), L("f32[0]", "{}")}),
              L("f32[0]", "{}"));
  EXPECT_EVAL(EvaluateRoot("pred[2,0] compare(p0, p1), direction=LT",
                           {L("s32[2,0]", "{ {}, {} }"), L("s32[2,0]", "{ {}, {} }")}),
              L("pred[2,0]", "{ {}, {} }"));
}

TEST(EvaluatorElementwiseTest, TypeMismatchIsAnError) {
  absl::StatusOr<Literal> result =
      EvaluateRoot("f32[2] add(p0, p1)", {L("f32[2]", "{1, 2}"), L("s32[2]", "{1, 2}")});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("%r"), std::string::npos) << result.status();
  EXPECT_FALSE(EvaluateRoot("s32[2] sine(p0)", {L("s32[2]", "{1, 2}")}).ok());
  EXPECT_FALSE(EvaluateRoot("f32[3] add(p0, p1)", {L("f32[2]", "{1, 2}"), L("f32[2]", "{1, 2}")}).ok());
}

TEST(EvaluatorElementwiseTest, RoundingModes) {
  // 0.49999997 is the largest f32 below 0.5; 8388609 = 2^23 + 1 is already
  // integral.
  const Literal x = L("f32[9]", "{0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 8388609, -inf, nan}");
  EXPECT_EVAL(EvaluateRoot("f32[9] round-nearest-afz(p0)", {x}),
              L("f32[9]", "{1, -1, 2, 3, -3, 0, 8388609, -inf, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[9] round-nearest-even(p0)", {x}),
              L("f32[9]", "{0, -0, 2, 2, -2, 0, 8388609, -inf, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] floor(p0)", {L("f32[2]", "{-0.5, -0}")}), L("f32[2]", "{-1, -0}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] ceil(p0)", {L("f32[2]", "{-0.5, 0.25}")}), L("f32[2]", "{-0, 1}"));
  EXPECT_EVAL(EvaluateRoot("bf16[3] round-nearest-even(p0)", {L("bf16[3]", "{2.5, 3.5, -0.5}")}),
              L("bf16[3]", "{2, 4, -0}"));
  EXPECT_EVAL(EvaluateRoot("f16[3] round-nearest-afz(p0)", {L("f16[3]", "{2.5, 3.5, -0.5}")}),
              L("f16[3]", "{3, 4, -1}"));
  EXPECT_EVAL(EvaluateRoot("f64[2] round-nearest-even(p0)", {L("f64[2]", "{4503599627370497, -1.5}")}),
              L("f64[2]", "{4503599627370497, -2}"));
}

TEST(EvaluatorElementwiseTest, ShiftsAtEveryWidth) {
  EXPECT_EVAL(EvaluateRoot("s64[3] shift-left(p0, p1)",
                           {L("s64[3]", "{1, 1, 3}"), L("s64[3]", "{63, 64, -1}")}),
              L("s64[3]", "{-9223372036854775808, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("s64[3] shift-right-arithmetic(p0, p1)",
                           {L("s64[3]", "{-9223372036854775808, -9223372036854775808, 9223372036854775807}"),
                            L("s64[3]", "{63, 64, 64}")}),
              L("s64[3]", "{-1, -1, 0}"));
  EXPECT_EVAL(EvaluateRoot("u64[3] shift-right-logical(p0, p1)",
                           {L("u64[3]", "{18446744073709551615, 18446744073709551615, 1}"),
                            L("u64[3]", "{1, 64, 18446744073709551615}")}),
              L("u64[3]", "{9223372036854775807, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("s8[4] shift-left(p0, p1)", {L("s8[4]", "{1, -1, 3, 1}"), L("s8[4]", "{7, 8, 1, -128}")}),
              L("s8[4]", "{-128, 0, 6, 0}"));
  EXPECT_EVAL(EvaluateRoot("s8[3] shift-right-logical(p0, p1)",
                           {L("s8[3]", "{-128, -1, -1}"), L("s8[3]", "{7, 8, 100}")}),
              L("s8[3]", "{1, 0, 0}"));
  EXPECT_EVAL(EvaluateRoot("s16[3] shift-right-arithmetic(p0, p1)",
                           {L("s16[3]", "{-32768, 64, -2}"), L("s16[3]", "{15, 100, 1}")}),
              L("s16[3]", "{-1, 0, -1}"));
  EXPECT_EVAL(EvaluateRoot("u32[2] shift-left(p0, p1)", {L("u32[2]", "{1, 1}"), L("u32[2]", "{31, 4294967295}")}),
              L("u32[2]", "{2147483648, 0}"));
}

TEST(EvaluatorElementwiseTest, WideAndNarrowIntegerEdges) {
  EXPECT_EVAL(EvaluateRoot("s64[3] divide(p0, p1)",
                           {L("s64[3]", "{-9223372036854775808, 5, -9}"), L("s64[3]", "{-1, 0, 4}")}),
              L("s64[3]", "{-9223372036854775808, -1, -2}"));
  EXPECT_EVAL(EvaluateRoot("s64[3] remainder(p0, p1)",
                           {L("s64[3]", "{-9223372036854775808, 5, -9}"), L("s64[3]", "{-1, 0, 4}")}),
              L("s64[3]", "{0, 5, -1}"));
  EXPECT_EVAL(EvaluateRoot("u64[2] divide(p0, p1)", {L("u64[2]", "{5, 18446744073709551615}"), L("u64[2]", "{0, 2}")}),
              L("u64[2]", "{18446744073709551615, 9223372036854775807}"));
  EXPECT_EVAL(EvaluateRoot("s16[2] divide(p0, p1)", {L("s16[2]", "{-32768, 7}"), L("s16[2]", "{-1, -2}")}),
              L("s16[2]", "{-32768, -3}"));
  EXPECT_EVAL(EvaluateRoot("s16[2] remainder(p0, p1)", {L("s16[2]", "{-32768, 7}"), L("s16[2]", "{-1, -2}")}),
              L("s16[2]", "{0, 1}"));
  EXPECT_EVAL(EvaluateRoot("s8[3] sign(p0)", {L("s8[3]", "{-128, 0, 127}")}), L("s8[3]", "{-1, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] sign(p0)", {L("u8[2]", "{0, 200}")}), L("u8[2]", "{0, 1}"));
  EXPECT_EVAL(EvaluateRoot("s8[2] abs(p0)", {L("s8[2]", "{-128, -127}")}), L("s8[2]", "{-128, 127}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] negate(p0)", {L("u8[2]", "{1, 128}")}), L("u8[2]", "{255, 128}"));
  EXPECT_EVAL(EvaluateRoot("u8[2] abs(p0)", {L("u8[2]", "{255, 0}")}), L("u8[2]", "{255, 0}"));
  EXPECT_EVAL(EvaluateRoot("s64[2] mulhi(p0, p1)",
                           {L("s64[2]", "{4294967296, -1}"), L("s64[2]", "{4294967296, 1}")}),
              L("s64[2]", "{1, -1}"));
  EXPECT_EVAL(EvaluateRoot("u64[1] mulhi(p0, p1)",
                           {L("u64[1]", "{18446744073709551615}"), L("u64[1]", "{18446744073709551615}")}),
              L("u64[1]", "{18446744073709551614}"));
  EXPECT_EVAL(EvaluateRoot("u8[3] maximum(p0, p1)", {L("u8[3]", "{200, 0, 7}"), L("u8[3]", "{100, 255, 7}")}),
              L("u8[3]", "{200, 255, 7}"));
  EXPECT_EVAL(EvaluateRoot("s64[1] power(p0, p1)", {L("s64[1]", "{3}"), L("s64[1]", "{40}")}),
              L("s64[1]", "{-6289078614652622815}"));  // 3^40 wraps
}

TEST(EvaluatorElementwiseTest, PopcntAndClzAtEveryWidth) {
  EXPECT_EVAL(EvaluateRoot("s8[3] popcnt(p0)", {L("s8[3]", "{-1, -128, 0}")}), L("s8[3]", "{8, 1, 0}"));
  EXPECT_EVAL(EvaluateRoot("u16[2] popcnt(p0)", {L("u16[2]", "{32769, 65535}")}), L("u16[2]", "{2, 16}"));
  EXPECT_EVAL(EvaluateRoot("s64[2] popcnt(p0)", {L("s64[2]", "{-1, 6148914691236517205}")}),
              L("s64[2]", "{64, 32}"));
  EXPECT_EVAL(EvaluateRoot("u8[4] count-leading-zeros(p0)", {L("u8[4]", "{0, 1, 128, 15}")}),
              L("u8[4]", "{8, 7, 0, 4}"));
  EXPECT_EVAL(EvaluateRoot("s16[2] count-leading-zeros(p0)", {L("s16[2]", "{0, -32768}")}),
              L("s16[2]", "{16, 0}"));
  EXPECT_EVAL(EvaluateRoot("s64[3] count-leading-zeros(p0)", {L("s64[3]", "{0, 1, -1}")}),
              L("s64[3]", "{64, 63, 0}"));
  EXPECT_EVAL(EvaluateRoot("u32[2] not(p0)", {L("u32[2]", "{0, 4294967295}")}), L("u32[2]", "{4294967295, 0}"));
}

TEST(EvaluatorElementwiseTest, CompareTotalOrderEveryDirection) {
  const Literal a = L("f64[4]", "{-nan, -0, 1, nan}");
  const Literal b = L("f64[4]", "{nan, 0, 1, nan}");
  auto cmp = [&](absl::string_view direction, absl::string_view type) {
    return EvaluateRoot(absl::StrCat("pred[4] compare(p0, p1), direction=", direction, type), {a, b});
  };
  EXPECT_EVAL(cmp("LT", ", type=TOTALORDER"), L("pred[4]", "{1, 1, 0, 0}"));
  EXPECT_EVAL(cmp("LE", ", type=TOTALORDER"), L("pred[4]", "{1, 1, 1, 1}"));
  EXPECT_EVAL(cmp("GT", ", type=TOTALORDER"), L("pred[4]", "{0, 0, 0, 0}"));
  EXPECT_EVAL(cmp("GE", ", type=TOTALORDER"), L("pred[4]", "{0, 0, 1, 1}"));
  EXPECT_EVAL(cmp("EQ", ", type=TOTALORDER"), L("pred[4]", "{0, 0, 1, 1}"));
  EXPECT_EVAL(cmp("NE", ", type=TOTALORDER"), L("pred[4]", "{1, 1, 0, 0}"));
  // The same values compared as IEEE floats (type=FLOAT, the default).
  EXPECT_EVAL(cmp("EQ", ", type=FLOAT"), L("pred[4]", "{0, 1, 1, 0}"));
  EXPECT_EVAL(cmp("NE", ""), L("pred[4]", "{1, 0, 0, 1}"));
  EXPECT_EVAL(cmp("LE", ""), L("pred[4]", "{0, 1, 1, 0}"));
  EXPECT_EVAL(cmp("GT", ""), L("pred[4]", "{0, 0, 0, 0}"));
  // f16 total order.
  EXPECT_EVAL(EvaluateRoot("pred[3] compare(p0, p1), direction=LT, type=TOTALORDER",
                           {L("f16[3]", "{-0, -inf, 65504}"), L("f16[3]", "{0, -65504, inf}")}),
              L("pred[3]", "{1, 1, 1}"));
  // Unsigned comparison of unsigned values, signed of signed.
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=LT, type=UNSIGNED",
                           {L("u8[2]", "{255, 1}"), L("u8[2]", "{1, 255}")}),
              L("pred[2]", "{0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] compare(p0, p1), direction=GE, type=SIGNED",
                           {L("s64[2]", "{-9223372036854775808, 0}"), L("s64[2]", "{9223372036854775807, 0}")}),
              L("pred[2]", "{0, 1}"));
}

TEST(EvaluatorElementwiseTest, SpecialValuesOfTranscendentals) {
  // atan2(y, x) on signed zeros and infinities.
  EXPECT_EVAL(EvaluateRoot("f32[3] atan2(p0, p1)", {L("f32[3]", "{-0, 0, nan}"), L("f32[3]", "{0, 0, 1}")}),
              L("f32[3]", "{-0, 0, nan}"));
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[5] atan2(p0, p1)",
                                {L("f32[5]", "{0, -0, inf, 1, -1}"), L("f32[5]", "{-0, -0, inf, -inf, -inf}")}),
                   L("f32[5]", "{3.14159265, -3.14159265, 0.785398163, 3.14159265, -3.14159265}"), 1e-7, 0);
  EXPECT_EVAL(EvaluateRoot("f32[4] erf(p0)", {L("f32[4]", "{inf, -inf, -0, nan}")}),
              L("f32[4]", "{1, -1, -0, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] tanh(p0)", {L("f32[4]", "{inf, -inf, -0, nan}")}),
              L("f32[4]", "{1, -1, -0, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] exponential-minus-one(p0)", {L("f32[4]", "{-inf, -0, inf, nan}")}),
              L("f32[4]", "{-1, -0, inf, nan}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] log-plus-one(p0)", {L("f32[4]", "{-1, -0, -2, inf}")}),
              L("f32[4]", "{-inf, -0, nan, inf}"));
  // expm1 and log1p keep the precision of tiny arguments (exp(x) - 1 would
  // give 0 in f32).
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[2] exponential-minus-one(p0)", {L("f32[2]", "{1e-10, -1e-10}")}),
                   L("f32[2]", "{1e-10, -1e-10}"), 1e-6, 0);
  EXPECT_EVAL_NEAR(EvaluateRoot("f32[2] log-plus-one(p0)", {L("f32[2]", "{1e-10, -1e-10}")}),
                   L("f32[2]", "{1e-10, -1e-10}"), 1e-6, 0);
  EXPECT_EVAL(EvaluateRoot("f32[3] cbrt(p0)", {L("f32[3]", "{-27, inf, -inf}")}), L("f32[3]", "{-3, inf, -inf}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] rsqrt(p0)", {L("f32[3]", "{-0, -1, 0.25}")}), L("f32[3]", "{-inf, nan, 2}"));
  // logistic saturates: exp(100) overflows f32, so logistic(-100) is 0.
  EXPECT_EVAL(EvaluateRoot("f32[3] logistic(p0)", {L("f32[3]", "{-100, 100, nan}")}), L("f32[3]", "{0, 1, nan}"));
  EXPECT_EVAL_NEAR(EvaluateRoot("f64[2] logistic(p0)", {L("f64[2]", "{2, -2}")}),
                   L("f64[2]", "{0.8807970779778823, 0.11920292202211755}"), 1e-15, 0);
  EXPECT_EVAL_NEAR(EvaluateRoot("f64[2] erf(p0)", {L("f64[2]", "{0.5, -2}")}),
                   L("f64[2]", "{0.5204998778130465, -0.9953222650189527}"), 1e-15, 0);
  EXPECT_EVAL(EvaluateRoot("pred[4] is-finite(p0)", {L("f16[4]", "{65504, inf, nan, -0}")}),
              L("pred[4]", "{1, 0, 0, 1}"));
  EXPECT_EVAL(EvaluateRoot("pred[2] is-finite(p0)", {L("bf16[2]", "{-inf, 3e38}")}), L("pred[2]", "{0, 1}"));
}

TEST(EvaluatorElementwiseTest, SixteenBitTranscendentalsRoundOnce) {
  // f16: 1/3 -> 0.333251953125 (0x3555), sqrt(2) -> 1.4140625 (0x3da8).
  EXPECT_EVAL(EvaluateRoot("f16[2] divide(p0, p1)", {L("f16[2]", "{1, -1}"), L("f16[2]", "{3, 3}")}),
              L("f16[2]", "{0.333251953125, -0.333251953125}"));
  EXPECT_EVAL(EvaluateRoot("f16[1] sqrt(p0)", {L("f16[1]", "{2}")}), L("f16[1]", "{1.4140625}"));
  // bf16: 1/3 -> 0.333984375.
  EXPECT_EVAL(EvaluateRoot("bf16[1] divide(p0, p1)", {L("bf16[1]", "{1}"), L("bf16[1]", "{3}")}),
              L("bf16[1]", "{0.333984375}"));
  EXPECT_EVAL(EvaluateRoot("f16[2] exponential(p0)", {L("f16[2]", "{12, -20}")}),
              L("f16[2]", "{inf, 0}"));
}

TEST(EvaluatorElementwiseTest, ComplexFunctions) {
  EXPECT_EVAL_NEAR(EvaluateRoot("c128[3] exponential-minus-one(p0)",
                                {L("c128[3]", "{(1e-10, 0), (0, 3.141592653589793), (0, 0)}")}),
                   L("c128[3]", "{(1.00000000005e-10, 0), (-2, 0), (0, 0)}"), 1e-12, 1e-15);
  EXPECT_EVAL_NEAR(EvaluateRoot("c128[3] log-plus-one(p0)",
                                {L("c128[3]", "{(1e-10, 0), (0, 1), (-2, 0)}")}),
                   L("c128[3]", "{(9.9999999995e-11, 0), (0.34657359027997264, 0.7853981633974483), "
                                "(0, 3.141592653589793)}"),
                   1e-12, 1e-15);
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[2] log(p0)", {L("c64[2]", "{(-1, 0), (0, 1)}")}),
                   L("c64[2]", "{(0, 3.14159265), (0, 1.57079633)}"), 1e-6, 1e-7);
  EXPECT_EVAL_NEAR(EvaluateRoot("c128[4] power(p0, p1)",
                                {L("c128[4]", "{(0, 0), (1, 0), (2, 0), (0, 1)}"),
                                 L("c128[4]", "{(0, 0), (nan, nan), (2, 0), (2, 0)}")}),
                   L("c128[4]", "{(1, 0), (1, 0), (4, 0), (-1, 0)}"), 1e-12, 1e-12);
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[1] atan2(p0, p1)", {L("c64[1]", "{(1, 0)}"), L("c64[1]", "{(1, 0)}")}),
                   L("c64[1]", "{(0.785398163, 0)}"), 1e-6, 1e-6);
  EXPECT_EVAL_NEAR(EvaluateRoot("c64[1] tanh(p0)", {L("c64[1]", "{(0, 0.785398163)}")}),
                   L("c64[1]", "{(0, 1)}"), 1e-6, 1e-6);
  EXPECT_EVAL(EvaluateRoot("f64[2] abs(p0)", {L("c128[2]", "{(inf, nan), (-0, -0)}")}),
              L("f64[2]", "{inf, 0}"));
  // Complex numbers have no order: only EQ and NE compare them.
  EXPECT_FALSE(EvaluateRoot("pred[1] compare(p0, p1), direction=LT",
                            {L("c64[1]", "{(1, 0)}"), L("c64[1]", "{(2, 0)}")})
                   .ok());
}

TEST(EvaluatorElementwiseTest, ClampEdges) {
  // Scalar bounds broadcast; NaN anywhere gives NaN; integer bounds in any
  // order give min(max(x, lo), hi).
  EXPECT_EVAL(EvaluateRoot("f32[4] clamp(p0, p1, p2)",
                           {L("f32[]", "-1"), L("f32[4]", "{-inf, inf, nan, 0.5}"), L("f32[]", "1")}),
              L("f32[4]", "{-1, 1, nan, 0.5}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] clamp(p0, p1, p2)",
                           {L("f32[]", "nan"), L("f32[2]", "{0, 1}"), L("f32[]", "1")}),
              L("f32[2]", "{nan, nan}"));
  EXPECT_EVAL(EvaluateRoot("u8[3] clamp(p0, p1, p2)",
                           {L("u8[]", "10"), L("u8[3]", "{0, 255, 20}"), L("u8[]", "200")}),
              L("u8[3]", "{10, 200, 20}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] clamp(p0, p1, p2)",
                           {L("s32[]", "5"), L("s32[2]", "{0, 9}"), L("s32[]", "3")}),
              L("s32[2]", "{3, 3}"));
  EXPECT_EVAL(EvaluateRoot("f32[] clamp(p0, p1, p2)", {L("f32[]", "0"), L("f32[]", "7"), L("f32[]", "2")}),
              L("f32[]", "2"));
}

TEST(EvaluatorElementwiseTest, SelectWithAScalarPredicateAndOtherTypes) {
  EXPECT_EVAL(EvaluateRoot("s8[3] select(p0, p1, p2)",
                           {L("pred[]", "false"), L("s8[3]", "{1, 2, 3}"), L("s8[3]", "{-1, -2, -3}")}),
              L("s8[3]", "{-1, -2, -3}"));
  EXPECT_EVAL(EvaluateRoot("c64[2] select(p0, p1, p2)",
                           {L("pred[2]", "{0, 1}"), L("c64[2]", "{(1, 1), (2, 2)}"),
                            L("c64[2]", "{(3, 3), (4, 4)}")}),
              L("c64[2]", "{(3, 3), (2, 2)}"));
  // Select picks values, NaN payloads and signed zeros included.
  EXPECT_EVAL(EvaluateRoot("f32[2] select(p0, p1, p2)",
                           {L("pred[2]", "{1, 1}"), L("f32[2]", "{-0, -nan}"), L("f32[2]", "{0, 0}")}),
              L("f32[2]", "{-0, -nan}"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
