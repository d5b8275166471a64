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

}  // namespace
}  // namespace tessera
