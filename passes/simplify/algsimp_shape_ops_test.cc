// AlgebraicSimplifier: convert, copy, bitcast, reshape, transpose and
// broadcast rules, and zero-element results.
#include "gtest/gtest.h"
#include "passes/simplify/algsimp_test_util.h"

namespace tessera {
namespace algsimp_test {
namespace {

// --- convert -----------------------------------------------------------------

TEST(AlgsimpShapeOpsTest, ConvertToSameType) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  ROOT c = f32[4] convert(p))")),
            "parameter");
}

// --- annotation custom calls ---------------------------------------------------

TEST(AlgsimpShapeOpsTest, ShardingAnnotationsPassTheirOperandThrough) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4,2] parameter(0)
  s = f32[4,2] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  ROOT n = f32[4,2] negate(s))")),
            "parameter,negate");
  // Into another layout: a copy.
  EXPECT_EQ(After(Module(R"(
  p = f32[4,2]{1,0} parameter(0)
  ROOT s = f32[4,2]{0,1} custom-call(p), custom_call_target="SPMDFullToShardShape")")),
            "parameter,copy");
  // (Other targets stay; the evaluator, which this test runs, refuses them.)
}

TEST(AlgsimpShapeOpsTest, CollectivesOverOneParticipantPassTheirOperandThrough) {
  EXPECT_EQ(After(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,2] parameter(0)
  r = f32[4,2] all-reduce(p), channel_id=1, replica_groups={{0}}, use_global_device_ids=true, to_apply=sum
  g = f32[4,2] all-gather(r), dimensions={0}, replica_groups={}
  ROOT n = f32[4,2] negate(g)
})"),
            "parameter,negate");
}

TEST(AlgsimpShapeOpsTest, WideningIntegerChainBecomesOneConvert) {
  auto module = Parse(Module(R"(
  p = s8[4] parameter(0)
  a = s32[4] convert(p)
  ROOT b = s64[4] convert(a))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,convert");
  EXPECT_EQ(Root(*module)->operand(0)->name(), "p");
}

TEST(AlgsimpShapeOpsTest, FloatRoundTripThroughWiderTypeIsIdentity) {
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  a = f64[4] convert(p)
  ROOT b = f32[4] convert(a))")),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = bf16[4] parameter(0)
  a = f32[4] convert(p)
  ROOT b = bf16[4] convert(a))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, LossyChainsStay) {
  // f32 -> f16 rounds; s32 -> f32 rounds above 2^24; f16 -> bf16 rounds.
  EXPECT_EQ(After(Module(R"(
  p = f32[4] parameter(0)
  a = f16[4] convert(p)
  ROOT b = f32[4] convert(a))")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  a = f32[4] convert(p)
  ROOT b = s32[4] convert(a))")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  p = f16[4] parameter(0)
  a = bf16[4] convert(p)
  ROOT b = f32[4] convert(a))")),
            "unchanged");
}

TEST(AlgsimpShapeOpsTest, SignednessChangingChainsStay) {
  // s8 -> u16 loses negative values; u8 -> s8 wraps.
  EXPECT_EQ(After(Module(R"(
  p = s8[4] parameter(0)
  a = u16[4] convert(p)
  ROOT b = s32[4] convert(a))")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  a = s8[4] convert(p)
  ROOT b = s32[4] convert(a))")),
            "unchanged");
}

TEST(AlgsimpShapeOpsTest, LosslessMixedChains) {
  // u8 fits in s16; s8 fits in f16's significand; pred fits anywhere.
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  a = s16[4] convert(p)
  ROOT b = f32[4] convert(a))")),
            "parameter,convert");
  EXPECT_EQ(After(Module(R"(
  p = s8[4] parameter(0)
  a = f16[4] convert(p)
  ROOT b = s8[4] convert(a))")),
            "parameter");
  EXPECT_EQ(After(Module(R"(
  p = pred[4] parameter(0)
  a = f32[4] convert(p)
  ROOT b = s32[4] convert(a))")),
            "parameter,convert");
}

TEST(AlgsimpShapeOpsTest, IntegerThroughFloatToNarrowerIntegerStays) {
  // Float to integer saturates, integer to integer wraps: u8 200 -> f16 ->
  // s8 is 127, u8 200 -> s8 is -56.
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  a = f16[4] convert(p)
  ROOT b = s8[4] convert(a))")),
            "unchanged");
  EXPECT_EQ(After(Module(R"(
  p = s32[4] parameter(0)
  a = f64[4] convert(p)
  ROOT b = u32[4] convert(a))")),
            "unchanged");
  // u8 fits s32 either way.
  EXPECT_EQ(After(Module(R"(
  p = u8[4] parameter(0)
  a = f32[4] convert(p)
  ROOT b = s32[4] convert(a))")),
            "parameter,convert");
}

// --- copy and bitcast --------------------------------------------------------

TEST(AlgsimpShapeOpsTest, CopyToSameLayout) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{1,0} copy(p))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, CopyThatChangesLayoutStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{0,1} copy(p))")),
            "unchanged");
}

