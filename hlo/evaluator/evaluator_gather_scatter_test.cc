// gather (start clamping, index vectors, batching dimensions) and scatter
// (combiner order, repeated indices, out-of-bounds windows skipped,
// variadic, batching dimensions).  Batching cases were checked against
// XLA's CPU backend through jax.lax.gather/scatter_add.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

const char kMatrix[] = "{ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }";

TEST(EvaluatorGatherTest, RowsByIndex) {
  EXPECT_EVAL(EvaluateRoot("s32[2,3] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, "
                           "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
                           {L("s32[3,3]", kMatrix), L("s32[2]", "{0, 2}")}),
              L("s32[2,3]", "{ { 1, 2, 3 }, { 7, 8, 9 } }"));
  // Out-of-range starts are clamped into the operand.
  EXPECT_EVAL(EvaluateRoot("s32[2,3] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, "
                           "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
                           {L("s32[3,3]", kMatrix), L("s64[2]", "{-1, 5}")}),
              L("s32[2,3]", "{ { 1, 2, 3 }, { 7, 8, 9 } }"));
}

TEST(EvaluatorGatherTest, PointsAndWindows) {
  EXPECT_EVAL(EvaluateRoot("s32[2] gather(p0, p1), offset_dims={}, collapsed_slice_dims={0,1}, "
                           "start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}",
                           {L("s32[3,3]", kMatrix), L("s32[2,2]", "{ { 0, 1 }, { 2, 2 } }")}),
              L("s32[2]", "{2, 9}"));
  // A 2x2 window starting at (2,2) is clamped to (1,1); (-1,1) to (0,1).
  EXPECT_EVAL(EvaluateRoot("s32[2,2,2] gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, "
                           "start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}",
                           {L("s32[3,3]", kMatrix), L("s32[2,2]", "{ { 2, 2 }, { -1, 1 } }")}),
              L("s32[2,2,2]", "{ { { 5, 6 }, { 8, 9 } }, { { 2, 3 }, { 5, 6 } } }"));
  // index_vector_dim first; start_index_map reorders the components.
  EXPECT_EVAL(EvaluateRoot("s32[2] gather(p0, p1), offset_dims={}, collapsed_slice_dims={0,1}, "
                           "start_index_map={1,0}, index_vector_dim=0, slice_sizes={1,1}",
                           {L("s32[3,3]", kMatrix), L("s32[2,2]", "{ { 0, 2 }, { 1, 2 } }")}),
              L("s32[2]", "{4, 9}"));
}

TEST(EvaluatorGatherTest, BatchingDimensions) {
  EXPECT_EVAL(EvaluateRoot("s32[2] gather(p0, p1), offset_dims={}, collapsed_slice_dims={1}, "
                           "start_index_map={1}, operand_batching_dims={0}, "
                           "start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}",
                           {L("s32[2,3]", "{ { 10, 11, 12 }, { 20, 21, 22 } }"), L("s32[2,1]", "{ {2}, {0} }")}),
              L("s32[2]", "{12, 20}"));
}

constexpr absl::string_view kAdd = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
assign {
  x = f32[] parameter(0)
  ROOT y = f32[] parameter(1)
}
)";

TEST(EvaluatorScatterTest, RepeatedIndicesCombineInOrder) {
  EXPECT_EVAL(EvaluateRoot("f32[5] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
                           {L("f32[5]", "{0, 0, 0, 0, 0}"), L("s32[3,1]", "{ {1}, {3}, {1} }"),
                            L("f32[3]", "{1, 2, 3}")},
                           kAdd),
              L("f32[5]", "{0, 4, 0, 2, 0}"));
  // With an assigning combiner the last update in row-major order wins.
  EXPECT_EVAL(EvaluateRoot("f32[5] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign",
                           {L("f32[5]", "{0, 0, 0, 0, 0}"), L("s32[3,1]", "{ {1}, {3}, {1} }"),
                            L("f32[3]", "{1, 2, 3}")},
                           kAdd),
              L("f32[5]", "{0, 3, 0, 2, 0}"));
}

TEST(EvaluatorScatterTest, OutOfBoundsWindowsAreSkipped) {
  EXPECT_EVAL(EvaluateRoot("f32[5] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
                           {L("f32[5]", "{0, 0, 0, 0, 0}"), L("s32[3,1]", "{ {-1}, {5}, {4} }"),
                            L("f32[3]", "{1, 2, 3}")},
                           kAdd),
              L("f32[5]", "{0, 0, 0, 0, 3}"));
  // A window of 2 starting at 3 of 4 does not fit: nothing of it is written.
  EXPECT_EVAL(EvaluateRoot("f32[4] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
                           {L("f32[4]", "{0, 0, 0, 0}"), L("s32[2,1]", "{ {3}, {1} }"),
                            L("f32[2,2]", "{ { 1, 2 }, { 5, 6 } }")},
                           kAdd),
              L("f32[4]", "{0, 5, 6, 0}"));
}

TEST(EvaluatorScatterTest, RowWindows) {
  EXPECT_EVAL(EvaluateRoot("f32[3,3] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
                           {L("f32[3,3]", "{ { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } }"),
                            L("s32[2,1]", "{ {2}, {0} }"),
                            L("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }")},
                           kAdd),
              L("f32[3,3]", "{ { 5, 6, 7 }, { 1, 1, 1 }, { 2, 3, 4 } }"));
}

