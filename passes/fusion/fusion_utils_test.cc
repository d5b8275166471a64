#include "passes/fusion/fusion_utils.h"

#include <functional>

#include "gtest/gtest.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/pass_test_util.h"

namespace tessera {
namespace {

using fusion_test::Describe;
using fusion_test::ExpectPrintsAndParses;
using fusion_test::Fusions;
using pass_test::Parse;
using pass_test::RunPassKeepingResults;

// Runs `edit` as a pass, so that results are checked on the evaluator.
class EditPass : public HloPass {
 public:
  explicit EditPass(std::function<absl::Status(HloModule*)> edit) : edit_(std::move(edit)) {}
  absl::string_view name() const override { return "edit"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    absl::Status status = edit_(module);
    if (!status.ok()) return status;
    return true;
  }

 private:
  std::function<absl::Status(HloModule*)> edit_;
};

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() == name) return instruction;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

void Edit(HloModule& module, std::function<absl::Status(HloModule*)> edit) {
  EditPass pass(std::move(edit));
  absl::StatusOr<bool> changed = RunPassKeepingResults(pass, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  ExpectPrintsAndParses(module);
}

constexpr absl::string_view kChain = R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  a = f32[8] add(p0, p1)
  n = f32[8] negate(a)
  m = f32[8] multiply(n, p1)
  ROOT t = (f32[8], f32[8]) tuple(m, a)
})";

TEST(FusionUtilsTest, ClassifiesOpsAsTheLiteratureDoes) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p0 = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  a = f32[4,4] add(p0, p0)
  ex = f32[4,4] exponential(a)
  b = f32[4,4,2] broadcast(ex), dimensions={0,1}
  t = f32[4,4] transpose(ex), dimensions={1,0}
  ds = f32[2,4] dynamic-slice(t, i, i), dynamic_slice_sizes={2,4}
  zero = f32[] constant(0)
  r = f32[4] reduce(a, zero), dimensions={1}, to_apply=sum
  d = f32[4,4] dot(a, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  io = f32[4] iota(), iota_dimension=0
  dus = f32[4,4] dynamic-update-slice(d, ds, i, i)
  ROOT tuple = (f32[4,4,2], f32[4], f32[4], f32[4,4]) tuple(b, r, io, dus)
})");
  auto classify = [&](absl::string_view name) { return ClassifyForFusion(*Find(*module, name)); };
  EXPECT_EQ(classify("a"), FusionOpClass::kElementwise);
  EXPECT_EQ(classify("ex"), FusionOpClass::kElementwise);
  EXPECT_EQ(classify("b"), FusionOpClass::kInjective);
  EXPECT_EQ(classify("t"), FusionOpClass::kInjective);
  EXPECT_EQ(classify("ds"), FusionOpClass::kInjective);
  EXPECT_EQ(classify("r"), FusionOpClass::kReduction);
  EXPECT_EQ(classify("d"), FusionOpClass::kComplexOutFusable);
  EXPECT_EQ(classify("io"), FusionOpClass::kLeaf);
  EXPECT_EQ(classify("zero"), FusionOpClass::kLeaf);
  EXPECT_EQ(classify("dus"), FusionOpClass::kOpaque);
  EXPECT_EQ(classify("tuple"), FusionOpClass::kOpaque);
  EXPECT_EQ(classify("p0"), FusionOpClass::kOpaque);
  EXPECT_EQ(FusionOpClassName(FusionOpClass::kComplexOutFusable), "complex-out-fusable");
  EXPECT_TRUE(IsExpensive(*Find(*module, "ex")));
  EXPECT_TRUE(IsExpensive(*Find(*module, "r")));
  EXPECT_FALSE(IsExpensive(*Find(*module, "a")));
  EXPECT_FALSE(IsExpensive(*Find(*module, "b")));
}

