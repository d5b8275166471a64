// Tests for Literal: construction and layouts, element access, XLA's
// `convert` semantics (saturation, wrapping, single rounding to f16/bf16),
// equality, and the HLO text form of values, including an exhaustive check
// that every f16 and bf16 prints as text that reads back to the same bits.
#include "hlo/ir/literal.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

template <typename T>
std::string Text(T value) {
  return Literal::CreateR0<T>(value).ToStringWithoutShape();
}

template <typename Dst, typename Src>
std::vector<Dst> ConvertAll(std::initializer_list<Src> values) {
  Literal converted = Literal::CreateR1<Src>(values).Convert(PrimitiveTypeOf<Dst>()).value();
  auto data = converted.data<Dst>();
  return std::vector<Dst>(data.begin(), data.end());
}

template <typename Dst, typename Src>
uint16_t ConvertBits(Src value) {
  return Literal::CreateR0<Src>(value)
      .Convert(PrimitiveTypeOf<Dst>())
      .value()
      .template data<Dst>()[0]
      .bits;
}

float FloatFromBits(uint32_t bits) { return std::bit_cast<float>(bits); }
double DoubleFromBits(uint64_t bits) { return std::bit_cast<double>(bits); }

// --- construction and access -------------------------------------------------

TEST(LiteralTest, ShapeWithoutLayoutGetsDescendingLayoutAndZeros) {
  Literal literal(Shape::MakeArray(F32, {2, 3}));
  ASSERT_TRUE(literal.shape().has_layout());
  EXPECT_EQ(literal.shape().layout().minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(literal.element_count(), 6);
  EXPECT_EQ(literal.size_bytes(), 24);
  for (float v : literal.data<float>()) EXPECT_EQ(v, 0.0f);
}

TEST(LiteralTest, TupleShapeGetsLayoutsOnEveryLeaf) {
  Literal literal(Shape::MakeTuple(
      {Shape::MakeArray(S32, {4}), Shape::MakeTuple({Shape::MakeArray(PRED, {2, 2})})}));
  ASSERT_EQ(literal.tuple_size(), 2);
  EXPECT_EQ(literal.shape().ToString(true), "(s32[4]{0}, (pred[2,2]{1,0}))");
  EXPECT_EQ(literal.tuple_element(1).tuple_element(0).size_bytes(), 4);  // 1 byte per pred
  EXPECT_EQ(literal.Leaves().size(), 2u);
}

TEST(LiteralTest, DefaultIsEmptyTupleAndTokenHasNoData) {
  Literal empty;
  EXPECT_TRUE(empty.shape().IsTuple());
  EXPECT_EQ(empty.tuple_size(), 0);
  EXPECT_EQ(empty.ToStringWithoutShape(), "(  )");
  Literal token = Literal::CreateToken();
  EXPECT_TRUE(token.shape().IsToken());
  EXPECT_EQ(token.size_bytes(), 0);
  EXPECT_EQ(token.ToStringWithoutShape(), "token");
  EXPECT_EQ(token, Literal::CreateToken());
}

TEST(LiteralTest, CreateFromShapeRejectsShapesWithoutDataSize) {
  EXPECT_TRUE(Literal::CreateFromShape(Shape::MakeArray(F32, {2, 0})).ok());
  Shape unbounded = Shape::MakeArray(F32, {Shape::kUnboundedSize});
  EXPECT_THAT(Literal::CreateFromShape(unbounded).status().message(), HasSubstr("unbounded"));
  EXPECT_THAT(Literal::CreateFromShape(Shape::MakeArray(F32, {3, -1})).status().message(),
              HasSubstr("negative dimension -1"));
  EXPECT_THAT(Literal::CreateFromShape(Shape::MakeArray(C128, {int64_t{1} << 40, int64_t{1} << 30}))
                  .status()
                  .message(),
              HasSubstr("overflows"));
  EXPECT_THAT(Literal::CreateFromShape(
                  Shape::MakeTuple({Shape::MakeArray(S8, {1}), Shape::MakeArray(S8, {-2})}))
                  .status()
                  .message(),
              HasSubstr("negative"));
}

TEST(LiteralTest, DynamicShapeHoldsItsBound) {
  Shape shape = Shape::MakeArray(S32, {4});
  shape.set_dynamic_dimension(0, true);
  Literal literal(shape);
  EXPECT_EQ(literal.element_count(), 4);
  EXPECT_EQ(literal.ToString(), "s32[<=4]{0} {0, 0, 0, 0}");
}

TEST(LiteralTest, CreateHelpersAndIndexing) {
  Literal r2 = Literal::CreateFromVector<int32_t>({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(r2.LinearIndex({1, 2}), 5);
  EXPECT_EQ(r2.Get<int32_t>({1, 0}), 4);
  r2.Set<int32_t>({0, 1}, 20);
  EXPECT_EQ(r2.data<int32_t>()[1], 20);
  Literal r1 = Literal::CreateR1<float>({1.5f, 2.5f});
  EXPECT_EQ(r1.shape().ToString(true), "f32[2]{0}");
  EXPECT_EQ(Literal::CreateR0<bool>(true).data<bool>()[0], true);
}

TEST(LiteralTest, SetLayoutChangesMetadataOnly) {
  Literal literal = Literal::CreateFromVector<float>({2, 2}, std::vector<float>{1, 2, 3, 4});
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  literal.set_layout(column_major);
  EXPECT_EQ(literal.shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(literal.Get<float>({0, 1}), 2.0f);  // data stays row-major
  EXPECT_EQ(literal.ToString(), "f32[2,2]{0,1} { { 1, 2 }, { 3, 4 } }");
}

TEST(LiteralTest, GenericGettersConvert) {
  Literal u64 = Literal::CreateR1<uint64_t>({std::numeric_limits<uint64_t>::max(), 7});
  EXPECT_EQ(u64.GetAsInt64(0), -1);  // wraps as convert does
  EXPECT_EQ(u64.GetAsDouble(1), 7.0);
  Literal f16 = Literal::CreateR1<half>({half(1.5f), half(-2.0f)});
  EXPECT_EQ(f16.GetAsDouble(0), 1.5);
  EXPECT_EQ(f16.GetAsInt64(1), -2);
  EXPECT_EQ(f16.GetAsComplex(0), complex128(1.5, 0));
  Literal c64 = Literal::CreateR0<complex64>(complex64(3.5f, -1.0f));
  EXPECT_EQ(c64.GetAsComplex(0), complex128(3.5, -1.0));
  EXPECT_EQ(c64.GetAsDouble(0), 3.5);  // the real part
  Literal pred = Literal::CreateR1<bool>({true, false});
  EXPECT_EQ(pred.GetAsInt64(0), 1);
  EXPECT_EQ(pred.GetAsDouble(1), 0.0);
  Literal f32 = Literal::CreateR0<float>(std::nanf(""));
  EXPECT_EQ(f32.GetAsInt64(0), 0);
}

TEST(LiteralTest, GenericSettersConvert) {
  Literal s32(Shape::MakeArray(S32, {3}));
  s32.SetFromDouble(0, 1e20);  // saturates instead of undefined behaviour
  s32.SetFromDouble(1, -2.9);
  s32.SetFromComplex(2, complex128(7.9, 100));
  EXPECT_THAT(s32.data<int32_t>(), ::testing::ElementsAre(2147483647, -2, 7));
  Literal f16(Shape::MakeArray(F16, {2}));
  f16.SetFromInt64(0, 2049);  // ties to even: 2048
  f16.SetFromDouble(1, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  EXPECT_EQ(f16.data<half>()[0].bits, 0x6800);
  EXPECT_EQ(f16.data<half>()[1].bits, 0x3c01);
  Literal c128(Shape::MakeArray(C128, {1}));
  c128.SetFromDouble(0, 2.5);
  EXPECT_EQ(c128.data<complex128>()[0], complex128(2.5, 0));
  Literal pred(Shape::MakeArray(PRED, {2}));
  pred.SetFromInt64(0, 5);
  pred.SetFromDouble(1, 0.0);
  EXPECT_THAT(pred.data<bool>(), ::testing::ElementsAre(true, false));
}

TEST(LiteralTest, TuplesDecomposeAndCompare) {
  Literal tuple = Literal::MakeTuple(
      {Literal::CreateR0<float>(1), Literal::MakeTuple({Literal::CreateR1<int32_t>({2, 3})})});
  EXPECT_EQ(tuple.shape().ToString(), "(f32[], (s32[2]))");
  std::vector<const Literal*> leaves = tuple.Leaves();
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[1]->data<int32_t>()[1], 3);
  Literal copy = tuple;
  EXPECT_EQ(copy, tuple);
  copy.mutable_tuple_element(0).data<float>()[0] = 2;
  EXPECT_NE(copy, tuple);
  std::vector<Literal> parts = tuple.DecomposeTuple();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], Literal::CreateR0<float>(1));
  EXPECT_EQ(tuple.tuple_size(), 0);
  EXPECT_TRUE(tuple.shape().IsTuple());
}

// --- equality -----------------------------------------------------------------

TEST(LiteralTest, EqualityIgnoresLayoutButNotBits) {
  Literal a = Literal::CreateFromVector<float>({2, 2}, std::vector<float>{1, 2, 3, 4});
  Literal b = a;
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  b.set_layout(column_major);
  EXPECT_EQ(a, b);
  EXPECT_NE(Literal::CreateR0<float>(0.0f), Literal::CreateR0<float>(-0.0f));
  EXPECT_EQ(Literal::CreateR0<float>(std::nanf("")), Literal::CreateR0<float>(std::nanf("")));
  EXPECT_NE(Literal::CreateR0<float>(1), Literal::CreateR0<double>(1));
  EXPECT_NE(Literal::CreateFromVector<int32_t>({2, 3}, std::vector<int32_t>(6, 0)),
            Literal::CreateFromVector<int32_t>({3, 2}, std::vector<int32_t>(6, 0)));
  EXPECT_NE(Literal::MakeTuple({Literal::CreateR0<int32_t>(1)}), Literal::CreateR0<int32_t>(1));
}

// --- convert ------------------------------------------------------------------

TEST(LiteralConvertTest, FloatToIntTruncatesSaturatesAndMapsNanToZero) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(
      (ConvertAll<int32_t, float>({1.9f, -1.9f, 3e9f, -3e9f, std::nanf(""), inf, -inf})),
      ::testing::ElementsAre(1, -1, 2147483647, -2147483647 - 1, 0, 2147483647, -2147483647 - 1));
  EXPECT_THAT((ConvertAll<uint8_t, float>({-5.0f, 300.0f, 255.9f, 0.5f})),
              ::testing::ElementsAre(0, 255, 255, 0));
  EXPECT_THAT(
      (ConvertAll<int64_t, double>({1e19, -1e19, 9.2e18})),
      ::testing::ElementsAre(std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min(), int64_t{9200000000000000000}));
  EXPECT_THAT((ConvertAll<uint64_t, float>({-1.0f, 2e19f})),
              ::testing::ElementsAre(0u, std::numeric_limits<uint64_t>::max()));
  EXPECT_THAT((ConvertAll<int8_t, half>({half(-200.0f), half(99.75f)})),
              ::testing::ElementsAre(-128, 99));
}

TEST(LiteralConvertTest, IntToIntWraps) {
  EXPECT_THAT((ConvertAll<int8_t, int32_t>({300, -129, 127})),
              ::testing::ElementsAre(44, 127, 127));
  EXPECT_THAT((ConvertAll<int32_t, uint32_t>({0xffffffffu})), ::testing::ElementsAre(-1));
  EXPECT_THAT((ConvertAll<uint8_t, int32_t>({-1})), ::testing::ElementsAre(255));
  EXPECT_THAT((ConvertAll<uint64_t, int8_t>({-1})),
              ::testing::ElementsAre(std::numeric_limits<uint64_t>::max()));
}

TEST(LiteralConvertTest, PredConversions) {
  EXPECT_THAT((ConvertAll<bool, int32_t>({0, 5, -1})), ::testing::ElementsAre(false, true, true));
  EXPECT_THAT((ConvertAll<bool, float>({0.0f, -0.0f, 0.5f, std::nanf("")})),
              ::testing::ElementsAre(false, false, true, true));
  EXPECT_THAT((ConvertAll<float, bool>({true, false})), ::testing::ElementsAre(1.0f, 0.0f));
  EXPECT_THAT((ConvertAll<int32_t, bool>({true, false})), ::testing::ElementsAre(1, 0));
  EXPECT_THAT((ConvertAll<bool, complex64>({complex64(0, 1), complex64(0, 0)})),
              ::testing::ElementsAre(true, false));
}

TEST(LiteralConvertTest, FloatNarrowingRoundsToNearestEven) {
  EXPECT_EQ((ConvertBits<half, float>(65520.0f)), 0x7c00);  // halfway to 65536: inf
  EXPECT_EQ((ConvertBits<half, float>(65519.0f)), 0x7bff);
  EXPECT_EQ((ConvertBits<half, float>(1.0f + std::ldexp(1.0f, -11))), 0x3c00);
  EXPECT_EQ((ConvertBits<half, float>(1.0f + 3 * std::ldexp(1.0f, -11))), 0x3c02);
  EXPECT_EQ((ConvertBits<bfloat16, float>(1.0f + std::ldexp(1.0f, -8))), 0x3f80);
  EXPECT_EQ((ConvertBits<bfloat16, float>(1.0f + 3 * std::ldexp(1.0f, -8))), 0x3f82);
  EXPECT_EQ((ConvertAll<float, double>({0.1}))[0], 0.1f);
}

// f64 -> f16/bf16 rounds once: going through the nearest f32 first would land
// exactly on the f16 midpoint and then round to even, the wrong way.
TEST(LiteralConvertTest, F64ToSmallFloatsDoesNotDoubleRound) {
  const double above_half_midpoint = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  ASSERT_EQ(half(static_cast<float>(above_half_midpoint)).bits, 0x3c00);  // the naive path
  EXPECT_EQ((ConvertBits<half, double>(above_half_midpoint)), 0x3c01);
  const double below_half_midpoint = 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40);
  EXPECT_EQ((ConvertBits<half, double>(below_half_midpoint)), 0x3c00);
  EXPECT_EQ((ConvertBits<bfloat16, double>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40))),
            0x3f81);
  // In the f16 subnormal range.
  EXPECT_EQ((ConvertBits<half, double>(std::ldexp(1.0, -25) + std::ldexp(1.0, -60))), 0x0001);
  EXPECT_EQ((ConvertBits<half, double>(std::ldexp(1.0, -25))), 0x0000);
  // Beyond f32's range in both directions.
  EXPECT_EQ((ConvertBits<half, double>(1e-300)), 0x0000);
  EXPECT_EQ((ConvertBits<half, double>(-1e-300)), 0x8000);
  EXPECT_EQ((ConvertBits<half, double>(1e300)), 0x7c00);
  EXPECT_EQ((ConvertBits<bfloat16, double>(-1e300)), 0xff80);
  EXPECT_EQ((ConvertBits<bfloat16, double>(1e-300)), 0x0000);
  // NaN stays NaN, infinities stay infinities.
  EXPECT_EQ((ConvertBits<half, double>(std::nan(""))) & 0x7e00, 0x7e00);
  EXPECT_EQ((ConvertBits<bfloat16, double>(-std::numeric_limits<double>::infinity())), 0xff80);
}