TEST(EvaluatorScatterTest, Variadic) {
  constexpr absl::string_view kPairAdd = R"(
pair {
  a = s32[] parameter(0)
  b = f32[] parameter(1)
  x = s32[] parameter(2)
  y = f32[] parameter(3)
  s = s32[] add(a, x)
  m = f32[] maximum(b, y)
  ROOT t = (s32[], f32[]) tuple(s, m)
})";
  EXPECT_EVAL(EvaluateRoot("(s32[3], f32[3]) scatter(p0, p1, p2, p3, p4), update_window_dims={}, "
                           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                           "index_vector_dim=1, to_apply=pair",
                           {L("s32[3]", "{0, 0, 0}"), L("f32[3]", "{0, 0, 0}"), L("s32[2,1]", "{ {2}, {2} }"),
                            L("s32[2]", "{1, 2}"), L("f32[2]", "{-1, 7}")},
                           kPairAdd),
              Literal::MakeTuple({L("s32[3]", "{0, 0, 3}"), L("f32[3]", "{0, 0, 7}")}));
}

TEST(EvaluatorScatterTest, BatchingDimensions) {
  constexpr absl::string_view kAddS32 = R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
})";
  EXPECT_EVAL(EvaluateRoot("s32[2,3] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={1}, "
                           "scatter_dims_to_operand_dims={1}, input_batching_dims={0}, "
                           "scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=add",
                           {L("s32[2,3]", "{ { 0, 0, 0 }, { 0, 0, 0 } }"), L("s32[2,1]", "{ {2}, {0} }"),
                            L("s32[2]", "{5, 7}")},
                           kAddS32),
              L("s32[2,3]", "{ { 0, 0, 5 }, { 7, 0, 0 } }"));
}

TEST(EvaluatorGatherTest, ImplicitIndexVectorAndLeadingOffsetDims) {
  // index_vector_dim = rank of the indices: each index is a scalar.
  EXPECT_EVAL(EvaluateRoot("s32[2,3] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, "
                           "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
                           {L("s32[3,3]", kMatrix), L("s32[2]", "{1, 1}")}),
              L("s32[2,3]", "{ { 4, 5, 6 }, { 4, 5, 6 } }"));
  // Columns by index, with the offset dimension first in the output:
  // out[j][i] = operand[j][idx[i]].
  EXPECT_EVAL(EvaluateRoot("s32[3,2] gather(p0, p1), offset_dims={0}, collapsed_slice_dims={1}, "
                           "start_index_map={1}, index_vector_dim=1, slice_sizes={3,1}",
                           {L("s32[3,3]", kMatrix), L("u8[2]", "{2, 0}")}),
              L("s32[3,2]", "{ { 3, 1 }, { 6, 4 }, { 9, 7 } }"));
  // Two batch dimensions of indices; unsigned indices beyond the range
  // clamp to the last valid start.
  EXPECT_EVAL(EvaluateRoot("s32[2,2] gather(p0, p1), offset_dims={}, collapsed_slice_dims={0}, "
                           "start_index_map={0}, index_vector_dim=2, slice_sizes={1}",
                           {L("s32[4]", "{10, 11, 12, 13}"), L("u32[2,2]", "{ { 0, 4294967295 }, { 2, 1 } }")}),
              L("s32[2,2]", "{ { 10, 13 }, { 12, 11 } }"));
  // No indices at all.
  EXPECT_EVAL(EvaluateRoot("s32[0,3] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, "
                           "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
                           {L("s32[3,3]", kMatrix), L("s32[0]", "{}")}),
              L("s32[0,3]", "{}"));
}

TEST(EvaluatorScatterTest, CombinersAndPartialWindows) {
  constexpr absl::string_view kMul = R"(
mul {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT m = s32[] multiply(x, y)
})";
  // Implicit index vector; a repeated index multiplies twice.
  EXPECT_EVAL(EvaluateRoot("s32[3] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul",
                           {L("s32[3]", "{1, 2, 3}"), L("s32[3]", "{2, 2, 0}"), L("s32[3]", "{5, 7, -1}")},
                           kMul),
              L("s32[3]", "{-1, 2, 105}"));
  // 2x2 windows into a 3x3 operand: the window at (2,0) sticks out of the
  // rows and is skipped whole; (1,1) fits.
  EXPECT_EVAL(EvaluateRoot("s32[3,3] scatter(p0, p1, p2), update_window_dims={1,2}, inserted_window_dims={}, "
                           "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=mul",
                           {L("s32[3,3]", "{ { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } }"),
                            L("s32[2,2]", "{ { 2, 0 }, { 1, 1 } }"),
                            L("s32[2,2,2]", "{ { { 5, 5 }, { 5, 5 } }, { { 2, 3 }, { 4, 6 } } }")},
                           kMul),
              L("s32[3,3]", "{ { 1, 1, 1 }, { 1, 2, 3 }, { 1, 4, 6 } }"));
  // An unsigned index beyond int64's range is out of bounds, not clamped.
  EXPECT_EVAL(EvaluateRoot("s32[3] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul",
                           {L("s32[3]", "{1, 2, 3}"), L("u64[1]", "{18446744073709551615}"), L("s32[1]", "{9}")},
                           kMul),
              L("s32[3]", "{1, 2, 3}"));
  // No updates.
  EXPECT_EVAL(EvaluateRoot("s32[3] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
                           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul",
                           {L("s32[3]", "{1, 2, 3}"), L("s32[0]", "{}"), L("s32[0]", "{}")}, kMul),
              L("s32[3]", "{1, 2, 3}"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
