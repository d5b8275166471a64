// sort (one or more operands along one dimension, by a comparator
// computation, stable) and topk.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

constexpr absl::string_view kComparators = R"(
lt_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
gt_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
lt_total {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
lt_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
lt_u32 {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
key_lt {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT r = pred[] compare(ka, kb), direction=LT
}
value_gt {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT r = pred[] compare(va, vb), direction=GT
}
lexicographic {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  lt0 = pred[] compare(a0, b0), direction=LT
  eq0 = pred[] compare(a0, b0), direction=EQ
  lt1 = pred[] compare(a1, b1), direction=LT
  tie = pred[] and(eq0, lt1)
  ROOT r = pred[] or(lt0, tie)
}
always_true {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT t = pred[] constant(true)
}
)";

TEST(EvaluatorSortTest, AscendingAndDescending) {
  EXPECT_EVAL(EvaluateRoot("f32[6] sort(p0), dimensions={0}, to_apply=lt_f32",
                           {L("f32[6]", "{3, -1, 2.5, -inf, 0, inf}")}, kComparators),
              L("f32[6]", "{-inf, -1, 0, 2.5, 3, inf}"));
  EXPECT_EVAL(EvaluateRoot("f32[4] sort(p0), dimensions={0}, to_apply=gt_f32",
                           {L("f32[4]", "{3, -1, 7, 0}")}, kComparators),
              L("f32[4]", "{7, 3, 0, -1}"));
  EXPECT_EVAL(EvaluateRoot("s32[5] sort(p0), dimensions={0}, to_apply=lt_s32",
                           {L("s32[5]", "{5, -2147483648, 2147483647, 0, -1}")}, kComparators),
              L("s32[5]", "{-2147483648, -1, 0, 5, 2147483647}"));
  EXPECT_EVAL(EvaluateRoot("u32[3] sort(p0), dimensions={0}, to_apply=lt_u32",
                           {L("u32[3]", "{4294967295, 0, 7}")}, kComparators),
              L("u32[3]", "{0, 7, 4294967295}"));
}

TEST(EvaluatorSortTest, TotalOrderPlacesSignedZerosAndNans) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN.
  EXPECT_EVAL(EvaluateRoot("f32[8] sort(p0), dimensions={0}, to_apply=lt_total",
                           {L("f32[8]", "{nan, 0, 1, -0, -nan, inf, -1, -inf}")}, kComparators),
              L("f32[8]", "{-nan, -inf, -1, -0, 0, 1, inf, nan}"));
}

TEST(EvaluatorSortTest, SortsAlongTheGivenDimension) {
  const Literal x = L("s32[2,3]", "{ { 3, 1, 2 }, { 0, 5, -4 } }");
  EXPECT_EVAL(EvaluateRoot("s32[2,3] sort(p0), dimensions={1}, to_apply=lt_s32", {x}, kComparators),
              L("s32[2,3]", "{ { 1, 2, 3 }, { -4, 0, 5 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,3] sort(p0), dimensions={0}, to_apply=lt_s32", {x}, kComparators),
              L("s32[2,3]", "{ { 0, 1, -4 }, { 3, 5, 2 } }"));
}