TEST(FusionUtilsTest, FusesAChainIntoOneFusion) {
  auto module = Parse(kChain);
  Edit(*module, [](HloModule* m) {
    return FuseInstructions(m->entry_computation(), {Find(*m, "n"), Find(*m, "m")}).status();
  });
  EXPECT_EQ(Describe(*module), "parameter,parameter,add,fusion:kLoop{negate,multiply},tuple");
  const HloInstruction* fusion = Fusions(*module->entry_computation())[0];
  EXPECT_EQ(fusion->name(), "multiply_fusion");
  EXPECT_EQ(fusion->fused_computation()->name(), "fused_computation");
  EXPECT_TRUE(fusion->fused_computation()->IsFusionComputation());
  EXPECT_EQ(fusion->fused_computation()->parameter_instruction(0)->name(), "param_0");
}

TEST(FusionUtilsTest, AMemberUsedOutsideBecomesAnExtraOutput) {
  auto module = Parse(kChain);
  Edit(*module, [](HloModule* m) {
    return FuseInstructions(m->entry_computation(), {Find(*m, "a"), Find(*m, "n")}).status();
  });
  EXPECT_EQ(Describe(*module),
            "parameter,parameter,fusion:kLoop{add,negate,tuple},get-tuple-element,multiply,"
            "get-tuple-element,tuple");
  // The get-tuple-elements carry the names of the values they replace.
  EXPECT_EQ(module->entry_computation()->root_instruction()->operand(1)->name(), "a");
}

TEST(FusionUtilsTest, DuplicatedMembersStayForTheirOtherUsers) {
  auto module = Parse(kChain);
  Edit(*module, [](HloModule* m) {
    FuseOptions options;
    options.duplicate.insert(Find(*m, "a"));
    return FuseInstructions(m->entry_computation(), {Find(*m, "a"), Find(*m, "n")}, options)
        .status();
  });
  EXPECT_EQ(Describe(*module),
            "parameter,parameter,fusion:kLoop{add,negate},multiply,add,tuple");
  // Names are per computation: the clone inside and the original are both "a".
  const HloInstruction* fusion = Fusions(*module->entry_computation())[0];
  EXPECT_EQ(fusion->fused_computation()->root_instruction()->operand(0)->name(), "a");
  EXPECT_EQ(Find(*module, "a")->parent(), module->entry_computation());
}

TEST(FusionUtilsTest, RefusesSetsThatWouldBeCyclic) {
  auto module = Parse(kChain);
  const std::string before = Describe(*module);
  // a -> n -> m: fusing {a, m} without n would make the fusion feed n and
  // read it back.
  absl::StatusOr<HloInstruction*> fused =
      FuseInstructions(module->entry_computation(), {Find(*module, "a"), Find(*module, "m")});
  EXPECT_FALSE(fused.ok());
  EXPECT_NE(fused.status().message().find("cyclic"), std::string::npos) << fused.status();
  EXPECT_EQ(Describe(*module), before);
  absl::flat_hash_set<HloInstruction*> set = {Find(*module, "a"), Find(*module, "m")};
  EXPECT_TRUE(FusionWouldCreateCycle(set));
  set.insert(Find(*module, "n"));
  EXPECT_FALSE(FusionWouldCreateCycle(set));
}

TEST(FusionUtilsTest, RefusesParametersAndControlDependencies) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  a = f32[8] negate(p0)
  ROOT b = f32[8] abs(p0), control-predecessors={a}
})");
  EXPECT_FALSE(FuseInstructions(module->entry_computation(), {Find(*module, "p0")}).ok());
  EXPECT_FALSE(
      FuseInstructions(module->entry_computation(), {Find(*module, "a"), Find(*module, "b")}).ok());
}

TEST(FusionUtilsTest, FusionMembersAreInlinedAndTheirComputationsRemoved) {
  auto module = Parse(kChain);
  Edit(*module, [](HloModule* m) {
    absl::StatusOr<HloInstruction*> first = WrapInFusion(Find(*m, "n"));
    if (!first.ok()) return first.status();
    absl::StatusOr<HloInstruction*> second = WrapInFusion(Find(*m, "m"));
    if (!second.ok()) return second.status();
    return FuseProducerIntoConsumer(*first, *second, /*duplicate=*/false).status();
  });
  EXPECT_EQ(Describe(*module), "parameter,parameter,add,fusion:kLoop{negate,multiply},tuple");
  EXPECT_EQ(module->computation_count(), 2);
  // The grown fusion keeps the consumer's names.
  const HloInstruction* fusion = Fusions(*module->entry_computation())[0];
  EXPECT_EQ(fusion->name(), "multiply_fusion");
  EXPECT_EQ(fusion->fused_computation()->name(), "fused_computation.1");
}

