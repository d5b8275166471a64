#include "passes/fusion/fusion_cost_model.h"

#include "gtest/gtest.h"
#include "passes/fusion/fusion_utils.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using pass_test::Parse;

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (HloInstruction* instruction : module.entry_computation()->instructions()) {
    if (instruction->name() == name) return instruction;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

class FusionCostModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  v = f32[8] parameter(2)
  ex = f32[8] exponential(v)
  exb = f32[8,16] broadcast(ex), dimensions={0}
  n = f32[8,16] negate(p0)
  a = f32[8,16] add(n, exb)
  m = f32[8,16] multiply(n, p0)
  zero = f32[] constant(0)
  r = f32[8] reduce(m, zero), dimensions={1}, to_apply=sum
  rs = f32[8] sqrt(r)
  rb = f32[8,16] broadcast(r), dimensions={0}
  d = f32[8,4] dot(a, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dn = f32[8,4] negate(d)
  big = f32[4] constant({1, 2, 3, 4})
  bigb = f32[8,4] broadcast(big), dimensions={1}
  out = f32[8,4] add(dn, bigb)
  ROOT t = (f32[8], f32[8,16], f32[8,4], f32[8,16]) tuple(rs, rb, out, exb)
})");
  }
  const HloInstruction& I(absl::string_view name) { return *Find(*module_, name); }
  std::unique_ptr<HloModule> module_;
  FusionCostModel model_;
};

TEST_F(FusionCostModelTest, ElementwiseSingleUserFusesAndCountsBytes) {
  FusionDecision d = model_.ShouldFuse(I("exb"), I("a"));
  EXPECT_FALSE(d.fuse) << "exb has two users, one of them the root tuple";
  d = model_.ShouldFuse(I("m"), I("r"));
  EXPECT_TRUE(d.fuse) << d.reason;
  EXPECT_NE(d.reason.find("saves 1024 bytes"), std::string::npos) << d.reason;
}

TEST_F(FusionCostModelTest, CheapProducerWithAbsorbingUsersIsDuplicated) {
  FusionDecision d = model_.ShouldFuse(I("n"), I("a"));
  EXPECT_TRUE(d.fuse) << d.reason;
  EXPECT_NE(d.reason.find("duplicated into its 2 users"), std::string::npos) << d.reason;
  FusionCostParams params;
  params.allow_duplication = false;
  FusionCostModel strict(params);
  EXPECT_FALSE(strict.ShouldFuse(I("n"), I("a")).fuse);
}

