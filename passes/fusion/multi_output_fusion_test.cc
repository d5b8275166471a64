#include "passes/fusion/multi_output_fusion.h"

#include "absl/strings/str_cat.h"
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

// Vertical fusion, then multi-output fusion, both checked on the evaluator.
// Returns whether multi-output fusion changed the module.
bool FuseBoth(HloModule& module, std::vector<FusionExplanation>* explanations = nullptr,
              FusionCostParams params = {}) {
  InstructionFusion vertical(params);
  EXPECT_TRUE(RunPassKeepingResults(vertical, module).ok());
  MultiOutputFusion multi(params, explanations);
  absl::StatusOr<bool> changed = RunPassKeepingResults(multi, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  ExpectPrintsAndParses(module);
  return changed.value_or(false);
}

// Row fusion off: what multi-output fusion makes of reductions whose
// results come back over their rows (with row fusion on, instruction
// fusion puts such a chain into one row kernel before this pass runs).
FusionCostParams NoRowFusion() {
  FusionCostParams params;
  params.fuse_row_reductions = false;
  return params;
}

bool Explained(const std::vector<FusionExplanation>& explanations, bool fused,
               absl::string_view reason_part) {
  for (const FusionExplanation& e : explanations) {
    if (e.fused == fused && e.reason.find(std::string(reason_part)) != std::string::npos) {
      return true;
    }
  }
  return false;
}

constexpr absl::string_view kReducers = R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] maximum(x, y)
}
)";

std::unique_ptr<HloModule> ParseWithReducers(absl::string_view entry) {
  return Parse(absl::StrCat(kReducers, entry));
}

TEST(MultiOutputFusionTest, LayerNormStatisticsBecomeOneKernel) {
  // Mean and mean of squares both reduce x: siblings.
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,128] parameter(0)
  zero = f32[] constant(0)
  tot = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  sq = f32[8,128] multiply(x, x)
  totsq = f32[8] reduce(sq, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[8], f32[8]) tuple(tot, totsq)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_TRUE(FuseBoth(*module, &explanations));
  EXPECT_EQ(Describe(*module),
            "parameter,fusion:kInput{multiply,constant,reduce,constant,reduce,tuple},"
            "get-tuple-element,get-tuple-element,tuple");
  const HloInstruction* fusion = Fusions(*module->entry_computation())[0];
  EXPECT_EQ(fusion->operand_count(), 1);
  EXPECT_EQ(fusion->name(), "fusion");
  EXPECT_TRUE(Explained(explanations, true, "siblings read %x")) << ExplainFusion(explanations);
}

// A chain of 16 layer-norm statistics, each block reading the last one's
// results: every pair of siblings merges, whatever the sweep a fusion
// falls in (each fusion makes new instructions that the next block's
// candidates depend on), and the results stay the evaluator's.  (Deeper
// chains stop merging at 21 blocks, before and after the sweeps: vertical
// fusion duplicates each block's chain into the next reductions until
// max_fused_instructions.)
TEST(MultiOutputFusionTest, EverySiblingPairOfALongChainMerges) {
  constexpr int kBlocks = 16;
  std::string entry = "ENTRY e {\n  x0 = f32[8,128] parameter(0)\n  zero = f32[] constant(0)\n";
  for (int i = 0; i < kBlocks; ++i) {
    absl::StrAppend(
        &entry, "  tot", i, " = f32[8] reduce(x", i, ", zero), dimensions={1}, to_apply=sum\n",
        "  sq", i, " = f32[8,128] multiply(x", i, ", x", i, ")\n", "  totsq", i,
        " = f32[8] reduce(sq", i, ", zero), dimensions={1}, to_apply=sum\n", "  d", i,
        " = f32[8] subtract(totsq", i, ", tot", i, ")\n", "  b", i, " = f32[8,128] broadcast(d", i,
        "), dimensions={0}\n", "  x", i + 1, " = f32[8,128] add(x", i, ", b", i, ")\n");
  }
  absl::StrAppend(&entry, "  ROOT r = f32[8,128] tanh(x", kBlocks, ")\n}\n");
  auto module = ParseWithReducers(entry);
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(FuseBoth(*module, nullptr, NoRowFusion()));
  int64_t two_output_reductions = 0;
  for (const HloInstruction* fusion : Fusions(*module->entry_computation())) {
    const HloInstruction* root = fusion->fused_computation()->root_instruction();
    int64_t reduces = 0;
    for (const HloInstruction* h : fusion->fused_computation()->instructions()) {
      reduces += h->opcode() == HloOpcode::kReduce;
    }
    two_output_reductions += root->opcode() == HloOpcode::kTuple && reduces == 2;
  }
  EXPECT_EQ(two_output_reductions, kBlocks) << Describe(*module);
}

