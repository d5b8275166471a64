#include "hlo/ir/literal_comparison.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(LiteralComparisonTest, NanEqualsAnyNanButZerosKeepTheirSign) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(LiteralsEqualNanAware(Literal::CreateR1<float>({nan, 1}),
                                    Literal::CreateR1<float>({-nan, 1})));
  std::string why;
  EXPECT_FALSE(LiteralsEqualNanAware(Literal::CreateR1<float>({0.0f}),
                                     Literal::CreateR1<float>({-0.0f}), &why));
  EXPECT_EQ(why, "leaf 0 element 0: 0 vs -0");
}

TEST(LiteralComparisonTest, IntegersAndShapes) {
  std::string why;
  EXPECT_FALSE(LiteralsEqualNanAware(Literal::CreateR1<int32_t>({1, 2}),
                                     Literal::CreateR1<int32_t>({1, 3}), &why));
  EXPECT_THAT(why, HasSubstr("element 1: 2 vs 3"));
  EXPECT_FALSE(LiteralsEqualNanAware(Literal::CreateR1<int32_t>({1, 2}),
                                     Literal::CreateR1<int32_t>({1, 2, 3}), &why));
  EXPECT_THAT(why, HasSubstr("shape"));
  EXPECT_TRUE(LiteralsEqualNanAware(Literal::CreateR1<int32_t>({4}),
                                    Literal::CreateR1<int32_t>({4})));
}

TEST(LiteralComparisonTest, TuplesCompareLeafByLeaf) {
  Literal a = Literal::MakeTuple({Literal::CreateR0<float>(1), Literal::CreateR0<int32_t>(2)});
  Literal b = Literal::MakeTuple({Literal::CreateR0<float>(1), Literal::CreateR0<int32_t>(5)});
  std::string why;
  EXPECT_FALSE(LiteralsEqualNanAware(a, b, &why));
  EXPECT_THAT(why, HasSubstr("leaf 1 element 0"));
}

}  // namespace
}  // namespace tessera
