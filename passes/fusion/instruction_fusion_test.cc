#include "passes/fusion/instruction_fusion.h"

#include "gtest/gtest.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/fusion/fusion_utils.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using fusion_test::Describe;
using fusion_test::ExpectPrintsAndParses;
using fusion_test::Fusions;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

// Runs vertical fusion checking results; returns the entry's description.
std::string Fuse(HloModule& module, FusionCostParams params = {},
                 std::vector<FusionExplanation>* explanations = nullptr,
                 bool expect_change = true) {
  InstructionFusion pass(params, explanations);
  absl::StatusOr<bool> changed = RunPassKeepingResults(pass, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed.value_or(!expect_change), expect_change);
  ExpectPrintsAndParses(module);
  return Describe(module);
}

bool Explained(const std::vector<FusionExplanation>& explanations, absl::string_view producer,
               bool fused, absl::string_view reason_part) {
  for (const FusionExplanation& e : explanations) {
    if (e.producer == producer && e.fused == fused &&
        e.reason.find(std::string(reason_part)) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(InstructionFusionTest, ElementwiseChainBecomesOneLoopFusion) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  p1 = f32[4,8] parameter(1)
  a = f32[4,8] add(p0, p1)
  x = f32[4,8] exponential(a)
  ROOT m = f32[4,8] multiply(x, p1)
})");
  EXPECT_EQ(Fuse(*module), "parameter,parameter,fusion:kLoop{add,exponential,multiply}");
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->name(), "multiply_fusion");
  EXPECT_EQ(root->fused_computation()->name(), "fused_computation");
  EXPECT_EQ(root->operand_count(), 2);
}

TEST(InstructionFusionTest, InjectiveProducersFuseIntoTheirConsumers) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  p1 = f32[8] parameter(1)
  p2 = s32[] parameter(2)
  t = f32[8,4] transpose(p0), dimensions={1,0}
  r = f32[32] reshape(t)
  sl = f32[16] slice(r), slice={[0:16]}
  rv = f32[16] reverse(sl), dimensions={0}
  b = f32[2,8] broadcast(p1), dimensions={1}
  rb = f32[16] reshape(b)
  cat = f32[32] concatenate(rv, rb), dimensions={0}
  zero = f32[] constant(0)
  pd = f32[36] pad(cat, zero), padding=2_2
  ds = f32[20] dynamic-slice(pd, p2), dynamic_slice_sizes={20}
  io = s32[20] iota(), iota_dimension=0
  cv = f32[20] convert(io)
  lt = pred[20] compare(ds, cv), direction=LT
  ROOT sel = f32[20] select(lt, ds, cv)
})");
  const std::string description = Fuse(*module);
  // Everything but the parameters is one loop fusion.
  EXPECT_EQ(module->entry_computation()->instruction_count(), 4) << description;
  ASSERT_EQ(Fusions(*module->entry_computation()).size(), 1u);
  EXPECT_EQ(Fusions(*module->entry_computation())[0]->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(Fusions(*module->entry_computation())[0]->fused_computation()->instruction_count(),
            3 + 14);
}

TEST(InstructionFusionTest, ExpensiveProducerWithTwoUsersIsNotDuplicated) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  x = f32[16] exponential(p0)
  a = f32[16] add(x, p1)
  n = f32[16] negate(a)
  m = f32[16] multiply(x, p1)
  ROOT t = (f32[16], f32[16]) tuple(n, m)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations),
            "parameter,exponential,parameter,fusion:kLoop{add,negate},multiply,tuple");
  EXPECT_TRUE(Explained(explanations, "x", false, "never duplicated")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, CheapProducerIsDuplicatedIntoAllItsUsers) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  n = f32[16] negate(p0)
  a = f32[16] add(n, p1)
  m = f32[16] multiply(n, p1)
  ROOT t = (f32[16], f32[16]) tuple(a, m)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations),
            "parameter,parameter,fusion:kLoop{negate,add},fusion:kLoop{negate,multiply},tuple");
  EXPECT_TRUE(Explained(explanations, "n", true, "duplicated")) << ExplainFusion(explanations);
  // The duplicate's clone got a fresh name; the original is gone.
  for (const HloInstruction* fusion : Fusions(*module->entry_computation())) {
    EXPECT_EQ(fusion->operand_count(), 2);
  }
}

TEST(InstructionFusionTest, DuplicationCanBeTurnedOff) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  n = f32[16] negate(p0)
  a = f32[16] add(n, p1)
  m = f32[16] multiply(n, p1)
  ROOT t = (f32[16], f32[16]) tuple(a, m)
})");
  FusionCostParams params;
  params.allow_duplication = false;
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, params, &explanations, /*expect_change=*/false),
            "parameter,negate,parameter,add,multiply,tuple");
  EXPECT_TRUE(Explained(explanations, "n", false, "duplication is off"));
}

