// Tests for the value types under every HLO value: PrimitiveType, Layout,
// Shape (their HLO text forms, sub-shapes, sizes, comparisons) and the two
// 16-bit floats (rounding at every boundary, exhaustive round trips).
#include "hlo/ir/shape.h"

#include <bit>
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/float16.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

// --- PrimitiveType ------------------------------------------------------------------

TEST(PrimitiveTypeTest, NamesParseBack) {
  for (int32_t value = 1; value < 40; ++value) {
    if (!IsKnownPrimitiveType(value)) continue;
    const PrimitiveType type = static_cast<PrimitiveType>(value);
    EXPECT_EQ(ParsePrimitiveType(PrimitiveTypeName(type)).value(), type) << value;
  }
  EXPECT_EQ(PrimitiveTypeName(BF16), "bf16");
  EXPECT_EQ(PrimitiveTypeName(OPAQUE_TYPE), "opaque");
  EXPECT_EQ(PrimitiveTypeName(F8E4M3FNUZ), "f8e4m3fnuz");
  EXPECT_EQ(ParsePrimitiveType("f8e4m3fn").value(), F8E4M3FN);
  EXPECT_EQ(PrimitiveTypeName(static_cast<PrimitiveType>(21)), "invalid");  // S4
  EXPECT_FALSE(ParsePrimitiveType("f8").ok());
  EXPECT_FALSE(ParsePrimitiveType("s4").ok());
  EXPECT_FALSE(ParsePrimitiveType("invalid").ok());
  EXPECT_TRUE(IsKnownPrimitiveType(F8E5M2));
  EXPECT_FALSE(IsKnownPrimitiveType(21));
  EXPECT_FALSE(IsKnownPrimitiveType(30));
  EXPECT_FALSE(IsKnownPrimitiveType(-1));
}

TEST(PrimitiveTypeTest, Classification) {
  EXPECT_TRUE(IsArrayType(PRED));
  EXPECT_FALSE(IsArrayType(TUPLE));
  EXPECT_FALSE(IsArrayType(TOKEN));
  EXPECT_FALSE(IsArrayType(PRIMITIVE_TYPE_INVALID));
  EXPECT_TRUE(IsFloatingPointType(BF16));
  EXPECT_FALSE(IsFloatingPointType(C64));
  EXPECT_TRUE(IsComplexType(C128));
  EXPECT_TRUE(IsSignedIntegralType(S8));
  EXPECT_TRUE(IsUnsignedIntegralType(U64));
  EXPECT_FALSE(IsIntegralType(PRED));
  EXPECT_EQ(BitWidth(PRED), 8);
  EXPECT_EQ(BitWidth(C128), 128);
  EXPECT_EQ(ByteWidth(F16), 2);
  EXPECT_EQ(ByteWidth(TUPLE), 0);
  EXPECT_EQ(ComplexComponentType(C64), F32);
  EXPECT_EQ(ComplexComponentType(C128), F64);
  EXPECT_EQ(ComplexComponentType(F32), PRIMITIVE_TYPE_INVALID);
}

// --- Layout -------------------------------------------------------------------

TEST(LayoutTest, DescendingAndToString) {
  EXPECT_THAT(Layout::Descending(3).minor_to_major, ElementsAre(2, 1, 0));
  EXPECT_TRUE(Layout::Descending(3).IsDescending());
  EXPECT_TRUE(Layout::Descending(0).IsDescending());
  EXPECT_EQ(Layout::Descending(2).ToString(), "{1,0}");
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  EXPECT_FALSE(column_major.IsDescending());
  EXPECT_EQ(column_major.ToString(), "{0,1}");
}

TEST(LayoutTest, TiledLayouts) {
  Layout layout = Layout::Descending(2);
  layout.tiles.push_back(Tile{{8, 128}});
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)}");
  EXPECT_FALSE(layout.IsDescending());
  layout.tiles.push_back(Tile{{2, 1}});
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)}");
  Layout combined = Layout::Descending(1);
  combined.tiles.push_back(Tile{{Tile::kCombineDimension, 4}});
  EXPECT_EQ(combined.ToString(), "{0:T(*,4)}");
  Layout extras = Layout::Descending(2);
  extras.element_size_in_bits = 4;
  extras.memory_space = 1;
  EXPECT_EQ(extras.ToString(), "{1,0:E(4)S(1)}");
  layout.memory_space = 2;
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)S(2)}");
  EXPECT_NE(layout, Layout::Descending(2));
}

// --- Shape ----------------------------------------------------------------------