TEST(AlgsimpShapeOpsTest, CopyOfCopyKeepsTheLastLayout) {
  auto module = Parse(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  a = f32[2,3]{0,1} copy(p)
  ROOT b = f32[2,3]{0,1} copy(a))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,copy");
  EXPECT_EQ(Root(*module)->shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  // Back to the original layout: both copies go.
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  a = f32[2,3]{0,1} copy(p)
  ROOT b = f32[2,3]{1,0} copy(a))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, BitcastToSameShape) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3] parameter(0)
  ROOT b = f32[2,3] bitcast(p))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, BitcastToOtherShapeStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3] parameter(0)
  ROOT b = f32[6] bitcast(p))")),
            "unchanged");
}

TEST(AlgsimpShapeOpsTest, BitcastOfBitcast) {
  // As XLA's own algsimp test (xla/tools/hlo_opt/tests/run_algsimp_pass.hlo).
  EXPECT_EQ(After(Module(R"(
  arg0 = f32[768] parameter(0)
  bitcast = f32[1,768] bitcast(arg0)
  ROOT bitcast1 = f32[1,12,64] bitcast(bitcast))")),
            "parameter,bitcast");
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  a = f32[3,2]{1,0} bitcast(p)
  ROOT b = f32[2,3]{1,0} bitcast(a))")),
            "parameter");
}

// --- reshape -----------------------------------------------------------------

TEST(AlgsimpShapeOpsTest, NoopReshape) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] reshape(p))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, ReshapeThatChangesLayoutStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[2,3]{0,1} reshape(p))")),
            "unchanged");
}

TEST(AlgsimpShapeOpsTest, ReshapeOfReshape) {
  auto module = Parse(Module(R"(
  p = f32[2,3,4] parameter(0)
  a = f32[6,4] reshape(p)
  ROOT b = f32[24] reshape(a))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,reshape");
  EXPECT_EQ(Root(*module)->operand(0)->name(), "p");
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3,4] parameter(0)
  a = f32[6,4] reshape(p)
  ROOT b = f32[2,3,4] reshape(a))")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, ReshapeOfScalarBroadcast) {
  EXPECT_EQ(After(Module(R"(
  p = f32[] parameter(0)
  b = f32[2,3] broadcast(p), dimensions={}
  ROOT r = f32[3,2] reshape(b))")),
            "parameter,broadcast");
}

// --- transpose ---------------------------------------------------------------

TEST(AlgsimpShapeOpsTest, IdentityTranspose) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(p), dimensions={0,1})")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, TransposesThatCancel) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3,4] parameter(0)
  a = f32[3,4,2] transpose(p), dimensions={1,2,0}
  ROOT b = f32[2,3,4] transpose(a), dimensions={2,0,1})")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, TransposesCompose) {
  auto module = Parse(Module(R"(
  p = f32[2,3,4] parameter(0)
  a = f32[3,2,4] transpose(p), dimensions={1,0,2}
  ROOT b = f32[4,2,3]{0,1,2} transpose(a), dimensions={2,1,0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  const HloInstruction* root = Root(*module);
  ASSERT_EQ(EntryOpcodes(*module), "parameter,transpose");
  EXPECT_EQ(root->dimensions(), (std::vector<int64_t>{2, 0, 1}));
  // The result keeps its layout.
  EXPECT_EQ(root->shape().layout().minor_to_major, (std::vector<int64_t>{0, 1, 2}));
}

TEST(AlgsimpShapeOpsTest, CancellingTransposesThatChangeLayoutStayOne) {
  // Back to p's dimensions but not its layout: one transpose (a copy) stays.
  auto module = Parse(Module(R"(
  p = f32[2,3]{1,0} parameter(0)
  a = f32[3,2] transpose(p), dimensions={1,0}
  ROOT b = f32[2,3]{0,1} transpose(a), dimensions={1,0})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,transpose");
  EXPECT_EQ(Root(*module)->dimensions(), (std::vector<int64_t>{0, 1}));
}

// --- broadcast ---------------------------------------------------------------

TEST(AlgsimpShapeOpsTest, NoopBroadcast) {
  EXPECT_EQ(After(Module(R"(
  p = f32[2,3] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={0,1})")),
            "parameter");
}

TEST(AlgsimpShapeOpsTest, BroadcastOfBroadcastComposes) {
  auto module = Parse(Module(R"(
  p = f32[3] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={1}
  ROOT b = f32[2,5,3] broadcast(a), dimensions={0,2})"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,broadcast");
  EXPECT_EQ(Root(*module)->dimensions(), (std::vector<int64_t>{2}));
}

TEST(AlgsimpShapeOpsTest, BroadcastThatAddsDimensionsStays) {
  EXPECT_EQ(After(Module(R"(
  p = f32[3] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={1})")),
            "unchanged");
}

// --- zero-element arrays -------------------------------------------------------

TEST(AlgsimpShapeOpsTest, OperationsOnZeroElementArraysBecomeConstants) {
  auto module = Parse(Module(R"(
  p = f32[0,3] parameter(0)
  e = f32[0,3] exponential(p)
  t = f32[3,0] transpose(e), dimensions={1,0}
  q = f32[4] parameter(1)
  ROOT r = (f32[3,0], f32[4]) tuple(t, q))"));
  ASSERT_TRUE(RunAlgsimp(*module));
  EXPECT_EQ(EntryOpcodes(*module), "parameter,parameter,constant,tuple");
  EXPECT_EQ(Root(*module)->operand(0)->shape().dimensions(), (std::vector<int64_t>{3, 0}));
}

}  // namespace
}  // namespace algsimp_test
}  // namespace tessera