TEST(EvaluatorSortTest, MultipleOperandsMoveTogetherAndStableKeepsTies) {
  // Keys sort ascending; equal keys keep their original order, so the
  // values of key 1 stay 10, 30, 50 and those of key 0 stay 20, 40.
  const Literal keys = L("s32[5]", "{1, 0, 1, 0, 1}");
  const Literal values = L("f32[5]", "{10, 20, 30, 40, 50}");
  EXPECT_EVAL(EvaluateRoot("(s32[5], f32[5]) sort(p0, p1), dimensions={0}, is_stable=true, "
                           "to_apply=key_lt",
                           {keys, values}, kComparators),
              Literal::MakeTuple({L("s32[5]", "{0, 0, 1, 1, 1}"),
                                  L("f32[5]", "{20, 40, 10, 30, 50}")}));
  // The comparator may look at any operand: here the values, descending.
  EXPECT_EVAL(EvaluateRoot("(s32[5], f32[5]) sort(p0, p1), dimensions={0}, to_apply=value_gt",
                           {keys, values}, kComparators),
              Literal::MakeTuple({L("s32[5]", "{1, 0, 1, 0, 1}"),
                                  L("f32[5]", "{50, 40, 30, 20, 10}")}));
  // A lexicographic comparator over two key operands.
  EXPECT_EVAL(EvaluateRoot("(s32[4], s32[4]) sort(p0, p1), dimensions={0}, to_apply=lexicographic",
                           {L("s32[4]", "{2, 1, 2, 1}"), L("s32[4]", "{0, 9, -1, 3}")}, kComparators),
              Literal::MakeTuple({L("s32[4]", "{1, 1, 2, 2}"), L("s32[4]", "{3, 9, -1, 0}")}));
}

TEST(EvaluatorSortTest, StableSortKeepsEqualFloatsInOrder) {
  // -0 and +0 compare equal under LT: stable keeps their input order.
  EXPECT_EVAL(EvaluateRoot("f32[4] sort(p0), dimensions={0}, is_stable=true, to_apply=lt_f32",
                           {L("f32[4]", "{0, -0, -1, 0}")}, kComparators),
              L("f32[4]", "{-1, 0, -0, 0}"));
}

TEST(EvaluatorSortTest, InconsistentComparatorStaysInBounds) {
  // Not a strict weak order: any permutation is acceptable, but it must be
  // a permutation of the input.
  absl::StatusOr<Literal> result = EvaluateRoot(
      "f32[5] sort(p0), dimensions={0}, to_apply=always_true", {L("f32[5]", "{1, 2, 3, 4, 5}")},
      kComparators);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<float> values(result->data<float>().begin(), result->data<float>().end());
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<float>{1, 2, 3, 4, 5}));
}

TEST(EvaluatorSortTest, EmptyAndSingleElement) {
  EXPECT_EVAL(EvaluateRoot("f32[0] sort(p0), dimensions={0}, to_apply=lt_f32", {L("f32[0]", "{}")},
                           kComparators),
              L("f32[0]", "{}"));
  EXPECT_EVAL(EvaluateRoot("f32[2,0] sort(p0), dimensions={0}, to_apply=lt_f32",
                           {L("f32[2,0]", "{ {}, {} }")}, kComparators),
              L("f32[2,0]", "{ {}, {} }"));
  EXPECT_EVAL(EvaluateRoot("f32[1] sort(p0), dimensions={0}, to_apply=lt_f32", {L("f32[1]", "{nan}")},
                           kComparators),
              L("f32[1]", "{nan}"));
}

TEST(EvaluatorSortTest, ComparatorMustReturnPred) {
  constexpr absl::string_view kBad = R"(
bad {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
})";
  absl::StatusOr<Literal> result =
      EvaluateRoot("f32[2] sort(p0), dimensions={0}, to_apply=bad", {L("f32[2]", "{2, 1}")}, kBad);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("pred"), std::string::npos) << result.status();
}

TEST(EvaluatorTopKTest, LargestWithIndicesAndTies) {
  EXPECT_EVAL(EvaluateRoot("(f32[2,2], s32[2,2]) topk(p0), k=2, largest=true",
                           {L("f32[2,4]", "{ { 1, 5, 3, 5 }, { -1, -2, -0.5, -3 } }")}),
              Literal::MakeTuple({L("f32[2,2]", "{ { 5, 5 }, { -0.5, -1 } }"),
                                  L("s32[2,2]", "{ { 1, 3 }, { 2, 0 } }")}));
  EXPECT_EVAL(EvaluateRoot("(s32[3], s32[3]) topk(p0), k=3, largest=false",
                           {L("s32[4]", "{4, -7, 2, 9}")}),
              Literal::MakeTuple({L("s32[3]", "{-7, 2, 4}"), L("s32[3]", "{1, 2, 0}")}));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