TEST(LiteralConvertTest, WideIntegersToSmallFloatsRoundOnce) {
  // 2^24 + 2^16 + 1 lies just above the bf16 midpoint; via f32 it would tie.
  EXPECT_EQ((ConvertBits<bfloat16, int32_t>(16842753)), 0x4b81);
  EXPECT_EQ((ConvertBits<bfloat16, int32_t>(16842752)), 0x4b80);
  EXPECT_EQ((ConvertBits<bfloat16, int64_t>((int64_t{1} << 62) + (int64_t{1} << 54) + 1)), 0x5e81);
  EXPECT_EQ((ConvertBits<bfloat16, uint64_t>(std::numeric_limits<uint64_t>::max())), 0x5f80);
  EXPECT_EQ((ConvertBits<half, int64_t>(2049)), 0x6800);
  EXPECT_EQ((ConvertBits<half, int64_t>(-2051)), 0xe802);
  EXPECT_EQ((ConvertBits<half, uint32_t>(70000)), 0x7c00);
  EXPECT_EQ((ConvertBits<half, int8_t>(-128)), 0xd800);
}

TEST(LiteralConvertTest, SmallFloatsWidenExactly) {
  EXPECT_EQ((ConvertAll<float, half>({half::FromBits(0x0001)}))[0], std::ldexp(1.0f, -24));
  EXPECT_EQ((ConvertAll<double, bfloat16>({bfloat16::FromBits(0x3f81)}))[0], 1.0078125);
  EXPECT_EQ((ConvertBits<half, bfloat16>(bfloat16::FromBits(0x3f81))), 0x3c08);
  EXPECT_EQ((ConvertBits<bfloat16, half>(half::FromBits(0x3c01))), 0x3f80);  // ties to even
}

