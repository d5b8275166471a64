#include "passes/simplify/hlo_dce.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

using pass_test::Parse;

std::vector<std::string> Names(const HloComputation& computation) {
  return pass_test::InstructionNames(computation);
}

std::vector<std::string> ComputationNames(const HloModule& module) {
  std::vector<std::string> names;
  for (const HloComputation* computation : module.computations()) {
    names.push_back(computation->name());
  }
  return names;
}

TEST(HloDceTest, RemovesDeadChainsButKeepsParameters) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  dead1 = f32[4] exponential(p1)
  dead2 = f32[4] add(dead1, p0)
  ROOT live = f32[4] negate(p0)
})");
  HloDce dce;
  ASSERT_TRUE(*dce.Run(module.get()));
  EXPECT_THAT(Names(*module->entry_computation()), UnorderedElementsAre("p0", "p1", "live"));
  EXPECT_FALSE(*dce.Run(module.get()));  // nothing left to do
}

TEST(HloDceTest, NothingDeadIsUnchanged) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
})");
  EXPECT_FALSE(*HloDce().Run(module.get()));
}

TEST(HloDceTest, KeepsSideEffectsAndControlOrdering) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  tok = token[] after-all()
  effect = token[] custom-call(tok), custom_call_target="log", custom_call_has_side_effect=true
  ordered = f32[4] abs(p0)
  ROOT n = f32[4] negate(p0), control-predecessors={ordered}
})");
  EXPECT_FALSE(*HloDce().Run(module.get()));
  EXPECT_EQ(module->entry_computation()->instruction_count(), 5);
}

TEST(HloDceTest, KeepsCallsWhoseCalleesHaveSideEffects) {
  auto module = Parse(R"(
HloModule m
noisy {
  x = f32[] parameter(0)
  t = token[] after-all()
  e = token[] custom-call(t), custom_call_target="log", custom_call_has_side_effect=true
  ROOT r = f32[] negate(x)
}
quiet {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
ENTRY e {
  p0 = f32[] parameter(0)
  c1 = f32[] call(p0), to_apply=noisy
  c2 = f32[] call(p0), to_apply=quiet
  ROOT n = f32[] abs(p0)
})");
  ASSERT_TRUE(*HloDce().Run(module.get()));
  EXPECT_THAT(Names(*module->entry_computation()), UnorderedElementsAre("p0", "c1", "n"));
  // `quiet` lost its only caller and went with it.
  EXPECT_THAT(ComputationNames(*module), UnorderedElementsAre("noisy", "e"));
}

TEST(HloDceTest, RemovesUncalledComputationsTransitively) {
  auto module = Parse(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
unused_reduce {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
})");
  ASSERT_TRUE(*HloDce().Run(module.get()));
  EXPECT_THAT(ComputationNames(*module), ElementsAre("e"));
}

TEST(HloDceTest, CanKeepDeadComputations) {
  auto module = Parse(R"(
HloModule m
unused {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
ENTRY e {
  p0 = f32[] parameter(0)
  ROOT n = f32[] negate(p0)
})");
  EXPECT_FALSE(*HloDce(/*remove_dead_computations=*/false).Run(module.get()));
  EXPECT_EQ(module->computation_count(), 2);
}

TEST(HloDceTest, RemovesDeadCodeInsideCalledComputations) {
  auto module = Parse(R"(
HloModule m
body {
  x = f32[] parameter(0)
  dead = f32[] exponential(x)
  ROOT r = f32[] negate(x)
}
ENTRY e {
  p0 = f32[] parameter(0)
  ROOT c = f32[] call(p0), to_apply=body
})");
  ASSERT_TRUE(*HloDce().Run(module.get()));
  EXPECT_THAT(Names(*module->GetComputationWithName("body")), UnorderedElementsAre("x", "r"));
}

TEST(HloDceTest, DropsDeadWhileStateElements) {
  auto module = Parse(R"(
HloModule m
body {
  s = (s32[], f32[4], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  unused = s32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  next_x = f32[4] negate(x)
  next_unused = s32[] multiply(unused, unused)
  ROOT t = (s32[], f32[4], s32[]) tuple(next_i, next_x, next_unused)
}
cond {
  s = (s32[], f32[4], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p0 = f32[4] parameter(0)
  zero = s32[] constant(0)
  seven = s32[] constant(7)
  init = (s32[], f32[4], s32[]) tuple(zero, p0, seven)
  w = (s32[], f32[4], s32[]) while(init), condition=cond, body=body
  ROOT x = f32[4] get-tuple-element(w), index=1
})");
  HloDce dce;
  ASSERT_TRUE(*pass_test::RunPassKeepingResults(dce, *module));
  const HloInstruction* loop = module->entry_computation()->root_instruction()->operand(0);
  ASSERT_EQ(loop->opcode(), HloOpcode::kWhile);
  // The counter stays (the condition reads it); the unused element goes.
  EXPECT_EQ(loop->shape().tuple_shapes().size(), 2u);
  EXPECT_EQ(module->computation_count(), 3);  // new body, new condition, entry
}

TEST(HloDceTest, KeepsWhileElementsThatFeedOthers) {
  auto module = Parse(R"(
HloModule m
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  next_acc = s32[] add(acc, i)
  ROOT t = (s32[], s32[]) tuple(next_i, next_acc)
}
cond {
  s = (s32[], s32[]) parameter(0)
  acc = s32[] get-tuple-element(s), index=1
  n = s32[] constant(20)
  ROOT lt = pred[] compare(acc, n), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT acc = s32[] get-tuple-element(w), index=1
})");
  // Element 0 is never read outside, but the accumulator depends on it.
  EXPECT_FALSE(*HloDce().Run(module.get()));
}

}  // namespace
}  // namespace tessera
