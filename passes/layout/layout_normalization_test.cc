#include "passes/layout/layout_normalization.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using pass_test::FindInstruction;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

std::string LayoutOf(const Shape& shape) {
  const std::string text = shape.ToString(/*print_layout=*/true);
  return text.substr(text.find('{'));
}

int CountCopies(const HloComputation& computation) {
  int count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == HloOpcode::kCopy;
  }
  return count;
}

// What JAX writes for an embedding lookup scanned over time: the loop state
// carries a transposed view ({2,0,1}) that the body declares row-major.
constexpr absl::string_view kTransposedLoopState = R"(HloModule m
body {
  s = (s32[], f32[4,3,5]{2,1,0}, f32[4,3,5]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  xs = f32[4,3,5]{2,1,0} get-tuple-element(s), index=1
  zero = s32[] constant(0)
  row = f32[1,3,5]{2,1,0} dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,3,5}
  th = f32[1,3,5]{2,1,0} tanh(row)
  out = f32[4,3,5]{2,1,0} get-tuple-element(s), index=2
  next_out = f32[4,3,5]{2,1,0} dynamic-update-slice(out, th, i, zero, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT r = (s32[], f32[4,3,5]{2,1,0}, f32[4,3,5]{2,1,0}) tuple(next, xs, next_out)
}
cond {
  s = (s32[], f32[4,3,5]{2,1,0}, f32[4,3,5]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[3,4,5]{2,1,0} parameter(0)
  t = f32[4,3,5]{2,0,1} transpose(p), dimensions={1,0,2}
  zero = s32[] constant(0)
  z = f32[] constant(0)
  out = f32[4,3,5]{2,1,0} broadcast(z), dimensions={}
  init = (s32[], f32[4,3,5]{2,0,1}, f32[4,3,5]{2,1,0}) tuple(zero, t, out)
  w = (s32[], f32[4,3,5]{2,0,1}, f32[4,3,5]{2,1,0}) while(init), condition=cond, body=body
  ROOT result = f32[4,3,5]{2,1,0} get-tuple-element(w), index=2
})";

TEST(LayoutNormalizationTest, ConvertsWhileInitToTheBodyLayout) {
  std::unique_ptr<HloModule> module = Parse(kTransposedLoopState);
  ASSERT_NE(module, nullptr);
  LayoutNormalization pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(pass.conversions_added(), 1);
  const HloInstruction* loop = FindInstruction(*module, "w");
  ASSERT_NE(loop, nullptr);
  // The init the loop now takes stores the transposed view row-major.
  EXPECT_EQ(LayoutOf(loop->operand(0)->shape().tuple_shapes(1)), "{2,1,0}");
  EXPECT_EQ(loop->shape(), loop->while_body()->parameter_instruction(0)->shape());
  EXPECT_EQ(CountCopies(*module->entry_computation()), 1);
  // The view itself keeps its layout; only the loop's copy changes it.
  EXPECT_EQ(LayoutOf(FindInstruction(*module, "t")->shape()), "{2,0,1}");
  LayoutNormalization again;
  EXPECT_FALSE(*again.Run(module.get()));
}

TEST(LayoutNormalizationTest, LeavesAgreeingLayoutsAlone) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
  y = f32[8] tanh(x)
  ROOT r = (s32[], f32[8]) tuple(n, y)
}
cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = f32[8]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]{0}) tuple(zero, x)
  ROOT w = (s32[], f32[8]{0}) while(init), condition=cond, body=body
})");
  ASSERT_NE(module, nullptr);
  LayoutNormalization pass;
  EXPECT_FALSE(*pass.Run(module.get()));
  EXPECT_EQ(pass.conversions_added(), 0);
}

TEST(LayoutNormalizationTest, GetTupleElementFollowsTheElement) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  t = f32[3,2]{0,1} transpose(p), dimensions={1,0}
  q = (f32[3,2]{0,1}, f32[2,3]{1,0}) tuple(t, p)
  g = f32[3,2]{1,0} get-tuple-element(q), index=0
  ROOT n = f32[3,2]{1,0} negate(g)
})");
  ASSERT_NE(module, nullptr);
  LayoutNormalization pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  // The element is stored column-major; the get-tuple-element says so now
  // and the negate, which computes, keeps its own layout.
  EXPECT_EQ(LayoutOf(FindInstruction(*module, "g")->shape()), "{0,1}");
  EXPECT_EQ(LayoutOf(FindInstruction(*module, "n")->shape()), "{1,0}");
  EXPECT_EQ(pass.conversions_added(), 0);
}

TEST(LayoutNormalizationTest, ConditionalBranchesAndOperandsAgree) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
on_true {
  a = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{0,1} negate(a)
}
on_false {
  b = f32[2,3]{1,0} parameter(0)
  ROOT e = f32[2,3]{1,0} exponential(b)
}
ENTRY e {
  c = pred[] parameter(0)
  x = f32[2,3]{1,0} parameter(1)
  ROOT r = f32[2,3]{1,0} conditional(c, x, x), true_computation=on_true, false_computation=on_false
})");
  ASSERT_NE(module, nullptr);
  LayoutNormalization pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  // The true branch takes a column-major copy of x and returns a row-major
  // copy of its result; the false branch already agrees.
  EXPECT_EQ(pass.conversions_added(), 2);
  const HloInstruction* conditional = FindInstruction(*module, "r");
  EXPECT_EQ(LayoutOf(conditional->operand(1)->shape()), "{0,1}");
  EXPECT_EQ(LayoutOf(conditional->operand(2)->shape()), "{1,0}");
  EXPECT_EQ(LayoutOf(conditional->called_computations()[0]->root_instruction()->shape()),
            "{1,0}");
}

TEST(LayoutNormalizationTest, DynamicUpdateSliceUpdatesAnOperandStoredAsItsResult) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  p = f32[4,6]{0,1} parameter(0)
  u = f32[2,6]{1,0} parameter(1)
  i = s32[] parameter(2)
  zero = s32[] constant(0)
  ROOT d = f32[4,6]{1,0} dynamic-update-slice(p, u, i, zero)
})");
  ASSERT_NE(module, nullptr);
  LayoutNormalization pass;
  EXPECT_TRUE(*RunPassKeepingResults(pass, *module));
  const HloInstruction* update = FindInstruction(*module, "d");
  EXPECT_EQ(update->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(LayoutOf(update->operand(0)->shape()), "{1,0}");
}

}  // namespace
}  // namespace tessera
