// TileLoop's own checks of the steps it is given (tile_kernel_test.cc
// checks the loops' results against the JIT kernels', bit for bit), and
// one loop run directly: a scale, a sum and a stored result over a tile
// whose length is not a multiple of the iteration's 64 elements.
#include "backends/cpu/tile_loop.h"

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

TEST(TileLoopTest, RefusesOperandsThatAreNotEarlierLoopValues) {
  if (!TileLoop::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  absl::StatusOr<std::unique_ptr<TileLoop>> later =
      TileLoop::Compile({Multiply(2, Loop(3), Scalar(1)), Multiply(3, Tile(0), Scalar(1))});
  EXPECT_THAT(later.status().message(), HasSubstr("value 3 is not an earlier loop value"));
  // A reduce's value is a scalar once the loop has run, not a loop value.
  absl::StatusOr<std::unique_ptr<TileLoop>> reduced =
      TileLoop::Compile({Sum(2, Tile(0), 1, 64), Multiply(3, Loop(2), Scalar(1))});
  EXPECT_THAT(reduced.status().message(), HasSubstr("value 2 is not an earlier loop value"));
}

TEST(TileLoopTest, RefusesReducesOfOtherLaneCounts) {
  if (!TileLoop::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  EXPECT_THAT(TileLoop::Compile({Sum(2, Tile(0), 1, 0)}).status().message(),
              HasSubstr("other than 32 or 64 lanes"));
  EXPECT_THAT(
      TileLoop::Compile({Sum(2, Tile(0), 1, 64), Sum(3, Tile(0), 1, 64), Sum(4, Tile(0), 1, 32)})
          .status()
          .message(),
      HasSubstr("more than 128 lanes"));
}

TEST(TileLoopTest, RunsScaleSumAndStoreOverAPartialIteration) {
  if (!TileLoop::Supported()) GTEST_SKIP() << "the host has no AVX-512";
  // values: 0 x (tile), 1 the scale, 2 the zero init, 3 x * scale (stored),
  // 4 its sum.
  TileLoopStep scaled = Multiply(3, Tile(0), Scalar(1));
  scaled.store = true;
  absl::StatusOr<std::unique_ptr<TileLoop>> loop =
      TileLoop::Compile({scaled, Sum(4, Loop(3), 2, 32)});
  ASSERT_TRUE(loop.ok()) << loop.status();
  constexpr int kN = 100;
  std::vector<float> x(kN), out(kN + 1, -1.0f);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>(i + 1);
  std::vector<TileValue> values(5);
  values[0].tile = x.data();
  values[1].scalar = 0.5f;
  values[2].scalar = 0.0f;
  values[3].tile = out.data();
  (*loop)->Run(values.data(), kN);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(out[i], 0.5f * (i + 1)) << i;
  EXPECT_EQ(out[kN], -1.0f) << "wrote past the tile";
  // Halves of 1..100 sum exactly in any order.
  EXPECT_EQ(values[4].scalar, 2525.0f);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
