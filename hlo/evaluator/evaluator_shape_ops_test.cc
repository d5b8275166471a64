// Data movement: iota, broadcast, reshape, transpose, slice, dynamic
// slices (start clamping), concatenate, pad (negative and interior), reverse,
// copy, bitcast (layout-aware), get-dimension-size, and non-default layouts.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

TEST(EvaluatorShapeOpsTest, Iota) {
  EXPECT_EVAL(EvaluateRoot("s32[2,3] iota(), iota_dimension=1"),
              L("s32[2,3]", "{ { 0, 1, 2 }, { 0, 1, 2 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,3] iota(), iota_dimension=0"),
              L("f32[2,3]", "{ { 0, 0, 0 }, { 1, 1, 1 } }"));
  EXPECT_EVAL(EvaluateRoot("bf16[0] iota(), iota_dimension=0"), L("bf16[0]", "{}"));
}

TEST(EvaluatorShapeOpsTest, Broadcast) {
  EXPECT_EVAL(EvaluateRoot("f32[2,3] broadcast(p0), dimensions={0}", {L("f32[2]", "{1, 2}")}),
              L("f32[2,3]", "{ { 1, 1, 1 }, { 2, 2, 2 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,3] broadcast(p0), dimensions={1}", {L("f32[3]", "{1, 2, 3}")}),
              L("f32[2,3]", "{ { 1, 2, 3 }, { 1, 2, 3 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2] broadcast(p0), dimensions={}", {L("s32[]", "7")}),
              L("s32[2,2]", "{ { 7, 7 }, { 7, 7 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[3,2] broadcast(p0), dimensions={1,0}",
                           {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("s32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
}

TEST(EvaluatorShapeOpsTest, ReshapeIsRowMajor) {
  const Literal x = L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EVAL(EvaluateRoot("s32[3,2] reshape(p0)", {x}), L("s32[3,2]", "{ { 1, 2 }, { 3, 4 }, { 5, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[6] reshape(p0)", {x}), L("s32[6]", "{1, 2, 3, 4, 5, 6}"));
  // Layouts do not change what reshape computes.
  EXPECT_EVAL(EvaluateRoot("s32[3,2]{0,1} reshape(p0)", {L("s32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("s32[3,2]", "{ { 1, 2 }, { 3, 4 }, { 5, 6 } }"));
}

TEST(EvaluatorShapeOpsTest, Transpose) {
  EXPECT_EVAL(EvaluateRoot("s32[3,2] transpose(p0), dimensions={1,0}",
                           {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("s32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,1,2] transpose(p0), dimensions={2,0,1}",
                           {L("s32[1,2,2]", "{ { { 1, 2 }, { 3, 4 } } }")}),
              L("s32[2,1,2]", "{ { { 1, 3 } }, { { 2, 4 } } }"));
}

TEST(EvaluatorShapeOpsTest, NonDefaultLayoutsKeepLogicalValues) {
  const Literal x = L("f32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EVAL(EvaluateRoot("f32[2,3]{0,1} add(p0, p0)", {x}), L("f32[2,3]", "{ { 2, 4, 6 }, { 8, 10, 12 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[3,2]{1,0} transpose(p0), dimensions={1,0}", {x}),
              L("f32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2,3]{1,0} copy(p0)", {x}), L("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"));
}

TEST(EvaluatorShapeOpsTest, BitcastReinterpretsThePhysicalBuffer) {
  // Row-major to row-major: a reshape.
  EXPECT_EVAL(EvaluateRoot("f32[6]{0} bitcast(p0)", {L("f32[2,3]{1,0}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("f32[6]", "{1, 2, 3, 4, 5, 6}"));
  // A column-major operand's buffer is 1 4 2 5 3 6.
  EXPECT_EVAL(EvaluateRoot("f32[6]{0} bitcast(p0)", {L("f32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("f32[6]", "{1, 4, 2, 5, 3, 6}"));
  // Reading a row-major buffer with a column-major result layout: a transpose.
  EXPECT_EVAL(EvaluateRoot("f32[3,2]{0,1} bitcast(p0)", {L("f32[2,3]{1,0}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("f32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[3,2]{1,0} bitcast(p0)", {L("s32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("s32[3,2]", "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }"));
}

TEST(EvaluatorShapeOpsTest, SliceWithStrides) {
  EXPECT_EVAL(EvaluateRoot("s32[3] slice(p0), slice={[1:8:3]}", {L("s32[10]", "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}")}),
              L("s32[3]", "{1, 4, 7}"));
  EXPECT_EVAL(EvaluateRoot("s32[2,1] slice(p0), slice={[0:2], [2:3]}",
                           {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}),
              L("s32[2,1]", "{ {3}, {6} }"));
  EXPECT_EVAL(EvaluateRoot("s32[0] slice(p0), slice={[2:2]}", {L("s32[3]", "{1, 2, 3}")}), L("s32[0]", "{}"));
}

TEST(EvaluatorShapeOpsTest, DynamicSliceClampsStarts) {
  const Literal x = L("f32[5]", "{0, 1, 2, 3, 4}");
  EXPECT_EVAL(EvaluateRoot("f32[3] dynamic-slice(p0, p1), dynamic_slice_sizes={3}", {x, L("s32[]", "1")}),
              L("f32[3]", "{1, 2, 3}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] dynamic-slice(p0, p1), dynamic_slice_sizes={3}", {x, L("s32[]", "3")}),
              L("f32[3]", "{2, 3, 4}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] dynamic-slice(p0, p1), dynamic_slice_sizes={3}", {x, L("s64[]", "-7")}),
              L("f32[3]", "{0, 1, 2}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}",
                           {x, L("u32[]", "4294967295")}),
              L("f32[2]", "{3, 4}"));
  EXPECT_EVAL(EvaluateRoot("f32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}",
                           {x, L("u64[]", "18446744073709551615")}),
              L("f32[2]", "{3, 4}"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={2,2}",
                           {L("s32[3,3]", "{ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }"),
                            L("u8[]", "1"), L("s16[]", "5")}),
              L("s32[2,2]", "{ { 5, 6 }, { 8, 9 } }"));
}

TEST(EvaluatorShapeOpsTest, DynamicUpdateSliceClampsStarts) {
  const Literal x = L("s32[5]", "{0, 1, 2, 3, 4}");
  EXPECT_EVAL(EvaluateRoot("s32[5] dynamic-update-slice(p0, p1, p2)",
                           {x, L("s32[2]", "{8, 9}"), L("s32[]", "1")}),
              L("s32[5]", "{0, 8, 9, 3, 4}"));
  EXPECT_EVAL(EvaluateRoot("s32[5] dynamic-update-slice(p0, p1, p2)",
                           {x, L("s32[2]", "{8, 9}"), L("s32[]", "10")}),
              L("s32[5]", "{0, 1, 2, 8, 9}"));
  EXPECT_EVAL(EvaluateRoot("s32[5] dynamic-update-slice(p0, p1, p2)",
                           {x, L("s32[2]", "{8, 9}"), L("s32[]", "-3")}),
              L("s32[5]", "{8, 9, 2, 3, 4}"));
  EXPECT_EVAL(EvaluateRoot("s32[2,3] dynamic-update-slice(p0, p1, p2, p3)",
                           {L("s32[2,3]", "{ { 0, 0, 0 }, { 0, 0, 0 } }"), L("s32[1,2]", "{ { 7, 8 } }"),
                            L("s64[]", "1"), L("s64[]", "2")}),
              L("s32[2,3]", "{ { 0, 0, 0 }, { 0, 7, 8 } }"));
}

TEST(EvaluatorShapeOpsTest, Concatenate) {
  EXPECT_EVAL(EvaluateRoot("s32[2,3] concatenate(p0, p1), dimensions={1}",
                           {L("s32[2,1]", "{ {1}, {4} }"), L("s32[2,2]", "{ { 2, 3 }, { 5, 6 } }")}),
              L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[3] concatenate(p0, p1, p2), dimensions={0}",
                           {L("f32[1]", "{1}"), L("f32[0]", "{}"), L("f32[2]", "{2, 3}")}),
              L("f32[3]", "{1, 2, 3}"));
}

TEST(EvaluatorShapeOpsTest, PadEdgeInteriorAndNegative) {
  const Literal x = L("f32[3]", "{1, 2, 3}");
  EXPECT_EVAL(EvaluateRoot("f32[8] pad(p0, p1), padding=1_2_1", {x, L("f32[]", "0")}),
              L("f32[8]", "{0, 1, 0, 2, 0, 3, 0, 0}"));
  // Interior padding first, then negative edges remove elements.
  EXPECT_EVAL(EvaluateRoot("f32[3] pad(p0, p1), padding=-1_-1_1", {x, L("f32[]", "9")}),
              L("f32[3]", "{9, 2, 9}"));
  EXPECT_EVAL(EvaluateRoot("f32[1] pad(p0, p1), padding=-2_0", {x, L("f32[]", "9")}), L("f32[1]", "{3}"));
  EXPECT_EVAL(EvaluateRoot("s32[3,4] pad(p0, p1), padding=1_0x0_1_1",
                           {L("s32[2,2]", "{ { 1, 2 }, { 3, 4 } }"), L("s32[]", "-1")}),
              L("s32[3,4]", "{ { -1, -1, -1, -1 }, { 1, -1, 2, -1 }, { 3, -1, 4, -1 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[2] pad(p0, p1), padding=1_1", {L("f32[0]", "{}"), L("f32[]", "5")}),
              L("f32[2]", "{5, 5}"));
}

TEST(EvaluatorShapeOpsTest, ReverseAndCopy) {
  const Literal x = L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EVAL(EvaluateRoot("s32[2,3] reverse(p0), dimensions={1}", {x}),
              L("s32[2,3]", "{ { 3, 2, 1 }, { 6, 5, 4 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,3] reverse(p0), dimensions={0,1}", {x}),
              L("s32[2,3]", "{ { 6, 5, 4 }, { 3, 2, 1 } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,3] copy(p0)", {x}), x);
}

TEST(EvaluatorShapeOpsTest, GetDimensionSize) {
  EXPECT_EVAL(EvaluateRoot("s32[] get-dimension-size(p0), dimensions={1}", {L("f32[2,5]", "{ { 1, 2, 3, 4, 5 }, { 1, 2, 3, 4, 5 } }")}),
              L("s32[]", "5"));
}

TEST(EvaluatorShapeOpsTest, MalformedShapesAreErrors) {
  EXPECT_FALSE(EvaluateRoot("s32[4] reshape(p0)", {L("s32[3]", "{1, 2, 3}")}).ok());
  EXPECT_FALSE(EvaluateRoot("s32[3] slice(p0), slice={[0:6:2]}", {L("s32[3]", "{1, 2, 3}")}).ok());
  EXPECT_FALSE(EvaluateRoot("s32[3,2] transpose(p0), dimensions={0,0}", {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }")}).ok());
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
