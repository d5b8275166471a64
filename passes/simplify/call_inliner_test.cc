#include "passes/simplify/call_inliner.h"

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/hlo_dce.h"

namespace tessera {
namespace {

using pass_test::EntryOpcodes;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

TEST(CallInlinerTest, InlinesNestedCalls) {
  auto module = Parse(R"(
HloModule m
inner {
  x = f32[4] parameter(0)
  ROOT e = f32[4] exponential(x)
}
outer {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] call(a), to_apply=inner
  ROOT s = f32[4] subtract(c, b)
}
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT r = f32[4] call(p1, p0), to_apply=outer
})");
  CallInliner pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_TRUE(HloDce().Run(module.get()).ok());
  EXPECT_EQ(EntryOpcodes(*module), "parameter,parameter,exponential,subtract");
  EXPECT_EQ(module->computation_count(), 1);
}

TEST(CallInlinerTest, SharedCalleeInlinedAtEverySite) {
  auto module = Parse(R"(
HloModule m
twice {
  x = f32[] parameter(0)
  ROOT y = f32[] add(x, x)
}
ENTRY main {
  p0 = f32[] parameter(0)
  c1 = f32[] call(p0), to_apply=twice
  c2 = f32[] call(c1), to_apply=twice
  ROOT t = (f32[], f32[]) tuple(c1, c2)
})");
  CallInliner pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,add,add,tuple");
}

TEST(CallInlinerTest, CalleeReturningItsParameter) {
  auto module = Parse(R"(
HloModule m
identity {
  ROOT x = f32[3] parameter(0)
}
ENTRY main {
  p0 = f32[3] parameter(0)
  ROOT c = f32[3] call(p0), to_apply=identity
})");
  CallInliner pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter");
}

TEST(CallInlinerTest, CallsInsideLoopBodiesAreInlined) {
  auto module = Parse(R"(
HloModule m
step {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT y = s32[] add(x, one)
}
body {
  i = s32[] parameter(0)
  ROOT n = s32[] call(i), to_apply=step
}
cond {
  i = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
ENTRY main {
  p0 = s32[] parameter(0)
  ROOT w = s32[] while(p0), condition=cond, body=body
})");
  CallInliner pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  for (const HloInstruction* i : module->GetComputationWithName("body")->instructions()) {
    EXPECT_NE(i->opcode(), HloOpcode::kCall);
  }
}

TEST(CallInlinerTest, NoCallsIsUnchanged) {
  auto module = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[3] parameter(0)
  ROOT n = f32[3] negate(p0)
})");
  EXPECT_FALSE(*CallInliner().Run(module.get()));
}

}  // namespace
}  // namespace tessera