TEST(LiteralConvertTest, ComplexConversions) {
  EXPECT_THAT((ConvertAll<complex64, float>({1.5f})), ::testing::ElementsAre(complex64(1.5f, 0)));
  EXPECT_THAT((ConvertAll<float, complex64>({complex64(2.5f, 9)})), ::testing::ElementsAre(2.5f));
  EXPECT_THAT((ConvertAll<int32_t, complex128>({complex128(3e10, 1)})),
              ::testing::ElementsAre(2147483647));
  EXPECT_THAT((ConvertAll<complex64, complex128>({complex128(0.1, -0.1)})),
              ::testing::ElementsAre(complex64(0.1f, -0.1f)));
  EXPECT_THAT((ConvertAll<complex128, int32_t>({-4})), ::testing::ElementsAre(complex128(-4, 0)));
  EXPECT_EQ((ConvertBits<half, complex128>(
                complex128(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 5))),
            0x3c01);
}

TEST(LiteralConvertTest, KeepsDimensionsAndLayout) {
  Literal literal = Literal::CreateFromVector<int32_t>({2, 1}, std::vector<int32_t>{1, 2});
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  literal.set_layout(column_major);
  Literal converted = literal.Convert(F64).value();
  EXPECT_EQ(converted.shape().ToString(true), "f64[2,1]{0,1}");
  EXPECT_EQ(converted.ToStringWithoutShape(), "{ {1}, {2} }");
  EXPECT_EQ(literal.Convert(S32).value(), literal);
}

