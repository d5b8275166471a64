#include "passes/simplify/tuple_simplifier.h"

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/hlo_dce.h"

namespace tessera {
namespace {

using pass_test::EntryOpcodes;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

TEST(TupleSimplifierTest, ForwardsElementsOfTuples) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = s32[2] parameter(1)
  t = (f32[4], s32[2]) tuple(p0, p1)
  g = s32[2] get-tuple-element(t), index=1
  ROOT n = s32[2] negate(g)
})");
  TupleSimplifier pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_TRUE(HloDce().Run(module.get()).ok());
  EXPECT_EQ(EntryOpcodes(*module), "parameter,parameter,negate");
}

TEST(TupleSimplifierTest, RebuiltTupleIsTheOriginal) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = (f32[4], s32[2]) parameter(0)
  g0 = f32[4] get-tuple-element(p0), index=0
  g1 = s32[2] get-tuple-element(p0), index=1
  ROOT t = (f32[4], s32[2]) tuple(g0, g1)
})");
  TupleSimplifier pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "p0");
}

TEST(TupleSimplifierTest, PartialOrReorderedRebuildStays) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = (f32[4], f32[4], f32[4]) parameter(0)
  g0 = f32[4] get-tuple-element(p0), index=0
  g1 = f32[4] get-tuple-element(p0), index=1
  swapped = (f32[4], f32[4]) tuple(g1, g0)
  prefix = (f32[4], f32[4]) tuple(g0, g1)
  ROOT t = ((f32[4], f32[4]), (f32[4], f32[4])) tuple(swapped, prefix)
})");
  EXPECT_FALSE(*TupleSimplifier().Run(module.get()));
}

TEST(TupleSimplifierTest, DifferentLayoutIsNotForwarded) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[2,3]{1,0} parameter(0)
  t = (f32[2,3]{1,0}) tuple(p0)
  ROOT g = f32[2,3]{0,1} get-tuple-element(t), index=0
})");
  // The verifier of a layout-insensitive module accepts this; forwarding
  // would silently change the result's layout.
  EXPECT_FALSE(*TupleSimplifier().Run(module.get()));
}

}  // namespace
}  // namespace tessera
