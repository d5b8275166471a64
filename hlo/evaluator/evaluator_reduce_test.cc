// reduce (including variadic and its fixed order), reduce-window (strides,
// padding, dilations, variadic) and select-and-scatter.
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator_test_util.h"

namespace tessera {
namespace evaluator_test {
namespace {

constexpr absl::string_view kAddF32 = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
)";

TEST(EvaluatorReduceTest, SumAndMaxOverDimensions) {
  const Literal x = L("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce(p0, p1), dimensions={1}, to_apply=add", {x, L("f32[]", "0")},
                           kAddF32),
              L("f32[2]", "{6, 15}"));
  EXPECT_EVAL(EvaluateRoot("f32[3] reduce(p0, p1), dimensions={0}, to_apply=add", {x, L("f32[]", "10")},
                           kAddF32),
              L("f32[3]", "{15, 17, 19}"));
  EXPECT_EVAL(EvaluateRoot("f32[] reduce(p0, p1), dimensions={0,1}, to_apply=max",
                           {x, L("f32[]", "-inf")}, kAddF32),
              L("f32[]", "6"));
  EXPECT_EVAL(EvaluateRoot("f32[2,3] reduce(p0, p1), dimensions={}, to_apply=add", {x, L("f32[]", "1")},
                           kAddF32),
              L("f32[2,3]", "{ { 2, 3, 4 }, { 5, 6, 7 } }"));
}

TEST(EvaluatorReduceTest, FoldsInRowMajorOrderFromTheInitValue) {
  // ((((0 + 1e8) + 1) + -1e8) + 1) in f32 is 1; any other order or a wider
  // accumulator gives 2 or 0.
  EXPECT_EVAL(EvaluateRoot("f32[] reduce(p0, p1), dimensions={0}, to_apply=add",
                           {L("f32[4]", "{1e8, 1, -1e8, 1}"), L("f32[]", "0")}, kAddF32),
              L("f32[]", "1"));
  // The reduced dimensions are walked row-major: (0,0) (0,1) (1,0) (1,1).
  constexpr absl::string_view kSecondMinusFirst = R"(
sub {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  ten = s32[] constant(10)
  scaled = s32[] multiply(acc, ten)
  ROOT r = s32[] add(scaled, x)
})";
  EXPECT_EVAL(EvaluateRoot("s32[] reduce(p0, p1), dimensions={0,1}, to_apply=sub",
                           {L("s32[2,2]", "{ { 1, 2 }, { 3, 4 } }"), L("s32[]", "0")}, kSecondMinusFirst),
              L("s32[]", "1234"));
  EXPECT_EVAL(EvaluateRoot("s32[2] reduce(p0, p1), dimensions={0}, to_apply=sub",
                           {L("s32[2,2]", "{ { 1, 2 }, { 3, 4 } }"), L("s32[]", "5")}, kSecondMinusFirst),
              L("s32[2]", "{513, 524}"));
}

TEST(EvaluatorReduceTest, EmptyReductionGivesInit) {
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce(p0, p1), dimensions={1}, to_apply=add",
                           {L("f32[2,0]", "{ {}, {} }"), L("f32[]", "7")}, kAddF32),
              L("f32[2]", "{7, 7}"));
  EXPECT_EVAL(EvaluateRoot("f32[0] reduce(p0, p1), dimensions={0}, to_apply=add",
                           {L("f32[3,0]", "{ {}, {}, {} }"), L("f32[]", "7")}, kAddF32),
              L("f32[0]", "{}"));
}

TEST(EvaluatorReduceTest, VariadicArgmax) {
  constexpr absl::string_view kArgmax = R"(
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  eq = pred[] compare(v1, v0), direction=EQ
  lower = pred[] compare(i1, i0), direction=LT
  tie = pred[] and(eq, lower)
  take = pred[] or(gt, tie)
  v = f32[] select(take, v1, v0)
  i = s32[] select(take, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
})";
  EXPECT_EVAL(EvaluateRoot("(f32[2], s32[2]) reduce(p0, p1, p2, p3), dimensions={1}, to_apply=argmax",
                           {L("f32[2,4]", "{ { 1, 5, 5, 2 }, { -1, -3, -0.5, -2 } }"),
                            L("s32[2,4]", "{ { 0, 1, 2, 3 }, { 0, 1, 2, 3 } }"), L("f32[]", "-inf"),
                            L("s32[]", "-1")},
                           kArgmax),
              Literal::MakeTuple({L("f32[2]", "{5, -0.5}"), L("s32[2]", "{1, 2}")}));
}

