// TileCode's own checks of the items it is given (tile_kernel_test.cc
// checks the generated code's results against the JIT kernels', bit for
// bit), and a program run directly: a parameter's tile, a scale, a sum and
// a stored result over a tile whose length is not a multiple of the
// iteration's 64 elements.
#include "backends/cpu/tile_code.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace cpu {
namespace {

using ::testing::HasSubstr;

TileLoopStep Multiply(int value, TileLoopStep::Operand a, TileLoopStep::Operand b) {
  TileLoopStep step;
  step.op = TileLoopStep::Op::kBinary;
  step.binary = tile_ops::BinaryOp::kMultiply;
  step.value = value;
  step.operands = {a, b};
  return step;
}

TileLoopStep Sum(int value, TileLoopStep::Operand x, int init_value, int64_t lanes) {
  TileLoopStep step;
  step.op = TileLoopStep::Op::kReduce;
  step.reduction = {tile_ops::BinaryOp::kAdd, /*accumulator_first=*/true, lanes};
  step.value = value;
  step.init_value = init_value;
  step.operands = {x};
  return step;
}

constexpr TileLoopStep::Operand Tile(int value) { return {TileLoopStep::Source::kTile, value}; }
constexpr TileLoopStep::Operand Scalar(int value) { return {TileLoopStep::Source::kScalar, value}; }
constexpr TileLoopStep::Operand Loop(int value) { return {TileLoopStep::Source::kLoop, value}; }

// A program of one loop.
absl::StatusOr<std::unique_ptr<TileCode>> CompileLoop(std::vector<TileLoopStep> steps) {
  std::vector<TileCodeItem> items(1);
  items[0].loop = std::move(steps);
  return TileCode::Compile(std::move(items), /*row_length=*/1);
}

TEST(TileCodeTest, RefusesOperandsThatAreNotEarlierLoopValues) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  absl::StatusOr<std::unique_ptr<TileCode>> later =
      CompileLoop({Multiply(2, Loop(3), Scalar(1)), Multiply(3, Tile(0), Scalar(1))});
  EXPECT_THAT(later.status().message(), HasSubstr("value 3 is not an earlier loop value"));
  // A reduce's value is a scalar once the loop has run, not a loop value.
  absl::StatusOr<std::unique_ptr<TileCode>> reduced =
      CompileLoop({Sum(2, Tile(0), 1, 64), Multiply(3, Loop(2), Scalar(1))});
  EXPECT_THAT(reduced.status().message(), HasSubstr("value 2 is not an earlier loop value"));
}

TEST(TileCodeTest, RefusesReducesOfOtherLaneCounts) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  EXPECT_THAT(CompileLoop({Sum(2, Tile(0), 1, 0)}).status().message(),
              HasSubstr("other than 32 or 64 lanes"));
  EXPECT_THAT(CompileLoop({Sum(2, Tile(0), 1, 64), Sum(3, Tile(0), 1, 64), Sum(4, Tile(0), 1, 32)})
                  .status()
                  .message(),
              HasSubstr("more than 128 lanes"));
}

TEST(TileCodeTest, RunsScaleSumAndStoreOverAPartialIteration) {
  if (!TileCode::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 row 1 of x (tile, from buffers[0] at start 3), 1 the scale
  // (buffers[1][0]), 2 the zero init, 3 x * scale (stored), 4 its sum.
  constexpr int kN = 100;
  constexpr int kRowLength = kN + 3;
  std::vector<TileCodeItem> items(4);
  items[0].step = TileScalarStep{TileScalarStep::Op::kRowTile, 0, /*parameter=*/0};
  items[1].step = TileScalarStep{TileScalarStep::Op::kFirstElement, 1, /*parameter=*/1};
  items[2].step = TileScalarStep{TileScalarStep::Op::kConstant, 2, -1, /*constant=*/0.0f};
  TileLoopStep scaled = Multiply(3, Tile(0), Scalar(1));
  scaled.store = true;
  items[3].loop = {scaled, Sum(4, Loop(3), 2, 32)};
  absl::StatusOr<std::unique_ptr<TileCode>> code = TileCode::Compile(items, kRowLength);
  ASSERT_TRUE(code.ok()) << code.status();
  std::vector<float> x(2 * kRowLength, -7.0f), scale = {0.5f}, out(kN + 1, -1.0f);
  for (int i = 0; i < kN; ++i) x[kRowLength + 3 + i] = static_cast<float>(i + 1);
  void* buffers[] = {x.data(), scale.data()};
  std::vector<TileValue> values(5);
  values[3].tile = out.data();
  (*code)->Run(values.data(), kN, buffers, /*row=*/1, /*start=*/3);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(out[i], 0.5f * (i + 1)) << i;
  EXPECT_EQ(out[kN], -1.0f) << "wrote past the tile";
  // Halves of 1..100 sum exactly in any order.
  EXPECT_EQ(values[4].scalar, 2525.0f);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