TEST(ShapeTest, ArrayToString) {
  Shape shape = Shape::MakeArrayWithDescendingLayout(F32, {2, 3});
  EXPECT_EQ(shape.ToString(), "f32[2,3]");
  EXPECT_EQ(shape.ToString(/*print_layout=*/true), "f32[2,3]{1,0}");
  EXPECT_EQ(Shape::MakeArray(PRED, {}).ToString(true), "pred[]");  // no layout: none printed
  EXPECT_EQ(Shape::MakeArray(U8, {0}).ToString(), "u8[0]");
  EXPECT_EQ(Shape::MakeToken().ToString(), "token[]");
}

TEST(ShapeTest, TupleToString) {
  Shape tuple = Shape::MakeTuple({Shape::MakeArray(F32, {}), Shape::MakeArray(S32, {2})});
  EXPECT_EQ(tuple.ToString(), "(f32[], s32[2])");
  Shape nested = Shape::MakeTuple({Shape::MakeArrayWithDescendingLayout(F32, {2, 3}),
                                   Shape::MakeTuple({}), Shape::MakeToken()});
  EXPECT_EQ(nested.ToString(true), "(f32[2,3]{1,0}, (), token[])");
  EXPECT_EQ(Shape::MakeTuple({}).ToString(), "()");
}

TEST(ShapeTest, DynamicDimensions) {
  Shape shape = Shape::MakeArray(F32, {4, 3});
  EXPECT_TRUE(shape.is_static());
  shape.set_dynamic_dimension(0, true);
  EXPECT_EQ(shape.ToString(), "f32[<=4,3]");
  EXPECT_FALSE(shape.is_static());
  EXPECT_TRUE(shape.is_dynamic_dimension(0));
  EXPECT_FALSE(shape.is_dynamic_dimension(1));
  shape.add_dimension(5);
  EXPECT_EQ(shape.ToString(), "f32[<=4,3,5]");
  EXPECT_FALSE(shape.is_dynamic_dimension(2));
  shape.set_dynamic_dimension(0, false);
  EXPECT_TRUE(shape.is_static());
  EXPECT_EQ(Shape::MakeArray(F32, {Shape::kUnboundedSize, 2}).ToString(), "f32[?,2]");
  EXPECT_FALSE(Shape::MakeArray(F32, {Shape::kUnboundedSize}).is_static());
  Shape tuple = Shape::MakeTuple({Shape::MakeArray(S32, {1}), shape});
  EXPECT_TRUE(tuple.is_static());
  tuple.mutable_tuple_shapes(1)->set_dynamic_dimension(1, true);
  EXPECT_FALSE(tuple.is_static());
  // Dynamic-ness is part of equality.
  Shape a = Shape::MakeArray(S32, {2});
  Shape b = a;
  b.set_dynamic_dimension(0, true);
  EXPECT_NE(a, b);
}

TEST(ShapeTest, Subshape) {
  Shape inner = Shape::MakeTuple({Shape::MakeArray(S32, {2}), Shape::MakeArray(F16, {})});
  Shape shape = Shape::MakeTuple({Shape::MakeArray(F32, {3}), inner});
  EXPECT_EQ(shape.Subshape({}), &shape);
  EXPECT_EQ(shape.Subshape({1})->ToString(), "(s32[2], f16[])");
  EXPECT_EQ(shape.Subshape({1, 1})->ToString(), "f16[]");
  EXPECT_EQ(shape.Subshape({2}), nullptr);
  EXPECT_EQ(shape.Subshape({-1}), nullptr);
  EXPECT_EQ(shape.Subshape({0, 0}), nullptr);  // an array has no elements
  shape.MutableSubshape({1, 0})->set_dimensions(0, 7);
  EXPECT_EQ(shape.ToString(), "(f32[3], (s32[7], f16[]))");
}

TEST(ShapeTest, ElementCountAndByteSize) {
  EXPECT_EQ(Shape::MakeArray(F32, {2, 3}).ElementCount(), 6);
  EXPECT_EQ(Shape::MakeArray(F32, {2, 3}).ByteSize(), 24);
  EXPECT_EQ(Shape::MakeArray(F32, {}).ElementCount(), 1);
  EXPECT_EQ(Shape::MakeArray(F64, {}).ByteSize(), 8);
  EXPECT_EQ(Shape::MakeArray(PRED, {3}).ByteSize(), 3);
  EXPECT_EQ(Shape::MakeArray(C128, {2}).ByteSize(), 32);
  EXPECT_EQ(Shape::MakeArray(BF16, {5, 0}).ByteSize(), 0);
  EXPECT_EQ(Shape::MakeTuple({Shape::MakeArray(F32, {4})}).ByteSize(), 0);
  EXPECT_EQ(Shape::MakeToken().ByteSize(), 0);
  // Tiling is metadata: ByteSize is the dense size.
  Shape tiled = Shape::MakeArrayWithDescendingLayout(F32, {3, 5});
  tiled.mutable_layout()->tiles.push_back(Tile{{8, 128}});
  EXPECT_EQ(tiled.ByteSize(), 60);
}