TEST(EvaluatorReduceTest, ReduceWindowMaxPool) {
  const Literal x = L("f32[4,4]", "{ { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 }, { 13, 14, 15, 16 } }");
  EXPECT_EVAL(EvaluateRoot("f32[2,2] reduce-window(p0, p1), window={size=2x2 stride=2x2}, to_apply=max",
                           {x, L("f32[]", "-inf")}, kAddF32),
              L("f32[2,2]", "{ { 6, 8 }, { 14, 16 } }"));
  EXPECT_EVAL(EvaluateRoot("f32[3,3] reduce-window(p0, p1), window={size=2x2}, to_apply=add",
                           {x, L("f32[]", "0")}, kAddF32),
              L("f32[3,3]", "{ { 14, 18, 22 }, { 30, 34, 38 }, { 46, 50, 54 } }"));
}

TEST(EvaluatorReduceTest, ReduceWindowPaddingAndDilation) {
  const Literal x = L("f32[4]", "{1, 2, 3, 4}");
  // Padding is skipped (not folded in as the init value).
  EXPECT_EVAL(EvaluateRoot("f32[3] reduce-window(p0, p1), window={size=3 stride=2 pad=2_1}, to_apply=add",
                           {x, L("f32[]", "100")}, kAddF32),
              L("f32[3]", "{101, 106, 107}"));
  // Window dilation 2: elements i, i+2.
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce-window(p0, p1), window={size=2 rhs_dilate=2}, to_apply=add",
                           {x, L("f32[]", "0")}, kAddF32),
              L("f32[2]", "{4, 6}"));
  // Base dilation 2: the input is 1 _ 2 _ 3 _ 4; holes are skipped.
  EXPECT_EVAL(EvaluateRoot("f32[6] reduce-window(p0, p1), window={size=2 lhs_dilate=2}, to_apply=add",
                           {x, L("f32[]", "0")}, kAddF32),
              L("f32[6]", "{1, 2, 2, 3, 3, 4}"));
  EXPECT_EVAL(EvaluateRoot("f32[0] reduce-window(p0, p1), window={size=5}, to_apply=add",
                           {x, L("f32[]", "0")}, kAddF32),
              L("f32[0]", "{}"));
}

TEST(EvaluatorReduceTest, VariadicReduceWindow) {
  constexpr absl::string_view kMinMax = R"(
minmax {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  x = s32[] parameter(2)
  y = s32[] parameter(3)
  lo = s32[] minimum(a, x)
  hi = s32[] maximum(b, y)
  ROOT t = (s32[], s32[]) tuple(lo, hi)
})";
  const Literal x = L("s32[5]", "{3, -1, 4, 1, 5}");
  EXPECT_EVAL(EvaluateRoot("(s32[3], s32[3]) reduce-window(p0, p0, p1, p2), window={size=3}, to_apply=minmax",
                           {x, L("s32[]", "100"), L("s32[]", "-100")}, kMinMax),
              Literal::MakeTuple({L("s32[3]", "{-1, -1, 1}"), L("s32[3]", "{4, 4, 5}")}));
}

TEST(EvaluatorReduceTest, SelectAndScatter) {
  constexpr absl::string_view kComputations = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
})";
  // Max-pool gradient: each source value goes to its window's maximum
  // (the first one on ties); overlapping windows add up.
  EXPECT_EVAL(EvaluateRoot("f32[6] select-and-scatter(p0, p1, p2), window={size=2 stride=2}, select=ge, scatter=add",
                           {L("f32[6]", "{1, 9, 3, 3, 7, 2}"), L("f32[3]", "{10, 20, 30}"), L("f32[]", "0")},
                           kComputations),
              L("f32[6]", "{0, 10, 20, 0, 30, 0}"));
  EXPECT_EVAL(EvaluateRoot("f32[5] select-and-scatter(p0, p1, p2), window={size=3 stride=1}, select=ge, scatter=add",
                           {L("f32[5]", "{1, 5, 2, 0, 4}"), L("f32[3]", "{1, 2, 4}"), L("f32[]", "0.5")},
                           kComputations),
              L("f32[5]", "{0.5, 3.5, 0.5, 0.5, 4.5}"));
  // Padding: windows that stick out only see the operand's elements.
  EXPECT_EVAL(EvaluateRoot("f32[3] select-and-scatter(p0, p1, p2), window={size=2 stride=2 pad=1_0}, select=ge, scatter=add",
                           {L("f32[3]", "{4, 1, 2}"), L("f32[2]", "{7, 8}"), L("f32[]", "0")}, kComputations),
              L("f32[3]", "{7, 0, 8}"));
}