TEST(MultiOutputFusionTest, OnePassLayerNormMeanJoinsTheVarianceKernel) {
  // var = E[x^2] - E[x]^2: the mean feeds the variance's epilogue and the
  // normalization; it fuses into the variance kernel as an extra output.
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,128] parameter(0)
  zero = f32[] constant(0)
  n = f32[] constant(128)
  nb = f32[8] broadcast(n), dimensions={}
  tot = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  mean = f32[8] divide(tot, nb)
  sq = f32[8,128] multiply(x, x)
  totsq = f32[8] reduce(sq, zero), dimensions={1}, to_apply=sum
  msq = f32[8] divide(totsq, nb)
  mm = f32[8] multiply(mean, mean)
  var = f32[8] subtract(msq, mm)
  eps = f32[] constant(1e-5)
  eb = f32[8] broadcast(eps), dimensions={}
  ve = f32[8] add(var, eb)
  inv = f32[8] rsqrt(ve)
  meanb = f32[8,128] broadcast(mean), dimensions={0}
  centered = f32[8,128] subtract(x, meanb)
  invb = f32[8,128] broadcast(inv), dimensions={0}
  ROOT y = f32[8,128] multiply(centered, invb)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_EQ(CountKernels(*module), 15);
  EXPECT_TRUE(FuseBoth(*module, &explanations, NoRowFusion()));
  EXPECT_EQ(CountKernels(*module), 2) << Describe(*module);
  EXPECT_TRUE(Explained(explanations, true, "sibling reductions")) << ExplainFusion(explanations);
  const auto fusions = Fusions(*module->entry_computation());
  ASSERT_EQ(fusions.size(), 2u);
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kInput);
  EXPECT_TRUE(fusions[0]->shape().IsTuple());
  EXPECT_EQ(fusions[1]->fusion_kind(), FusionKind::kLoop);
}

TEST(MultiOutputFusionTest, SoftmaxExponentialBecomesAnExtraOutputOfTheSum) {
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,64] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[8,64] broadcast(m), dimensions={0}
  d = f32[8,64] subtract(x, mb)
  ex = f32[8,64] exponential(d)
  zero = f32[] constant(0)
  s = f32[8] reduce(ex, zero), dimensions={1}, to_apply=sum
  sb = f32[8,64] broadcast(s), dimensions={0}
  ROOT y = f32[8,64] divide(ex, sb)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_TRUE(FuseBoth(*module, &explanations, NoRowFusion()));
  EXPECT_EQ(Describe(*module),
            "parameter,fusion:kInput{constant,reduce},"
            "fusion:kInput{broadcast,subtract,exponential,constant,reduce,tuple},"
            "get-tuple-element,get-tuple-element,fusion:kLoop{broadcast,divide}");
  EXPECT_EQ(CountKernels(*module), 3);
  EXPECT_TRUE(Explained(explanations, true, "extra output")) << ExplainFusion(explanations);
  // The max and the exponential both read x, but one depends on the other.
  EXPECT_TRUE(Explained(explanations, false, "cycle")) << ExplainFusion(explanations);
}