TEST(InstructionFusionTest, ProducerUsedByAnOpaqueOpIsNotDuplicated) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  n = f32[16] negate(p0)
  a = f32[16] add(n, p1)
  ROOT t = (f32[16], f32[16]) tuple(a, n)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations, /*expect_change=*/false),
            "parameter,negate,parameter,add,tuple");
  EXPECT_TRUE(Explained(explanations, "n", false, "cannot absorb")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, ScalarConstantsAndBroadcastsAreDuplicated) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  c = f32[] constant(2)
  b = f32[16] broadcast(c), dimensions={}
  a = f32[16] add(p0, b)
  m = f32[16] multiply(p1, b)
  ROOT t = (f32[16], f32[16]) tuple(a, m)
})");
  EXPECT_EQ(Fuse(*module),
            "parameter,fusion:kLoop{constant,broadcast,add},parameter,"
            "fusion:kLoop{constant,broadcast,multiply},tuple");
  // Each consumer has its own copy of the broadcast constant.
  const auto fusions = Fusions(*module->entry_computation());
  ASSERT_EQ(fusions.size(), 2u);
  for (const HloInstruction* fusion : fusions) {
    EXPECT_EQ(fusion->operand_count(), 1);
    EXPECT_EQ(fusion->fused_computation()->instruction_count(), 4);
  }
}

TEST(InstructionFusionTest, LargeConstantsKeepTheirBuffer) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  c = f32[4] constant({1, 2, 3, 4})
  a = f32[4] add(p0, c)
  ROOT n = f32[4] negate(a)
})");
  EXPECT_EQ(Fuse(*module), "parameter,constant,fusion:kLoop{add,negate}");
}

TEST(InstructionFusionTest, OpaqueOpsAreNotFused) {
  auto module = Parse(R"(
HloModule m
less {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  a = f32[16] add(p0, p1)
  s = f32[16] sort(a), dimensions={0}, to_apply=less
  n = f32[16] negate(s)
  ROOT r = f32[16] abs(n)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations), "parameter,parameter,add,sort,fusion:kLoop{negate,abs}");
  EXPECT_TRUE(Explained(explanations, "a", false, "opaque")) << ExplainFusion(explanations);
  EXPECT_TRUE(Explained(explanations, "s", false, "opaque")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, ReduceTakesItsElementwiseProducers) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  sq = f32[8,32] multiply(p0, p0)
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(sq, zero), dimensions={1}, to_apply=sum
})");
  EXPECT_EQ(Fuse(*module), "parameter,fusion:kInput{multiply,constant,reduce}");
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "reduce_fusion");
}

TEST(InstructionFusionTest, ReduceFusesWithElementwiseConsumersOfItsResult) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(p0, zero), dimensions={1}, to_apply=sum
  n = f32[] constant(32)
  nb = f32[8] broadcast(n), dimensions={}
  mean = f32[8] divide(r, nb)
  m2 = f32[8,1] reshape(mean)
  ROOT s = f32[8,1] sqrt(m2)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations),
            "parameter,fusion:kInput{constant,reduce,constant,broadcast,divide,reshape,sqrt}");
  EXPECT_TRUE(Explained(explanations, "r", true, "reduce epilogue")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, ReduceDoesNotFuseIntoABroadcastingConsumerWithoutRowFusion) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(p0, zero), dimensions={1}, to_apply=sum
  b = f32[8,32] broadcast(r), dimensions={0}
  ROOT d = f32[8,32] subtract(p0, b)
})");
  std::vector<FusionExplanation> explanations;
  FusionCostParams no_rows;
  no_rows.fuse_row_reductions = false;
  EXPECT_EQ(Fuse(*module, no_rows, &explanations),
            "parameter,fusion:kInput{constant,reduce},fusion:kLoop{broadcast,subtract}");
  EXPECT_TRUE(Explained(explanations, "r", false, "through broadcast")) << ExplainFusion(explanations);
}

