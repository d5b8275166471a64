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

TEST(EvaluatorShapeOpsTest, DynamicSliceIndexTypesAndClamping) {
  const Literal x = L("s32[4]", "{10, 11, 12, 13}");
  // Unsigned indices far above the range clamp to the last valid start;
  // narrow signed ones below it to 0.
  EXPECT_EVAL(EvaluateRoot("s32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}", {x, L("u32[]", "4294967295")}),
              L("s32[2]", "{12, 13}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}",
                           {x, L("u64[]", "18446744073709551615")}),
              L("s32[2]", "{12, 13}"));
  EXPECT_EVAL(EvaluateRoot("s32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}", {x, L("s8[]", "-128")}),
              L("s32[2]", "{10, 11}"));
  // A slice as large as the operand always starts at 0; an empty one reads
  // nothing.
  EXPECT_EVAL(EvaluateRoot("s32[4] dynamic-slice(p0, p1), dynamic_slice_sizes={4}", {x, L("s32[]", "2")}), x);
  EXPECT_EVAL(EvaluateRoot("s32[0] dynamic-slice(p0, p1), dynamic_slice_sizes={0}", {x, L("s32[]", "9")}),
              L("s32[0]", "{}"));
}

TEST(EvaluatorShapeOpsTest, DynamicUpdateSliceEdges) {
  const Literal x = L("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  // An empty update changes nothing.
  EXPECT_EVAL(EvaluateRoot("f32[2,3] dynamic-update-slice(p0, p1, p2, p3)",
                           {x, L("f32[0,2]", "{}"), L("s32[]", "1"), L("s32[]", "1")}),
              x);
  // An update of the operand's own shape replaces it whatever the starts.
  EXPECT_EVAL(EvaluateRoot("f32[2,3] dynamic-update-slice(p0, p1, p2, p3)",
                           {x, L("f32[2,3]", "{ { 0, 0, 0 }, { 0, 0, -0 } }"), L("s32[]", "-5"), L("s32[]", "7")}),
              L("f32[2,3]", "{ { 0, 0, 0 }, { 0, 0, -0 } }"));
  // Each dimension clamps on its own: row 9 -> 1, column -1 -> 0.
  EXPECT_EVAL(EvaluateRoot("f32[2,3] dynamic-update-slice(p0, p1, p2, p3)",
                           {x, L("f32[1,2]", "{ { 7, 8 } }"), L("u32[]", "9"), L("s64[]", "-1")}),
              L("f32[2,3]", "{ { 1, 2, 3 }, { 7, 8, 6 } }"));
}

TEST(EvaluatorShapeOpsTest, EmptyOperands) {
  EXPECT_EVAL(EvaluateRoot("s32[3] concatenate(p0, p1, p2), dimensions={0}",
                           {L("s32[0]", "{}"), L("s32[3]", "{1, 2, 3}"), L("s32[0]", "{}")}),
              L("s32[3]", "{1, 2, 3}"));
  EXPECT_EVAL(EvaluateRoot("s32[0,3] reverse(p0), dimensions={0,1}", {L("s32[0,3]", "{}")}), L("s32[0,3]", "{}"));
  EXPECT_EVAL(EvaluateRoot("f32[0,2] broadcast(p0), dimensions={}", {L("f32[]", "1")}), L("f32[0,2]", "{}"));
  EXPECT_EVAL(EvaluateRoot("f32[3,0] transpose(p0), dimensions={1,0}", {L("f32[0,3]", "{}")}), L("f32[3,0]", "{ {}, {}, {} }"));
  EXPECT_EVAL(EvaluateRoot("f32[0,4] reshape(p0)", {L("f32[2,0]", "{ {}, {} }")}), L("f32[0,4]", "{}"));
  EXPECT_EVAL(EvaluateRoot("pred[2,0] slice(p0), slice={[0:2], [1:1]}", {L("pred[2,2]", "{ { 1, 0 }, { 0, 1 } }")}),
              L("pred[2,0]", "{ {}, {} }"));
}

TEST(EvaluatorShapeOpsTest, PadNegativeWithInterior) {
  // 1 2 3 dilated by 2 is 1 _ _ 2 _ _ 3; cutting 2 low and 1 high leaves
  // _ 2 _ _.
  EXPECT_EVAL(EvaluateRoot("f32[4] pad(p0, p1), padding=-2_-1_2", {L("f32[3]", "{1, 2, 3}"), L("f32[]", "0")}),
              L("f32[4]", "{0, 2, 0, 0}"));
  // Removing everything.
  EXPECT_EVAL(EvaluateRoot("f32[0] pad(p0, p1), padding=-2_-1", {L("f32[3]", "{1, 2, 3}"), L("f32[]", "0")}),
              L("f32[0]", "{}"));
  // Both dimensions of a matrix, with negative low padding on one and
  // interior padding on the other.
  EXPECT_EVAL(EvaluateRoot("s32[1,5] pad(p0, p1), padding=-1_0x0_0_1",
                           {L("s32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"), L("s32[]", "-1")}),
              L("s32[1,5]", "{ { 4, -1, 5, -1, 6 } }"));
  EXPECT_EVAL(EvaluateRoot("bf16[3] pad(p0, p1), padding=1_1", {L("bf16[1]", "{2}"), L("bf16[]", "-inf")}),
              L("bf16[3]", "{-inf, 2, -inf}"));
}

TEST(EvaluatorShapeOpsTest, IotaOfManyTypes) {
  EXPECT_EVAL(EvaluateRoot("s8[2,3,2] iota(), iota_dimension=1"),
              L("s8[2,3,2]", "{ { { 0, 0 }, { 1, 1 }, { 2, 2 } }, { { 0, 0 }, { 1, 1 }, { 2, 2 } } }"));
  EXPECT_EVAL(EvaluateRoot("u64[3] iota(), iota_dimension=0"), L("u64[3]", "{0, 1, 2}"));
  EXPECT_EVAL(EvaluateRoot("f16[4] iota(), iota_dimension=0"), L("f16[4]", "{0, 1, 2, 3}"));
  EXPECT_EVAL(EvaluateRoot("c64[2] iota(), iota_dimension=0"), L("c64[2]", "{(0, 0), (1, 0)}"));
  // Layouts do not change the logical values.
  EXPECT_EVAL(EvaluateRoot("s32[2,2]{0,1} iota(), iota_dimension=0"), L("s32[2,2]", "{ { 0, 0 }, { 1, 1 } }"));
}

TEST(EvaluatorShapeOpsTest, HigherRankTransposeAndReverse) {
  // x[i][j][k] = 100i + 10j + k; transpose {2,0,1}: y[k][i][j] = x[i][j][k].
  const Literal x = L("s32[2,2,3]", "{ { { 0, 1, 2 }, { 10, 11, 12 } }, { { 100, 101, 102 }, { 110, 111, 112 } } }");
  EXPECT_EVAL(EvaluateRoot("s32[3,2,2] transpose(p0), dimensions={2,0,1}", {x}),
              L("s32[3,2,2]", "{ { { 0, 10 }, { 100, 110 } }, { { 1, 11 }, { 101, 111 } }, "
                              "{ { 2, 12 }, { 102, 112 } } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2,3] reverse(p0), dimensions={0,2}", {x}),
              L("s32[2,2,3]", "{ { { 102, 101, 100 }, { 112, 111, 110 } }, { { 2, 1, 0 }, { 12, 11, 10 } } }"));
  EXPECT_EVAL(EvaluateRoot("s32[2,2,3] reverse(p0), dimensions={}", {x}), x);
  EXPECT_EVAL(EvaluateRoot("s32[2,1,2] slice(p0), slice={[0:2], [1:2], [0:3:2]}", {x}),
              L("s32[2,1,2]", "{ { { 10, 12 } }, { { 110, 112 } } }"));
}

TEST(EvaluatorShapeOpsTest, BitcastBetweenRanksAndLayouts) {
  // A row-major [2,2,2] read as [4,2] in column-major physical order:
  // physical buffer 0..7; a [4,2]{0,1} element (i,j) sits at j*4 + i.
  EXPECT_EVAL(EvaluateRoot("s32[4,2]{0,1} bitcast(p0)",
                           {L("s32[2,2,2]{2,1,0}", "{ { { 0, 1 }, { 2, 3 } }, { { 4, 5 }, { 6, 7 } } }")}),
              L("s32[4,2]", "{ { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[] bitcast(p0)", {L("f32[1,1]", "{ { 5 } }")}), L("f32[]", "5"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