TEST(FusionUtilsTest, MergingMultiOutputFusionsBringsTheirElementsAlong) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  a = f32[8] negate(p0)
  b = f32[8] abs(p0)
  c = f32[8] exponential(p0)
  d = f32[8] sqrt(p0)
  ROOT t = (f32[8], f32[8], f32[8], f32[8]) tuple(a, b, c, d)
})");
  Edit(*module, [](HloModule* m) {
    absl::StatusOr<HloInstruction*> ab = MergeSiblings(Find(*m, "a"), Find(*m, "b"));
    if (!ab.ok()) return ab.status();
    absl::StatusOr<HloInstruction*> cd = MergeSiblings(Find(*m, "c"), Find(*m, "d"));
    if (!cd.ok()) return cd.status();
    return MergeSiblings(*ab, *cd).status();
  });
  const auto fusions = Fusions(*module->entry_computation());
  ASSERT_EQ(fusions.size(), 1u) << Describe(*module);
  EXPECT_EQ(fusions[0]->shape().tuple_size(), 4);
  EXPECT_EQ(fusions[0]->fused_computation()->instruction_count(), 1 + 4 + 1);
  EXPECT_EQ(module->computation_count(), 2);
}

TEST(FusionUtilsTest, ReachabilityFollowsOperandsAndControlEdges) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  a = f32[8] negate(p0)
  b = f32[8] abs(p0)
  c = f32[8] add(a, a)
  ROOT d = f32[8] sqrt(b), control-predecessors={c}
})");
  ReachabilityMap reach(*module->entry_computation());
  EXPECT_TRUE(reach.IsReachable(Find(*module, "p0"), Find(*module, "c")));
  EXPECT_TRUE(reach.IsReachable(Find(*module, "a"), Find(*module, "d")));
  EXPECT_FALSE(reach.IsReachable(Find(*module, "d"), Find(*module, "a")));
  EXPECT_FALSE(reach.IsConnected(Find(*module, "a"), Find(*module, "b")));
  EXPECT_TRUE(reach.IsConnected(Find(*module, "d"), Find(*module, "a")));
  EXPECT_TRUE(reach.IsReachable(Find(*module, "a"), Find(*module, "a")));
}

TEST(FusionUtilsTest, TargetsAreControlFlowComputationsOnly) {
  auto module = Parse(R"(
HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
callee {
  q = f32[8] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(q, zero), dimensions={0}, to_apply=sum
}
ENTRY e {
  p0 = f32[8] parameter(0)
  ROOT c = f32[] call(p0), to_apply=callee
})");
  std::vector<std::string> names;
  for (const HloComputation* computation : FusionTargetComputations(*module)) {
    names.push_back(computation->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"callee", "e"}));
  EXPECT_EQ(CountKernels(*module), 1);  // the reduce; the call is control flow
}

TEST(FusionUtilsTest, IterationSpacesIgnoreSizeOneDimensions) {
  EXPECT_TRUE(SameIterationSpace(Shape::MakeArray(F32, {8, 1}), Shape::MakeArray(F32, {8})));
  EXPECT_FALSE(SameIterationSpace(Shape::MakeArray(F32, {8, 2}), Shape::MakeArray(F32, {16})));
  EXPECT_EQ(NonDegenerateDimensions(Shape::MakeArray(F32, {1, 4, 1, 3})),
            (std::vector<int64_t>{4, 3}));
}

TEST(FusionUtilsTest, ScheduleIsDroppedWhenFusing) {
  auto module = Parse(R"(
HloModule m, is_scheduled=true
ENTRY e {
  p0 = f32[8] parameter(0)
  a = f32[8] negate(p0)
  ROOT b = f32[8] abs(a)
})");
  ASSERT_TRUE(module->has_schedule());
  ASSERT_TRUE(
      FuseInstructions(module->entry_computation(), {Find(*module, "a"), Find(*module, "b")}).ok());
  EXPECT_FALSE(module->has_schedule());
}

}  // namespace
}  // namespace tessera