TEST(EvaluatorReduceTest, ReducerRoundsAtEveryStep) {
  // The reducer runs in the element type: f16 2048 + 1 rounds back to 2048
  // each time (a dot, which accumulates wider, gives 2050).
  constexpr absl::string_view kAddF16 = R"(
add16 {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
})";
  EXPECT_EVAL(EvaluateRoot("f16[] reduce(p0, p1), dimensions={0}, to_apply=add16",
                           {L("f16[3]", "{2048, 1, 1}"), L("f16[]", "0")}, kAddF16),
              L("f16[]", "2048"));
  // Integer sums wrap.
  constexpr absl::string_view kAddS8 = R"(
add8 {
  x = s8[] parameter(0)
  y = s8[] parameter(1)
  ROOT s = s8[] add(x, y)
})";
  EXPECT_EVAL(EvaluateRoot("s8[] reduce(p0, p1), dimensions={0}, to_apply=add8",
                           {L("s8[2]", "{100, 100}"), L("s8[]", "0")}, kAddS8),
              L("s8[]", "-56"));
}

TEST(EvaluatorReduceTest, ReduceNonAdjacentDimensionsAndNan) {
  // x[i][j][k] = 100i + 10j + k over i, k: out[j] = sum.
  const Literal x = L("f32[2,2,3]", "{ { { 0, 1, 2 }, { 10, 11, 12 } }, { { 100, 101, 102 }, { 110, 111, 112 } } }");
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce(p0, p1), dimensions={0,2}, to_apply=add", {x, L("f32[]", "0")}, kAddF32),
              L("f32[2]", "{306, 366}"));
  // maximum propagates NaN through a reduction.
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce(p0, p1), dimensions={1}, to_apply=max",
                           {L("f32[2,3]", "{ { 1, nan, 3 }, { -inf, -inf, -inf } }"), L("f32[]", "-inf")}, kAddF32),
              L("f32[2]", "{nan, -inf}"));
}

TEST(EvaluatorReduceTest, ReduceWindowTwoDimensionalWithEverything) {
  // 3x3 input, window 2x2, stride 2x1, padding 1_0 on rows, window dilation
  // 2 on columns: out[r][c] sums rows {2r-1, 2r} and columns {c, c+2}.
  const Literal x = L("f32[3,3]", "{ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }");
  EXPECT_EVAL(EvaluateRoot("f32[2,1] reduce-window(p0, p1), window={size=2x2 stride=2x1 pad=1_0x0_0 rhs_dilate=1x2}, "
                           "to_apply=add",
                           {x, L("f32[]", "0")}, kAddF32),
              L("f32[2,1]", "{ { 4 }, { 26 } }"));
  // Base dilation with padding: 1 _ _ 2 padded by one on each side; windows
  // that see only holes and padding give the init value.
  EXPECT_EVAL(EvaluateRoot("f32[5] reduce-window(p0, p1), window={size=2 pad=1_1 lhs_dilate=3}, to_apply=max",
                           {L("f32[2]", "{1, 2}"), L("f32[]", "-inf")}, kAddF32),
              L("f32[5]", "{1, 1, -inf, 2, 2}"));
  // An empty input with padding: every window is padding.
  EXPECT_EVAL(EvaluateRoot("f32[2] reduce-window(p0, p1), window={size=1 pad=1_1}, to_apply=add",
                           {L("f32[0]", "{}"), L("f32[]", "7")}, kAddF32),
              L("f32[2]", "{7, 7}"));
}

TEST(EvaluatorReduceTest, SelectAndScatterTwoDimensional) {
  constexpr absl::string_view kComputations = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
})";
  EXPECT_EVAL(EvaluateRoot("f32[2,4] select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=ge, "
                           "scatter=add",
                           {L("f32[2,4]", "{ { 1, 8, 3, 3 }, { 5, 2, 4, 3 } }"), L("f32[1,2]", "{ { 10, 20 } }"),
                            L("f32[]", "0")},
                           kComputations),
              L("f32[2,4]", "{ { 0, 10, 0, 0 }, { 0, 0, 20, 0 } }"));
}

}  // namespace
}  // namespace evaluator_test
}  // namespace tessera