TEST(ShapeTest, EqualityAndCompatibility) {
  Shape plain = Shape::MakeArray(F32, {2, 3});
  Shape with_layout = Shape::MakeArrayWithDescendingLayout(F32, {2, 3});
  EXPECT_NE(plain, with_layout);  // a missing layout equals only a missing one
  EXPECT_TRUE(ShapesCompatible(plain, with_layout));
  EXPECT_FALSE(ShapesCompatible(plain, Shape::MakeArray(F32, {3, 2})));
  EXPECT_FALSE(ShapesCompatible(plain, Shape::MakeArray(F16, {2, 3})));
  EXPECT_TRUE(ShapesCompatibleIgnoringFpPrecision(plain, Shape::MakeArray(BF16, {2, 3})));
  EXPECT_FALSE(ShapesCompatibleIgnoringFpPrecision(plain, Shape::MakeArray(S32, {2, 3})));
  EXPECT_TRUE(SameDimensions(plain, Shape::MakeArray(S8, {2, 3})));
  Shape t1 = Shape::MakeTuple({plain, Shape::MakeArray(S32, {})});
  Shape t2 = Shape::MakeTuple({with_layout, Shape::MakeArray(S32, {})});
  EXPECT_TRUE(ShapesCompatible(t1, t2));
  EXPECT_NE(t1, t2);
  EXPECT_FALSE(ShapesCompatible(t1, Shape::MakeTuple({plain})));
  EXPECT_FALSE(SameDimensions(t1, plain));
  EXPECT_TRUE(ShapesCompatibleIgnoringFpPrecision(
      t1, Shape::MakeTuple({Shape::MakeArray(F64, {2, 3}), Shape::MakeArray(S32, {})})));
}

TEST(ShapeTest, LayoutRecursion) {
  Shape shape =
      Shape::MakeTuple({Shape::MakeArray(F32, {2, 3}),
                        Shape::MakeTuple({Shape::MakeArray(S32, {4})}), Shape::MakeToken()});
  shape.SetDefaultLayoutRecursively();
  EXPECT_EQ(shape.ToString(true), "(f32[2,3]{1,0}, (s32[4]{0}), token[])");
  EXPECT_FALSE(shape.tuple_shapes(2).has_layout());  // tokens have none
  shape.ClearLayoutRecursively();
  EXPECT_EQ(shape.ToString(true), "(f32[2,3], (s32[4]), token[])");
  // An existing layout is kept.
  Shape column_major = Shape::MakeArray(F32, {2, 3});
  column_major.mutable_layout()->minor_to_major = {0, 1};
  column_major.SetDefaultLayoutRecursively();
  EXPECT_EQ(column_major.ToString(true), "f32[2,3]{0,1}");
}

TEST(ShapeTest, StridesIndicesAndTraversal) {
  EXPECT_THAT(RowMajorStrides({2, 3, 4}), ElementsAre(12, 4, 1));
  EXPECT_THAT(RowMajorStrides({7}), ElementsAre(1));
  EXPECT_TRUE(RowMajorStrides({}).empty());
  EXPECT_EQ(ShapeIndexToString({}), "{}");
  EXPECT_EQ(ShapeIndexToString({1, 0}), "{1,0}");
  Shape shape =
      Shape::MakeTuple({Shape::MakeArray(F32, {}), Shape::MakeTuple({Shape::MakeArray(S32, {2})})});
  std::vector<std::string> visited;
  ForEachSubshape(shape, [&](const Shape& subshape, const ShapeIndex& index) {
    visited.push_back(ShapeIndexToString(index) + " " + subshape.ToString());
  });
  EXPECT_THAT(visited,
              ElementsAre("{} (f32[], (s32[2]))", "{0} f32[]", "{1} (s32[2])", "{1,0} s32[2]"));
}

// --- half and bfloat16 ------------------------------------------------------------