TEST(LiteralConvertTest, NonArraysAreErrors) {
  EXPECT_THAT(Literal::MakeTuple({}).Convert(F32).status().message(), HasSubstr("only arrays"));
  EXPECT_THAT(Literal::CreateToken().Convert(F32).status().message(), HasSubstr("token[]"));
  EXPECT_FALSE(Literal(Shape(OPAQUE_TYPE, {})).Convert(S32).ok());
  EXPECT_THAT(Literal::CreateR0<float>(1).Convert(TUPLE).status().message(),
              HasSubstr("not an array element type"));
  EXPECT_FALSE(Literal::CreateR0<float>(1).Convert(TOKEN).ok());
}

// --- text form -------------------------------------------------------------------

TEST(LiteralTextTest, Scalars) {
  EXPECT_EQ(Text<float>(1.5f), "1.5");
  EXPECT_EQ(Text<int32_t>(-7), "-7");
  EXPECT_EQ(Text<int8_t>(-128), "-128");
  EXPECT_EQ(Text<uint8_t>(255), "255");
  EXPECT_EQ(Text<uint64_t>(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(Text<int64_t>(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(Text<bool>(true), "true");
  EXPECT_EQ(Text<bool>(false), "false");
  EXPECT_EQ(Text<complex64>(complex64(1, -2.5f)), "(1, -2.5)");
  EXPECT_EQ(Text<complex128>(complex128(0.1, 1e300)), "(0.1, 1e+300)");
}

TEST(LiteralTextTest, ArraysFollowXlaOneLineForm) {
  EXPECT_EQ(Literal::CreateR1<int32_t>({1, 2, 3}).ToStringWithoutShape(), "{1, 2, 3}");
  EXPECT_EQ(Literal::CreateR1<bool>({true, false}).ToStringWithoutShape(), "{1, 0}");
  EXPECT_EQ(Literal::CreateR1<complex64>({{1, 2}, {3, 4}}).ToStringWithoutShape(),
            "{(1, 2), (3, 4)}");
  auto r = [](std::vector<int64_t> dims, int n) {
    std::vector<int32_t> values(n);
    for (int i = 0; i < n; ++i) values[i] = i + 1;
    return Literal::CreateFromVector<int32_t>(dims, values).ToStringWithoutShape();
  };
  EXPECT_EQ(r({2, 2}, 4), "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EQ(r({2, 1}, 2), "{ {1}, {2} }");
  EXPECT_EQ(r({1, 3}, 3), "{ { 1, 2, 3 } }");
  EXPECT_EQ(r({2, 1, 2}, 4), "{ { { 1, 2 } }, { { 3, 4 } } }");
  EXPECT_EQ(r({1, 1, 1, 2}, 2), "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } } }");
  EXPECT_EQ(r({2, 1, 1, 1}, 2), "{ { /*i0=0*/ { /*i1=0*/ {1} } }, { /*i0=1*/ { /*i1=0*/ {2} } } }");
  EXPECT_EQ(r({1, 0, 1, 1}, 0), "{ { /*i0=0*/ } }");
}

TEST(LiteralTextTest, EmptyArrays) {
  EXPECT_EQ(Literal(Shape::MakeArray(F32, {0})).ToStringWithoutShape(), "{}");
  EXPECT_EQ(Literal(Shape::MakeArray(F32, {2, 0})).ToStringWithoutShape(), "{ {}, {} }");
  EXPECT_EQ(Literal(Shape::MakeArray(F32, {0, 2})).ToStringWithoutShape(), "{  }");
}

TEST(LiteralTextTest, TuplesAndToString) {
  Literal tuple = Literal::MakeTuple({Literal::CreateR0<float>(1),
                                      Literal::MakeTuple({Literal::CreateR1<int32_t>({2, 3})}),
                                      Literal::CreateToken()});
  EXPECT_EQ(tuple.ToStringWithoutShape(), "( 1, ( {2, 3} ), token )");
  EXPECT_EQ(Literal::CreateR1<float>({1, 2}).ToString(), "f32[2]{0} {1, 2}");
  EXPECT_EQ(Literal::MakeTuple({Literal::CreateR1<int32_t>({5})}).ToString(),
            "(s32[1]{0}) ( {5} )");
}

TEST(LiteralTextTest, FloatsPrintShortestRoundTrip) {
  EXPECT_EQ(Text<float>(0.1f), "0.1");
  EXPECT_EQ(Text<float>(1.0f / 3), "0.33333334");
  EXPECT_EQ(Text<float>(100.0f), "100");
  EXPECT_EQ(Text<float>(1e10f), "1e+10");
  EXPECT_EQ(Text<float>(std::numeric_limits<float>::max()), "3.4028235e+38");
  EXPECT_EQ(Text<float>(std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(Text<double>(0.1), "0.1");
  EXPECT_EQ(Text<double>(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(Text<double>(-0.0), "-0");
  EXPECT_EQ(Text<float>(-0.0f), "-0");
  for (float f : {1.17549435e-38f, 123456789.0f, 16777217.0f, 6.02214076e23f, -2.5e-40f}) {
    EXPECT_EQ(std::strtof(Text<float>(f).c_str(), nullptr), f) << Text<float>(f);
  }
}

TEST(LiteralTextTest, InfinitiesAndNans) {
  EXPECT_EQ(Text<float>(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(Text<double>(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(Text<float>(FloatFromBits(0x7fc00000)), "nan");
  EXPECT_EQ(Text<float>(FloatFromBits(0xffc00000)), "-nan");
  EXPECT_EQ(Text<float>(FloatFromBits(0x7fc00001)), "nan(0x400001)");
  EXPECT_EQ(Text<float>(FloatFromBits(0x7f800001)), "nan(0x1)");
  EXPECT_EQ(Text<double>(DoubleFromBits(0x7ff8000000000000)), "nan");
  EXPECT_EQ(Text<double>(DoubleFromBits(0xfff8000000000001)), "-nan(0x8000000000001)");
  EXPECT_EQ(Text<half>(half::FromBits(0x7e00)), "nan");
  EXPECT_EQ(Text<half>(half::FromBits(0xfe00)), "-nan");
  EXPECT_EQ(Text<half>(half::FromBits(0x7e01)), "nan(0x201)");
  EXPECT_EQ(Text<half>(half::FromBits(0x7c01)), "nan(0x1)");
  EXPECT_EQ(Text<half>(half::FromBits(0x7c00)), "inf");
  EXPECT_EQ(Text<bfloat16>(bfloat16::FromBits(0x7fc0)), "nan");
  EXPECT_EQ(Text<bfloat16>(bfloat16::FromBits(0x7fc1)), "nan(0x41)");
  EXPECT_EQ(Text<bfloat16>(bfloat16::FromBits(0xff80)), "-inf");
  EXPECT_EQ(Text<complex64>(complex64(std::nanf(""), -std::numeric_limits<float>::infinity())),
            "(nan, -inf)");
}

TEST(LiteralTextTest, SixteenBitFloatsPrintShortest) {
  EXPECT_EQ(Text<half>(half(0.1f)), "0.1");
  EXPECT_EQ(Text<half>(half(1.0f / 3)), "0.3333");
  EXPECT_EQ(Text<half>(half(65504.0f)), "65500");  // the max half: 65500 reads back to it
  EXPECT_EQ(Text<half>(half::FromBits(0x0001)), "6e-08");
  EXPECT_EQ(Text<half>(half::FromBits(0x8000)), "-0");
  EXPECT_EQ(Text<half>(half(-1.5f)), "-1.5");
  EXPECT_EQ(Text<bfloat16>(bfloat16(0.1f)), "0.1");
  EXPECT_EQ(Text<bfloat16>(bfloat16(1.0f / 3)), "0.334");
  EXPECT_EQ(Text<bfloat16>(bfloat16(256.0f)), "256");
  EXPECT_EQ(Literal::CreateR1<half>({half(1), half(2.5f)}).ToStringWithoutShape(), "{1, 2.5}");
}

// Every finite f16 and bf16 prints as text that reads back (as a double
// rounded once, and also through f32) to the same bits, and no shorter
// significand would do.
template <typename T>
void CheckAllSixteenBitValuesRoundTrip() {
  const PrimitiveType type = PrimitiveTypeOf<T>();
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const T value = T::FromBits(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(value);
    if (std::isnan(f)) continue;
    const std::string text = Text<T>(value);
    const double parsed = std::strtod(text.c_str(), nullptr);
    ASSERT_EQ(Literal::CreateR0<double>(parsed).Convert(type).value().template data<T>()[0].bits,
              bits)
        << text;
    ASSERT_EQ(T(std::strtof(text.c_str(), nullptr)).bits, bits) << text;
    if (std::isinf(f) || f == 0) continue;
    // Shortness: rounding the value to one digit fewer must not round-trip.
    std::string digits;
    for (char c : text.substr(0, text.find('e'))) {
      if (c >= '0' && c <= '9') digits.push_back(c);
    }
    digits.erase(0, digits.find_first_not_of('0'));
    digits.erase(digits.find_last_not_of('0') + 1);
    const size_t significant = digits.size();
    if (significant <= 1) continue;
    char shorter[64];
    std::snprintf(shorter, sizeof(shorter), "%.*e", static_cast<int>(significant) - 2,
                  static_cast<double>(f));
    const double candidate = std::strtod(shorter, nullptr);
    ASSERT_NE(Literal::CreateR0<double>(candidate).Convert(type).value().template data<T>()[0].bits,
              bits)
        << text << " vs " << shorter;
  }
}

TEST(LiteralTextTest, EveryHalfRoundTrips) { CheckAllSixteenBitValuesRoundTrip<half>(); }
TEST(LiteralTextTest, EveryBfloat16RoundTrips) { CheckAllSixteenBitValuesRoundTrip<bfloat16>(); }

}  // namespace
}  // namespace tessera
