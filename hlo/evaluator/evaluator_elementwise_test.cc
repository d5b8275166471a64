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
  EXPECT_EVAL(EvaluateRoot("s32[9] power(p0, p1)",
                           {L("s32[9]", "{2, 3, -2, 1, -1, -1, 5, 0, 2}"),
                            L("s32[9]", "{10, 3, 3, -5, -3, -2, -1, 0, 32}")}),
              L("s32[9]", "{1024, 27, -8, 1, -1, 1, 0, 1, 0}"));
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

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
