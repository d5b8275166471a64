#include "passes/simplify/constant_folding.h"

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/hlo_dce.h"

namespace tessera {
namespace {

using pass_test::EntryOpcodes;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

const HloInstruction& Root(const HloModule& module) {
  return *module.entry_computation()->root_instruction();
}

TEST(ConstantFoldingTest, FoldsExpressionsOverConstants) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[3] parameter(0)
  c = f32[3] constant({1, 2, 3})
  two = f32[] constant(2)
  b = f32[3] broadcast(two), dimensions={}
  m = f32[3] multiply(c, b)
  e = f32[3] exponential(m)
  ROOT r = f32[3] add(p0, e)
})");
  ConstantFolding pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_TRUE(HloDce().Run(module.get()).ok());
  EXPECT_EQ(EntryOpcodes(*module), "parameter,constant,add");
  const Literal& folded = Root(*module).operand(1)->literal();
  EXPECT_EQ(folded.Get<float>({1}), std::exp(4.0f));
}

TEST(ConstantFoldingTest, FoldsReductionsWithTheirReducer) {
  auto module = Parse(R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  c = s32[4] constant({1, 2, 3, 4})
  z = s32[] constant(0)
  ROOT r = s32[] reduce(c, z), dimensions={0}, to_apply=add
})");
  ConstantFolding pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_EQ(Root(*module).opcode(), HloOpcode::kConstant);
  EXPECT_EQ(Root(*module).literal().Get<int32_t>({}), 10);
}

TEST(ConstantFoldingTest, BroadcastsAndLargeIotasStay) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  one = f32[] constant(1)
  big = f32[1000] broadcast(one), dimensions={}
  small = f32[8] broadcast(one), dimensions={}
  i = s32[1000] iota(), iota_dimension=0
  j = s32[8] iota(), iota_dimension=0
  ROOT t = (f32[1000], f32[8], s32[1000], s32[8]) tuple(big, small, i, j)
})");
  ConstantFolding pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(EntryOpcodes(*module), "constant,broadcast,broadcast,iota,constant,tuple");
}

TEST(ConstantFoldingTest, KeepsLayoutOfTheFoldedValue) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  c = f32[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT t = f32[3,2]{0,1} transpose(c), dimensions={1,0}
})");
  ConstantFolding pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_EQ(Root(*module).opcode(), HloOpcode::kConstant);
  EXPECT_EQ(Root(*module).shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Root(*module).literal().Get<float>({2, 1}), 6.0f);
}

TEST(ConstantFoldingTest, SideEffectsAndLoopsStay) {
  auto module = Parse(R"(
HloModule m
body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(i, one)
}
cond {
  i = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  w = s32[] while(zero), condition=cond, body=body
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[2] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[], f32[2]) tuple(w, r)
})");
  EXPECT_FALSE(*ConstantFolding().Run(module.get()));
}

TEST(ConstantFoldingTest, IntegerDivisionByZeroFoldsAsXlaDefines) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  a = s32[2] constant({7, -7})
  z = s32[2] constant({0, 0})
  ROOT d = s32[2] divide(a, z)
})");
  ConstantFolding pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_EQ(Root(*module).opcode(), HloOpcode::kConstant);
  // XLA: x / 0 is -1 for every x.
  EXPECT_EQ(Root(*module).literal().Get<int32_t>({0}), -1);
  EXPECT_EQ(Root(*module).literal().Get<int32_t>({1}), -1);
}

}  // namespace
}  // namespace tessera
