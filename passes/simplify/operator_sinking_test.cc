#include "passes/simplify/operator_sinking.h"

#include "gtest/gtest.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/hlo_dce.h"

namespace tessera {
namespace {

using pass_test::EntryOpcodes;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

std::string SinkAndClean(HloModule& module, bool expect_change = true) {
  OperatorSinking pass;
  absl::StatusOr<bool> changed = RunPassKeepingResults(pass, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed.value_or(!expect_change), expect_change);
  EXPECT_TRUE(HloDce().Run(&module).ok());
  return EntryOpcodes(module);
}

TEST(OperatorSinkingTest, TransposeSinksPastRelu) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[2,3] parameter(0)
  t = f32[3,2] transpose(p0), dimensions={1,0}
  zero = f32[] constant(0)
  z = f32[3,2] broadcast(zero), dimensions={}
  relu = f32[3,2] maximum(t, z)
  ROOT back = f32[2,3] transpose(relu), dimensions={1,0}
})");
  // The two transposes now meet; the algebraic simplifier cancels them.
  EXPECT_EQ(SinkAndClean(*module),
            "parameter,constant,broadcast,maximum,transpose,transpose");
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(root->operand(0)->operand(0)->opcode(), HloOpcode::kMaximum);
  EXPECT_EQ(root->operand(0)->operand(0)->shape().dimensions(), (std::vector<int64_t>{2, 3}));
}

TEST(OperatorSinkingTest, ChainsSinkAllTheWay) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[6] parameter(0)
  p1 = f32[6] parameter(1)
  r0 = f32[2,3] reshape(p0)
  r1 = f32[2,3] reshape(p1)
  a = f32[2,3] add(r0, r1)
  n = f32[2,3] negate(a)
  ROOT c = s32[2,3] convert(n)
})");
  EXPECT_EQ(SinkAndClean(*module), "parameter,parameter,add,negate,convert,reshape");
}

TEST(OperatorSinkingTest, BroadcastsOfTheSameShapeMerge) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  b0 = f32[3,4] broadcast(p0), dimensions={1}
  b1 = f32[3,4] broadcast(p1), dimensions={1}
  ROOT m = f32[3,4] multiply(b0, b1)
})");
  EXPECT_EQ(SinkAndClean(*module), "parameter,parameter,multiply,broadcast");
}

TEST(OperatorSinkingTest, ScalarBroadcastsMakeAScalarOp) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  b0 = f32[64] broadcast(p0), dimensions={}
  b1 = f32[64] broadcast(p1), dimensions={}
  ROOT d = f32[64] divide(b0, b1)
})");
  EXPECT_EQ(SinkAndClean(*module), "parameter,parameter,divide,broadcast");
}

TEST(OperatorSinkingTest, SharedTransposeStays) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[2,3] parameter(0)
  t = f32[3,2] transpose(p0), dimensions={1,0}
  n = f32[3,2] negate(t)
  ROOT r = (f32[3,2], f32[3,2]) tuple(n, t)
})");
  EXPECT_EQ(SinkAndClean(*module, /*expect_change=*/false), "parameter,transpose,negate,tuple");
}

TEST(OperatorSinkingTest, DifferentPermutationsStay) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[2,2] parameter(0)
  p1 = f32[2,2] parameter(1)
  t0 = f32[2,2] transpose(p0), dimensions={1,0}
  t1 = f32[2,2] transpose(p1), dimensions={0,1}
  ROOT a = f32[2,2] add(t0, t1)
})");
  SinkAndClean(*module, /*expect_change=*/false);
}

TEST(OperatorSinkingTest, ReshapesFromDifferentShapesStay) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[6] parameter(0)
  p1 = f32[3,2] parameter(1)
  r0 = f32[2,3] reshape(p0)
  r1 = f32[2,3] reshape(p1)
  ROOT a = f32[2,3] add(r0, r1)
})");
  SinkAndClean(*module, /*expect_change=*/false);
}

TEST(OperatorSinkingTest, MixedOperandsStay) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[2,3] parameter(0)
  p1 = f32[3,2] parameter(1)
  t = f32[3,2] transpose(p0), dimensions={1,0}
  ROOT a = f32[3,2] add(t, p1)
})");
  SinkAndClean(*module, /*expect_change=*/false);
}

TEST(OperatorSinkingTest, SelectWithTransposedPredicate) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = pred[2,3] parameter(0)
  x = f32[2,3] parameter(1)
  y = f32[2,3] parameter(2)
  tp = pred[3,2] transpose(p), dimensions={1,0}
  tx = f32[3,2] transpose(x), dimensions={1,0}
  ty = f32[3,2] transpose(y), dimensions={1,0}
  ROOT s = f32[3,2] select(tp, tx, ty)
})");
  EXPECT_EQ(SinkAndClean(*module), "parameter,parameter,parameter,select,transpose");
}

}  // namespace
}  // namespace tessera