TEST(MultiOutputFusionTest, ExtraOutputThatWouldCloseACycleIsRefused) {
  auto module = Parse(R"(
HloModule m
less {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}
ENTRY e {
  x = f32[16] parameter(0)
  ex = f32[16] exponential(x)
  s = f32[16] sort(ex), dimensions={0}, to_apply=less
  ROOT a = f32[16] add(ex, s)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, &explanations));
  EXPECT_EQ(Describe(*module), "parameter,exponential,sort,add");
  EXPECT_TRUE(Explained(explanations, false, "would create a cycle: %s uses the producer"))
      << ExplainFusion(explanations);
}

TEST(MultiOutputFusionTest, DependentSiblingsAreNotMerged) {
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  rb = f32[8,32] broadcast(r), dimensions={0}
  a = f32[8,32] add(x, rb)
  ROOT t = (f32[8], f32[8,32]) tuple(r, a)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, &explanations, NoRowFusion()));
  EXPECT_EQ(Fusions(*module->entry_computation()).size(), 2u);
  EXPECT_TRUE(Explained(explanations, false, "would create a cycle: a path joins"))
      << ExplainFusion(explanations);
}

TEST(MultiOutputFusionTest, ReductionsOverDifferentDimensionsStayApart) {
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  rows = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  cols = f32[32] reduce(x, zero), dimensions={0}, to_apply=sum
  ROOT t = (f32[8], f32[32]) tuple(rows, cols)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, &explanations));
  EXPECT_TRUE(Explained(explanations, false, "reductions differ")) << ExplainFusion(explanations);
}

TEST(MultiOutputFusionTest, LoopSiblingsOfTheSameShapeMerge) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[16,16] parameter(0)
  y = f32[16,16] parameter(1)
  a = f32[16,16] add(x, y)
  an = f32[16,16] negate(a)
  s = f32[16,16] subtract(x, y)
  sn = f32[16,16] abs(s)
  ROOT t = (f32[16,16], f32[16,16]) tuple(an, sn)
})");
  EXPECT_TRUE(FuseBoth(*module));
  EXPECT_EQ(Describe(*module),
            "parameter,parameter,fusion:kLoop{subtract,abs,add,negate,tuple},"
            "get-tuple-element,get-tuple-element,tuple");
}

TEST(MultiOutputFusionTest, LoopAndReductionOverTheSameSpaceMerge) {
  // A loop over x's space and a reduction of x: one pass over x.
  auto module = ParseWithReducers(R"(
ENTRY e {
  x = f32[8,32] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  n = f32[8,32] negate(x)
  ROOT t = (f32[8], f32[8,32]) tuple(r, n)
})");
  EXPECT_TRUE(FuseBoth(*module));
  ASSERT_EQ(Fusions(*module->entry_computation()).size(), 1u);
  EXPECT_EQ(Fusions(*module->entry_computation())[0]->fusion_kind(), FusionKind::kInput);
}

TEST(MultiOutputFusionTest, SmallSharedOperandsAreNotWorthIt) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] negate(x)
  b = f32[4] abs(x)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, &explanations));
  EXPECT_TRUE(Explained(explanations, false, "has only 16 bytes")) << ExplainFusion(explanations);
}

TEST(MultiOutputFusionTest, DotFusionsStaySingleOutput) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  x = f32[8,8] parameter(0)
  w = f32[8,8] parameter(1)
  d = f32[8,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[8,8] negate(x)
  ROOT t = (f32[8,8], f32[8,8]) tuple(d, n)
})");
  std::vector<FusionExplanation> explanations;
  EXPECT_FALSE(FuseBoth(*module, &explanations));
  EXPECT_TRUE(Explained(explanations, false, "kOutput fusions stay single-output"))
      << ExplainFusion(explanations);
}

}  // namespace
}  // namespace tessera