// Row fusion: a softmax is one kernel (both reductions, the exponential and
// the division); a layer norm too, with its scale broadcast along the rows.
TEST(InstructionFusionTest, SoftmaxAndLayerNormAreOneRowKernelEach) {
  auto softmax = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[8] reduce(p0, ninf), dimensions={1}, to_apply=max
  mb = f32[8,32] broadcast(m), dimensions={0}
  d = f32[8,32] subtract(p0, mb)
  ex = f32[8,32] exponential(d)
  zero = f32[] constant(0)
  s = f32[8] reduce(ex, zero), dimensions={1}, to_apply=sum
  sb = f32[8,32] broadcast(s), dimensions={0}
  ROOT r = f32[8,32] divide(ex, sb)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*softmax, {}, &explanations),
            "parameter,fusion:kInput{constant,reduce,broadcast,subtract,exponential,constant,"
            "reduce,broadcast,divide}");
  EXPECT_TRUE(Explained(explanations, "s", true, "row fusion")) << ExplainFusion(explanations);

  auto layer_norm = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  g = f32[32] parameter(1)
  zero = f32[] constant(0)
  n = f32[] constant(32)
  nb = f32[8] broadcast(n), dimensions={}
  s = f32[8] reduce(p0, zero), dimensions={1}, to_apply=sum
  mean = f32[8] divide(s, nb)
  mb = f32[8,32] broadcast(mean), dimensions={0}
  c = f32[8,32] subtract(p0, mb)
  sq = f32[8,32] multiply(c, c)
  v = f32[8] reduce(sq, zero), dimensions={1}, to_apply=sum
  var = f32[8] divide(v, nb)
  inv = f32[8] rsqrt(var)
  ib = f32[8,32] broadcast(inv), dimensions={0}
  gb = f32[8,32] broadcast(g), dimensions={1}
  y = f32[8,32] multiply(c, ib)
  ROOT out = f32[8,32] multiply(y, gb)
})");
  Fuse(*layer_norm, {});
  EXPECT_EQ(Fusions(*layer_norm->entry_computation()).size(), 1u) << Describe(*layer_norm);

  // A column-major operand, or a transpose among the ops, is no row kernel.
  auto transposed = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32]{0,1} parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(p0, zero), dimensions={1}, to_apply=sum
  b = f32[8,32]{0,1} broadcast(r), dimensions={0}
  ROOT d = f32[8,32]{0,1} subtract(p0, b)
})");
  Fuse(*transposed, {});
  EXPECT_EQ(Fusions(*transposed->entry_computation()).size(), 2u) << Describe(*transposed);
}

TEST(InstructionFusionTest, TwoReductionsDoNotShareAKernel) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(p0, zero), dimensions={1}, to_apply=sum
  ROOT r2 = f32[] reduce(r, zero), dimensions={0}, to_apply=sum
})");
  std::vector<FusionExplanation> explanations;
  Fuse(*module, {}, &explanations);
  EXPECT_EQ(Fusions(*module->entry_computation()).size(), 2u) << Describe(*module);
  EXPECT_TRUE(Explained(explanations, "r", false, "one reduce or dot per kernel"))
      << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, DotBiasReluEpilogueIsAnOutputFusion) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[16,8] parameter(1)
  bias = f32[16] parameter(2)
  wt = f32[8,16] transpose(w), dimensions={1,0}
  d = f32[4,16] dot(x, wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,16] broadcast(bias), dimensions={1}
  a = f32[4,16] add(d, bb)
  zero = f32[] constant(0)
  zb = f32[4,16] broadcast(zero), dimensions={}
  ROOT relu = f32[4,16] maximum(a, zb)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations),
            "parameter,parameter,parameter,transpose,"
            "fusion:kOutput{dot,broadcast,add,constant,broadcast,maximum}");
  // The transpose feeds the dot: no prologue fusion.
  EXPECT_TRUE(Explained(explanations, "wt", false, "only epilogues")) << ExplainFusion(explanations);
  EXPECT_TRUE(Explained(explanations, "d", true, "dot epilogue")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, ConvolutionWithScaleAndBiasIsAnOutputFusion) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  input = f32[1,6,6,2] parameter(0)
  kernel = f32[3,3,2,4] parameter(1)
  bias = f32[4] parameter(2)
  conv = f32[1,4,4,4] convolution(input, kernel), window={size=3x3}, dim_labels=b01f_01io->b01f
  half = f32[] constant(0.5)
  hb = f32[1,4,4,4] broadcast(half), dimensions={}
  scaled = f32[1,4,4,4] multiply(conv, hb)
  bb = f32[1,4,4,4] broadcast(bias), dimensions={3}
  ROOT out = f32[1,4,4,4] add(scaled, bb)
})");
  EXPECT_EQ(Fuse(*module),
            "parameter,parameter,parameter,"
            "fusion:kOutput{convolution,constant,broadcast,multiply,broadcast,add}");
}

TEST(InstructionFusionTest, DotWithTwoUsersIsNotDuplicatedIntoItsEpilogues) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,4] parameter(1)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[4,4] negate(d)
  b = f32[4,4] abs(d)
  ROOT t = (f32[4,4], f32[4,4]) tuple(a, b)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations, /*expect_change=*/false),
            "parameter,parameter,dot,negate,abs,tuple");
  EXPECT_TRUE(Explained(explanations, "d", false, "expensive dot has 2 users"))
      << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, DotReadTransposedByABitcastIsNotAnEpilogue) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,4] parameter(1)
  d = f32[4,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,4]{0,1} bitcast(d)
  s = f32[4,4]{1,0} add(d, t)
  ROOT a = f32[4,4]{1,0} abs(s)
})");
  std::vector<FusionExplanation> explanations;
  Fuse(*module, {}, &explanations);
  EXPECT_EQ(Describe(*module), "parameter,parameter,dot,fusion:kLoop{bitcast,add,abs}")
      << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, DotIntoABroadcastingConsumerIsNotFused) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[8] parameter(1)
  d = f32[4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[4,3] broadcast(d), dimensions={0}
  ROOT n = f32[4,3] negate(b)
})");
  Fuse(*module);
  EXPECT_EQ(Describe(*module), "parameter,parameter,dot,fusion:kLoop{broadcast,negate}");
}