float FloatOf(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(Float16Test, HalfKnownValues) {
  EXPECT_EQ(half(1.0f).bits, 0x3c00);
  EXPECT_EQ(half(-2.0f).bits, 0xc000);
  EXPECT_EQ(half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(half(65519.996f).bits, 0x7bff);
  EXPECT_EQ(half(65520.0f).bits, 0x7c00);  // ties to even rounds up into inf
  EXPECT_EQ(half(1e10f).bits, 0x7c00);
  EXPECT_EQ(half(-std::numeric_limits<float>::infinity()).bits, 0xfc00);
  EXPECT_EQ(half(std::ldexp(1.0f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(half(std::ldexp(1.0f, -25)).bits, 0x0000);  // tie to even: zero
  EXPECT_EQ(half(std::ldexp(1.5f, -25)).bits, 0x0001);
  EXPECT_EQ(half(std::ldexp(1.0f, -14)).bits, 0x0400);  // smallest normal
  EXPECT_EQ(half(-0.0f).bits, 0x8000);
  EXPECT_EQ(half(-1e-10f).bits, 0x8000);
  EXPECT_EQ(static_cast<float>(half::FromBits(0x3555)), 0.333251953125f);
  EXPECT_TRUE(half(1.0f) == half(1.0f));
  EXPECT_TRUE(half(0.0f) == half(-0.0f));  // value equality
}

TEST(Float16Test, NansStayNans) {
  EXPECT_EQ(half(std::nanf("")).bits & 0x7e00, 0x7e00);
  EXPECT_EQ(half(FloatOf(0xff800001)).bits & 0xfe00, 0xfe00);  // signaling becomes quiet
  EXPECT_EQ(half(FloatOf(0x7fc02000)).bits, 0x7e01);           // top payload bits kept
  EXPECT_EQ(bfloat16(FloatOf(0x7f800001)).bits, 0x7fc0);       // signaling becomes quiet
  EXPECT_EQ(bfloat16(FloatOf(0xffc10000)).bits, 0xffc1);
  EXPECT_TRUE(std::isnan(static_cast<float>(half::FromBits(0x7c01))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16::FromBits(0x7f81))));
  EXPECT_FALSE(half::FromBits(0x7e00) == half::FromBits(0x7e00));  // NaN != NaN
}

TEST(Float16Test, BfloatKnownValues) {
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16(0.1f).bits, 0x3dcd);
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // rounds up to inf
  EXPECT_EQ(bfloat16(FloatOf(0x7f7f7fff)).bits, 0x7f7f);
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(bfloat16(FloatOf(0x00018000)).bits, 0x0002);  // subnormal tie to even
  EXPECT_EQ(bfloat16(-0.0f).bits, 0x8000);
}

// Every 16-bit pattern widens to float and narrows back to itself (NaNs come
// back quiet with the same sign and payload).
template <typename T>
void CheckExhaustiveRoundTrip(uint16_t quiet_bit) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const T value = T::FromBits(static_cast<uint16_t>(bits));
    const float widened = static_cast<float>(value);
    if (std::isnan(widened)) {
      ASSERT_EQ(T(widened).bits, bits | quiet_bit) << bits;
    } else {
      ASSERT_EQ(T(widened).bits, bits) << bits;
    }
  }
}

TEST(Float16Test, HalfExhaustiveRoundTrip) { CheckExhaustiveRoundTrip<half>(0x0200); }
TEST(Float16Test, BfloatExhaustiveRoundTrip) { CheckExhaustiveRoundTrip<bfloat16>(0x0040); }

// At every midpoint between two adjacent finite values (exact in float), the
// conversion ties to the even one, and the floats just below and above the
// midpoint go down and up.
template <typename T>
void CheckEveryMidpoint(uint16_t largest_finite) {
  for (uint32_t bits = 0; bits < largest_finite; ++bits) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const uint16_t low = static_cast<uint16_t>(bits | sign);
      const uint16_t high = static_cast<uint16_t>((bits + 1) | sign);
      const float a = static_cast<float>(T::FromBits(low));
      const float b = static_cast<float>(T::FromBits(high));
      const float midpoint = a + (b - a) / 2;
      ASSERT_EQ(T(midpoint).bits, (bits & 1) == 0 ? low : high) << bits;
      ASSERT_EQ(T(std::nextafter(midpoint, a)).bits, low) << bits;
      ASSERT_EQ(T(std::nextafter(midpoint, b)).bits, high) << bits;
    }
  }
}

TEST(Float16Test, HalfRoundsToNearestEvenEverywhere) { CheckEveryMidpoint<half>(0x7bff); }
TEST(Float16Test, BfloatRoundsToNearestEvenEverywhere) { CheckEveryMidpoint<bfloat16>(0x7f7f); }

}  // namespace
}  // namespace tessera
