#include "passes/fusion/horizontal_fusion.h"

#include "gtest/gtest.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/fusion/fusion_utils.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using fusion_test::Describe;
using fusion_test::ExpectPrintsAndParses;
using fusion_test::Fusions;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

// Vertical then horizontal fusion, both checked on the evaluator; returns
// whether horizontal fusion changed the module.
bool FuseBoth(HloModule& module, FusionCostParams params = {},
              std::vector<FusionExplanation>* explanations = nullptr) {
  InstructionFusion vertical(params);
  EXPECT_TRUE(RunPassKeepingResults(vertical, module).ok());
  HorizontalFusion horizontal(params, explanations);
  absl::StatusOr<bool> changed = RunPassKeepingResults(horizontal, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  ExpectPrintsAndParses(module);
  return changed.value_or(false);
}

// An SGD step over four parameters of different shapes: w - lr * g each.
constexpr absl::string_view kSgdStep = R"(
HloModule sgd
ENTRY step {
  lr = f32[] parameter(0)
  w0 = f32[16,8] parameter(1)
  g0 = f32[16,8] parameter(2)
  w1 = f32[8] parameter(3)
  g1 = f32[8] parameter(4)
  w2 = f32[8,4] parameter(5)
  g2 = f32[8,4] parameter(6)
  w3 = f32[4] parameter(7)
  g3 = f32[4] parameter(8)
  lr0 = f32[16,8] broadcast(lr), dimensions={}
  d0 = f32[16,8] multiply(lr0, g0)
  n0 = f32[16,8] subtract(w0, d0)
  lr1 = f32[8] broadcast(lr), dimensions={}
  d1 = f32[8] multiply(lr1, g1)
  n1 = f32[8] subtract(w1, d1)
  lr2 = f32[8,4] broadcast(lr), dimensions={}
  d2 = f32[8,4] multiply(lr2, g2)
  n2 = f32[8,4] subtract(w2, d2)
  lr3 = f32[4] broadcast(lr), dimensions={}
  d3 = f32[4] multiply(lr3, g3)
  n3 = f32[4] subtract(w3, d3)
  ROOT t = (f32[16,8], f32[8], f32[8,4], f32[4]) tuple(n0, n1, n2, n3)
})";

TEST(HorizontalFusionTest, OptimizerUpdatesBecomeOneKernel) {
  auto module = Parse(kSgdStep);
  EXPECT_EQ(CountKernels(*module), 12);
  InstructionFusion vertical;
  ASSERT_TRUE(RunPassKeepingResults(vertical, *module).ok());
  EXPECT_EQ(CountKernels(*module), 4);
  std::vector<FusionExplanation> explanations;
  HorizontalFusion horizontal({}, &explanations);
  absl::StatusOr<bool> changed = RunPassKeepingResults(horizontal, *module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ExpectPrintsAndParses(*module);
  EXPECT_EQ(CountKernels(*module), 1) << Describe(*module);
  const auto fusions = Fusions(*module->entry_computation());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->name(), "horizontal_fusion");
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(fusions[0]->fused_computation()->name(), "horizontally_fused_computation");
  EXPECT_EQ(fusions[0]->shape().tuple_size(), 4);
  // lr is read once, not four times.
  EXPECT_EQ(fusions[0]->operand_count(), 9);
  EXPECT_EQ(explanations.size(), 3u) << ExplainFusion(explanations);
}

TEST(HorizontalFusionTest, GroupCountIsCapped) {
  auto module = Parse(kSgdStep);
  FusionCostParams params;
  params.horizontal_max_count = 2;
  EXPECT_TRUE(FuseBoth(*module, params));
  const auto fusions = Fusions(*module->entry_computation());
  ASSERT_EQ(fusions.size(), 2u) << Describe(*module);
  for (const HloInstruction* fusion : fusions) EXPECT_EQ(fusion->shape().tuple_size(), 2);
}

TEST(HorizontalFusionTest, LargeKernelsStayApart) {
  auto module = Parse(kSgdStep);
  FusionCostParams params;
  params.horizontal_max_output_elements = 32;  // w0 (128 elements) is too big
  std::vector<FusionExplanation> explanations;
  EXPECT_TRUE(FuseBoth(*module, params, &explanations));
  EXPECT_EQ(CountKernels(*module), 2) << Describe(*module);
  bool told = false;
  for (const FusionExplanation& e : explanations) {
    told |= !e.fused && e.reason.find("128 elements: not a small kernel") != std::string::npos;
  }
  EXPECT_TRUE(told) << ExplainFusion(explanations);
}

TEST(HorizontalFusionTest, DependentKernelsAreNotMerged) {
  auto module = Parse(R"(
HloModule m
less {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}
ENTRY e {
  p0 = f32[16] parameter(0)
  a = f32[16] negate(p0)
  s = f32[16] sort(a), dimensions={0}, to_apply=less
  ROOT b = f32[16] abs(s)
})");
  EXPECT_FALSE(FuseBoth(*module));
  EXPECT_EQ(Describe(*module), "parameter,negate,sort,abs");
}

TEST(HorizontalFusionTest, ReductionsAndDotsAreNotCandidates) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[4,4] parameter(1)
  zero = f32[] constant(0)
  r = f32[] reduce(p0, zero), dimensions={0}, to_apply=sum
  d = f32[4,4] dot(p1, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[], f32[4,4]) tuple(r, d)
})");
  EXPECT_FALSE(FuseBoth(*module));
}

TEST(HorizontalFusionTest, MergedGroupsNeverFormACycle) {
  // a -> x and y -> b: {a, b} are independent and so are {x, y}, but
  // merging both pairs would make each group wait for the other.
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  a = f32[16] negate(p0)
  y = f32[16] abs(p1)
  x = f32[16] sqrt(a)
  b = f32[16] exponential(y)
  ROOT t = (f32[16], f32[16]) tuple(x, b)
})");
  FusionCostParams params;
  params.max_fused_instructions = 1;  // keep vertical fusion out of the way
  EXPECT_TRUE(FuseBoth(*module, params));
  EXPECT_EQ(CountKernels(*module), 2) << Describe(*module);
}

TEST(HorizontalFusionTest, MultiOutputFusionUsedWholeIsLeftAlone) {
  auto module = Parse(R"(
HloModule m
fused {
  q = f32[8] parameter(0)
  a = f32[8] negate(q)
  b = f32[8] abs(q)
  ROOT t = (f32[8], f32[8]) tuple(a, b)
}
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  n = f32[8] negate(p1)
  f = (f32[8], f32[8]) fusion(p0), kind=kLoop, calls=fused
  ROOT r = ((f32[8], f32[8]), f32[8]) tuple(f, n)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, {}, &explanations));
  bool told = false;
  for (const FusionExplanation& e : explanations) {
    told |= e.reason.find("used whole") != std::string::npos;
  }
  EXPECT_TRUE(told) << ExplainFusion(explanations);
}

}  // namespace
}  // namespace tessera
