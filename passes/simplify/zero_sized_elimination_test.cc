#include "passes/simplify/zero_sized_elimination.h"

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/hlo_dce.h"

namespace tessera {
namespace {

using pass_test::EntryOpcodes;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

TEST(ZeroSizedEliminationTest, EmptyResultsBecomeConstants) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[0,4] parameter(0)
  p1 = f32[3,4] parameter(1)
  n = f32[0,4] exponential(p0)
  s = f32[0,4] slice(p1), slice={[1:1], [0:4]}
  ROOT a = f32[0,4] add(n, s)
})");
  ZeroSizedElimination pass;
  ASSERT_TRUE(*RunPassKeepingResults(pass, *module));
  ASSERT_TRUE(HloDce().Run(module.get()).ok());
  EXPECT_EQ(EntryOpcodes(*module), "parameter,parameter,constant");
}

TEST(ZeroSizedEliminationTest, NonEmptyConsumersOfEmptyArraysStay) {
  auto module = Parse(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[0] parameter(0)
  p1 = f32[2] parameter(1)
  z = f32[] constant(0)
  r = f32[] reduce(p0, z), dimensions={0}, to_apply=add
  ROOT c = f32[2] concatenate(p0, p1), dimensions={0}
})");
  // Parameters and constants are already as small as can be; the reduce and
  // the concatenate have elements.
  EXPECT_FALSE(*ZeroSizedElimination().Run(module.get()));
}

}  // namespace
}  // namespace tessera