TEST_F(FusionCostModelTest, ExpensiveProducerIsNotReadManyTimes) {
  EXPECT_EQ(FusionCostModel::ReuseFactor(I("ex"), I("exb")), 16);
  FusionDecision d = model_.ShouldFuse(I("ex"), I("exb"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("16 times"), std::string::npos) << d.reason;
}

TEST_F(FusionCostModelTest, ReduceEpilogueOnlyInTheOutputSpace) {
  EXPECT_TRUE(model_.CanFuseIntoConsumer(I("r"), I("rs")).fuse);
  // Read back over its rows through a broadcast: a row fusion...
  FusionDecision row = model_.CanFuseIntoConsumer(I("r"), I("rb"));
  EXPECT_TRUE(row.fuse) << row.reason;
  EXPECT_NE(row.reason.find("row fusion"), std::string::npos) << row.reason;
  // ... which off, the reduce would be redone per element.
  FusionCostParams no_rows;
  no_rows.fuse_row_reductions = false;
  FusionCostModel plain(no_rows);
  FusionDecision d = plain.CanFuseIntoConsumer(I("r"), I("rb"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("through broadcast"), std::string::npos) << d.reason;
  // Rows longer than max_row_bytes (here 16 floats) do not row-fuse.
  FusionCostParams short_rows;
  short_rows.max_row_bytes = 32;
  FusionCostModel short_model(short_rows);
  EXPECT_FALSE(short_model.CanFuseIntoConsumer(I("r"), I("rb")).fuse);
  FusionCostParams params;
  params.fuse_reduce_epilogue = false;
  FusionCostModel no_epilogue(params);
  EXPECT_FALSE(no_epilogue.CanFuseIntoConsumer(I("r"), I("rs")).fuse);
}

TEST_F(FusionCostModelTest, DotTakesEpiloguesButNoPrologue) {
  EXPECT_TRUE(model_.ShouldFuse(I("d"), I("dn")).fuse);
  FusionDecision d = model_.ShouldFuse(I("a"), I("d"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("only epilogues"), std::string::npos) << d.reason;
  EXPECT_GT(FusionCostModel::ReuseFactor(I("a"), I("d")), 1);
}

TEST_F(FusionCostModelTest, OpaqueAndLargeConstantsDoNotFuse) {
  EXPECT_FALSE(model_.IsFusible(I("t")).fuse);
  EXPECT_FALSE(model_.IsFusible(I("p0")).fuse);
  FusionDecision d = model_.IsFusible(I("big"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("4 elements"), std::string::npos) << d.reason;
  EXPECT_TRUE(model_.IsFusible(I("zero")).fuse);
  EXPECT_FALSE(model_.CanBeConsumer(I("zero")));
  EXPECT_FALSE(model_.CanBeConsumer(I("t")));
}

TEST_F(FusionCostModelTest, CapsAreChecked) {
  FusionCostParams params;
  params.max_fused_instructions = 1;
  FusionCostModel tiny(params);
  FusionDecision d = tiny.ShouldFuse(I("m"), I("r"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("cap 1"), std::string::npos) << d.reason;
  EXPECT_EQ(FusionCostModel::FusedOperandCount(I("m"), I("r"), false), 3);  // n, p0, zero
}

TEST_F(FusionCostModelTest, SiblingsNeedALargeSharedOperandAndOneSpace) {
  FusionDecision d = model_.ShouldFuseSiblings(I("n"), I("m"), I("p0"));
  EXPECT_TRUE(d.fuse) << d.reason;
  d = model_.ShouldFuseSiblings(I("ex"), I("exb"), I("v"));
  EXPECT_FALSE(d.fuse);
  EXPECT_NE(d.reason.find("only 32 bytes"), std::string::npos) << d.reason;
  d = model_.ShouldFuseSiblings(I("a"), I("d"), I("a"));
  EXPECT_FALSE(d.fuse);
}

TEST_F(FusionCostModelTest, ExtraOutputNeedsOneIterationSpace) {
  FusionDecision d = model_.ShouldFuseAsExtraOutput(I("m"), I("r"));
  EXPECT_FALSE(d.fuse) << "m has only one user";
  d = model_.ShouldFuseAsExtraOutput(I("n"), I("m"));
  EXPECT_TRUE(d.fuse) << d.reason;
  EXPECT_NE(d.reason.find("extra output"), std::string::npos) << d.reason;
}

TEST_F(FusionCostModelTest, HorizontalCandidatesAreSmallLoops) {
  EXPECT_TRUE(model_.IsHorizontalCandidate(I("n")).fuse);
  EXPECT_FALSE(model_.IsHorizontalCandidate(I("r")).fuse);
  EXPECT_FALSE(model_.IsHorizontalCandidate(I("d")).fuse);
  FusionCostParams params;
  params.horizontal_max_output_elements = 8;
  FusionCostModel small(params);
  EXPECT_FALSE(small.IsHorizontalCandidate(I("n")).fuse);
  EXPECT_TRUE(small.IsHorizontalCandidate(I("ex")).fuse);
}

TEST(FusionExplanationTest, FormatsOneLinePerDecision) {
  std::vector<FusionExplanation> explanations = {
      {"fusion", "add", "exp", false, "expensive"},
      {"multi-output-fusion", "reduce_fusion", "exp_fusion", true, ""},
      {"horizontal-fusion", "r", "r", false, "not a loop"},
  };
  EXPECT_EQ(ExplainFusion(explanations),
            "fusion: %exp -> %add: not fused (expensive)\n"
            "multi-output-fusion: %exp_fusion -> %reduce_fusion: fused\n"
            "horizontal-fusion: %r: not fused (not a loop)\n");
}

TEST(FusionExplanationTest, LogRecordsEachDecisionOnce) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  ROOT n = f32[8] negate(p0)
})");
  std::vector<FusionExplanation> out;
  FusionExplanationLog log(&out, "fusion");
  const HloInstruction& n = *module->entry_computation()->root_instruction();
  const HloInstruction& p = *n.operand(0);
  log.Record(n, p, FusionDecision::No("x"));
  log.Record(n, p, FusionDecision::No("x"));
  log.Record(n, p, FusionDecision::No("y"));
  EXPECT_EQ(out.size(), 2u);
  FusionExplanationLog off(nullptr, "fusion");
  off.Record(n, p, FusionDecision::No("x"));
  EXPECT_FALSE(off.enabled());
}

}  // namespace
}  // namespace tessera