TEST(InstructionFusionTest, ExpensiveProducerIsNotRecomputedPerBroadcastElement) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[8,64] parameter(1)
  x = f32[8] exponential(p0)
  b = f32[8,64] broadcast(x), dimensions={0}
  ROOT a = f32[8,64] add(b, p1)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, {}, &explanations),
            "parameter,exponential,parameter,fusion:kLoop{broadcast,add}");
  EXPECT_TRUE(Explained(explanations, "x", false, "64 times")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, SizeCapSplitsLongChains) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  a = f32[16] negate(p0)
  b = f32[16] abs(a)
  c = f32[16] negate(b)
  d = f32[16] abs(c)
  f = f32[16] negate(d)
  ROOT g = f32[16] abs(f)
})");
  FusionCostParams params;
  params.max_fused_instructions = 3;
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(Fuse(*module, params, &explanations),
            "parameter,fusion:kLoop{negate,abs,negate},fusion:kLoop{abs,negate,abs}");
  EXPECT_TRUE(Explained(explanations, "c", false, "cap 3")) << ExplainFusion(explanations);
}

TEST(InstructionFusionTest, SizeCapCountsOnlyWork) {
  // A polynomial as JAX expands erf: a constant and a broadcast per
  // coefficient.  The cap (3) counts the multiply-adds only, so the three
  // terms fuse whole, their scalar broadcasts inside.
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[16] parameter(0)
  c0 = f32[] constant(0.5)
  b0 = f32[16] broadcast(c0), dimensions={}
  m0 = f32[16] multiply(x, b0)
  c1 = f32[] constant(0.25)
  b1 = f32[16] broadcast(c1), dimensions={}
  a1 = f32[16] add(m0, b1)
  c2 = f32[] constant(2)
  b2 = f32[16] broadcast(c2), dimensions={}
  ROOT m2 = f32[16] multiply(a1, b2)
})");
  FusionCostParams params;
  params.max_fused_instructions = 3;
  EXPECT_EQ(Fuse(*module, params),
            "parameter,fusion:kLoop{constant,broadcast,multiply,constant,broadcast,add,"
            "constant,broadcast,multiply}");
}

TEST(InstructionFusionTest, OperandCapIsRespected) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  p2 = f32[16] parameter(2)
  p3 = f32[16] parameter(3)
  a = f32[16] add(p0, p1)
  b = f32[16] add(p2, p3)
  ROOT c = f32[16] multiply(a, b)
})");
  FusionCostParams params;
  params.max_fusion_operands = 3;
  Fuse(*module, params);
  for (const HloInstruction* fusion : Fusions(*module->entry_computation())) {
    EXPECT_LE(fusion->operand_count(), 3);
  }
}

TEST(InstructionFusionTest, FusesInsideWhileBodiesButNotReducers) {
  auto module = Parse(R"(
HloModule m
cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(3)
  ROOT lt = pred[] compare(i, limit), direction=LT
}
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[8] broadcast(h), dimensions={}
  m = f32[8] multiply(v, hb)
  w = f32[8] add(m, hb)
  ROOT t = (s32[], f32[8]) tuple(next, w)
}
ENTRY e {
  p0 = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, p0)
  ROOT loop = (s32[], f32[8]) while(init), condition=cond, body=body
})");
  Fuse(*module);
  const HloComputation* body = module->GetComputationWithName("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(Fusions(*body).size(), 2u) << Describe(*body);
}

TEST(InstructionFusionTest, NothingToFuse) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  ROOT n = f32[16] negate(p0)
})");
  EXPECT_EQ(Fuse(*module, {}, nullptr, /*expect_change=*/false), "parameter,negate");
}

TEST(InstructionFusionTest, ExplanationsPrintOneLineEach) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  x = f32[16] exponential(p0)
  a = f32[16] add(x, x)
  ROOT t = (f32[16], f32[16]) tuple(a, x)
})");
  std::vector<FusionExplanation> explanations;
  Fuse(*module, {}, &explanations, /*expect_change=*/false);
  const std::string text = ExplainFusion(explanations);
  EXPECT_NE(text.find("fusion: %x -> %a: not fused (expensive exponential has 2 users"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace tessera
