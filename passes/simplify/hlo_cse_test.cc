#include "passes/simplify/hlo_cse.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using ::testing::UnorderedElementsAre;

using pass_test::Parse;

std::vector<std::string> Names(const HloComputation& computation) {
  return pass_test::InstructionNames(computation);
}

const HloInstruction* Root(const HloModule& module) {
  return module.entry_computation()->root_instruction();
}

TEST(HloCseTest, MergesEqualExpressionTrees) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a1 = f32[4] exponential(p0)
  a2 = f32[4] exponential(p0)
  b1 = f32[4] negate(a1)
  b2 = f32[4] negate(a2)
  ROOT r = f32[4] subtract(b1, b2)
})");
  ASSERT_TRUE(*HloCse().Run(module.get()));
  EXPECT_THAT(Names(*module->entry_computation()), UnorderedElementsAre("p0", "a1", "b1", "r"));
  EXPECT_EQ(Root(*module)->operand(0), Root(*module)->operand(1));
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, CommutativeOperandsInEitherOrder) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  x = f32[4] add(p0, p1)
  y = f32[4] add(p1, p0)
  eq1 = pred[4] compare(p0, p1), direction=EQ
  eq2 = pred[4] compare(p1, p0), direction=EQ
  ROOT t = (f32[4], f32[4], pred[4], pred[4]) tuple(x, y, eq1, eq2)
})");
  ASSERT_TRUE(*HloCse().Run(module.get()));
  EXPECT_THAT(Names(*module->entry_computation()),
              UnorderedElementsAre("p0", "p1", "x", "eq1", "t"));
}

TEST(HloCseTest, NonCommutativeOperandOrderMatters) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  x = f32[4] subtract(p0, p1)
  y = f32[4] subtract(p1, p0)
  lt1 = pred[4] compare(p0, p1), direction=LT
  lt2 = pred[4] compare(p1, p0), direction=LT
  ROOT t = (f32[4], f32[4], pred[4], pred[4]) tuple(x, y, lt1, lt2)
})");
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, EqualConstantsMergeAndUnlockMore) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[3] parameter(0)
  c1 = f32[3] constant({1, 2, 3})
  c2 = f32[3] constant({1, 2, 3})
  c3 = f32[3] constant({1, 2, 4})
  m1 = f32[3] multiply(p0, c1)
  m2 = f32[3] multiply(p0, c2)
  m3 = f32[3] multiply(p0, c3)
  ROOT t = (f32[3], f32[3], f32[3]) tuple(m1, m2, m3)
})");
  ASSERT_TRUE(*HloCse().Run(module.get()));
  EXPECT_THAT(Names(*module->entry_computation()),
              UnorderedElementsAre("p0", "c1", "c3", "m1", "m3", "t"));
}

TEST(HloCseTest, DifferentTypesLayoutsOrAttributesDoNotMerge) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  i = s32[2] constant({1, 2})
  u = u32[2] constant({1, 2})
  p0 = f32[2,3] parameter(0)
  t1 = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
  t2 = f32[3,2]{0,1} transpose(p0), dimensions={1,0}
  sl1 = f32[1,3] slice(p0), slice={[0:1], [0:3]}
  sl2 = f32[1,3] slice(p0), slice={[1:2], [0:3]}
  ROOT t = (s32[2], u32[2], f32[3,2]{1,0}, f32[3,2]{0,1}, f32[1,3], f32[1,3]) tuple(i, u, t1, t2, sl1, sl2)
})");
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, NegativeZeroAndZeroAreDifferentConstants) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  z = f32[] constant(0)
  nz = f32[] constant(-0)
  ROOT t = (f32[], f32[]) tuple(z, nz)
})");
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, SideEffectsAndRngNeverMerge) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r1 = f32[4] rng(lo, hi), distribution=rng_uniform
  r2 = f32[4] rng(lo, hi), distribution=rng_uniform
  ROOT t = (f32[4], f32[4]) tuple(r1, r2)
})");
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, ControlEdgesBlockMerging) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = f32[4] negate(p0)
  b = f32[4] negate(p0), control-predecessors={a}
  ROOT t = (f32[4], f32[4]) tuple(a, b)
})");
  EXPECT_FALSE(*HloCse().Run(module.get()));
}

TEST(HloCseTest, RootDuplicateIsReplaced) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = f32[4] negate(p0)
  t = (f32[4]) tuple(a)
  ROOT b = f32[4] negate(p0)
})");
  ASSERT_TRUE(*HloCse().Run(module.get()));
  EXPECT_EQ(Root(*module)->name(), "a");
}

TEST(HloCseTest, WorksInsideCalledComputations) {
  auto module = Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  sum1 = f32[] add(x, y)
  sum2 = f32[] add(y, x)
  ROOT r = f32[] maximum(sum1, sum2)
}
ENTRY e {
  p0 = f32[8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p0, z), dimensions={0}, to_apply=add
})");
  ASSERT_TRUE(*HloCse().Run(module.get()));
  EXPECT_EQ(module->GetComputationWithName("add")->instruction_count(), 4);
}

}  // namespace
}  // namespace tessera
