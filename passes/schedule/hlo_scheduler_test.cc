#include "passes/schedule/hlo_scheduler.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/analysis/hlo_dataflow_analysis.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/pass_test_util.h"
#include "passes/schedule/memory_model.h"
#include "passes/schedule/schedulers.h"
#include "hlo/testing/random_module.h"

namespace tessera {
namespace {

using pass_test::Parse;

std::vector<std::string> Names(const std::vector<HloInstruction*>& sequence) {
  std::vector<std::string> names;
  for (const HloInstruction* instruction : sequence) names.push_back(instruction->name());
  return names;
}

// Every instruction once, operands and control predecessors first.
void ExpectValidOrder(const HloComputation& computation,
                      const std::vector<HloInstruction*>& sequence) {
  ASSERT_EQ(static_cast<int64_t>(sequence.size()), computation.instruction_count());
  std::vector<const HloInstruction*> done;
  auto is_done = [&](const HloInstruction* h) {
    return std::find(done.begin(), done.end(), h) != done.end();
  };
  for (const HloInstruction* instruction : sequence) {
    EXPECT_FALSE(is_done(instruction)) << instruction->name() << " twice";
    for (const HloInstruction* operand : instruction->operands()) {
      EXPECT_TRUE(is_done(operand)) << instruction->name() << " before " << operand->name();
    }
    for (const HloInstruction* predecessor : instruction->control_predecessors()) {
      EXPECT_TRUE(is_done(predecessor))
          << instruction->name() << " before control predecessor " << predecessor->name();
    }
    done.push_back(instruction);
  }
}

struct Analyses {
  std::unique_ptr<HloDataflowAnalysis> dataflow;
  std::unique_ptr<HloAliasAnalysis> alias;
};

Analyses Analyze(const HloModule& module) {
  Analyses a;
  a.dataflow = *HloDataflowAnalysis::Run(module);
  a.alias = std::make_unique<HloAliasAnalysis>(*a.dataflow);
  return a;
}

TEST(MemoryModelTest, PeakOfAChain) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  p = f32[100] parameter(0)
  e = f32[100] exponential(p)
  n = f32[100] negate(e)
  ROOT t = f32[100] tanh(n)
})");
  Analyses a = Analyze(*module);
  const HloComputation& entry = *module->entry_computation();
  ComputationMemoryModel model(entry, *a.alias, nullptr);
  // The parameter is the caller's; e (400) and n (400) overlap while n is
  // made; t (400, live out) overlaps n.
  EXPECT_EQ(model.PeakMemory(entry.MakeInstructionPostOrder()), 800);
}

TEST(MemoryModelTest, LoopStateUpdateCostsNothingInTheBody) {
  auto module = Parse(R"(HloModule m
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[64] get-tuple-element(s), index=1
  y = f32[64] exponential(x)
  z = f32[64] tanh(y)
  ROOT next = (s32[], f32[64]) tuple(inc, z)
}
cond {
  c = (s32[], f32[64]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  a = f32[64] parameter(0)
  b = f32[64] negate(a)
  init = (s32[], f32[64]) tuple(zero, b)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT out = f32[64] get-tuple-element(w), index=1
})");
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  // Body: y (256) is a temporary; z writes the loop state, which the body
  // does not allocate.
  const HloComputation* body = module->GetComputationWithName("body");
  for (const ComputationScheduleStats& stats : scheduler.stats()) {
    if (stats.computation == "body") {
      EXPECT_EQ(stats.peak, 256);  // y; inc and z are the loop state's
    }
    if (stats.computation == "main") {
      // b (the loop state) + the body's peak while the loop runs.
      EXPECT_EQ(stats.peak, 256 + 256);
    }
  }
  EXPECT_TRUE(module->schedule().HasSequence(body));
  EXPECT_EQ(*ScheduledPeakMemory(*module), 512);
}

// A live-out broadcast that post order makes first, while a chain of
// temporaries still has to run: the list scheduler runs the chain first.
constexpr absl::string_view kLateOutput = R"(HloModule m
sum {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT lr = f32[] add(l, r)
}
ENTRY main {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  big = f32[2000] broadcast(p), dimensions={}
  bq = f32[1000] broadcast(q), dimensions={}
  eq = f32[1000] exponential(bq)
  zero = f32[] constant(0)
  red = f32[] reduce(eq, zero), dimensions={0}, to_apply=sum
  ROOT t = (f32[2000], f32[]) tuple(big, red)
})";

TEST(SchedulersTest, ListBeatsPostOrderOnACraftedCase) {
  auto module = Parse(kLateOutput);
  Analyses a = Analyze(*module);
  const HloComputation& entry = *module->entry_computation();
  ComputationMemoryModel model(entry, *a.alias, nullptr);
  const std::vector<HloInstruction*> list = ListSchedule(model);
  const std::vector<HloInstruction*> post = PostOrderSchedule(model);
  const std::vector<HloInstruction*> dfs = DfsSchedule(model);
  ExpectValidOrder(entry, list);
  ExpectValidOrder(entry, post);
  ExpectValidOrder(entry, dfs);
  // Post order: big (8000) is live while bq and eq (4000 each) are.
  EXPECT_EQ(model.PeakMemory(post), 16000);
  // List: the chain first, then big next to the 4-byte reduction.
  EXPECT_EQ(model.PeakMemory(list), 8004);
  EXPECT_LE(model.PeakMemory(list), model.PeakMemory(post));

  HloScheduler scheduler;
  ASSERT_TRUE(*scheduler.Run(module.get()));
  EXPECT_EQ(scheduler.entry_peak(), 8004);
  ASSERT_EQ(scheduler.stats().size(), 2u);  // sum, main
  EXPECT_EQ(scheduler.stats()[1].post_order_peak, 16000);
  EXPECT_LE(scheduler.stats()[1].peak, scheduler.stats()[1].dfs_peak);
  // Running again keeps the same schedule.
  EXPECT_FALSE(*scheduler.Run(module.get()));
}

TEST(SchedulersTest, RespectControlDependencies) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  p = f32[256] parameter(0)
  a = f32[256] exponential(p)
  b = f32[256] negate(p)
  c = f32[256] sine(p), control-predecessors={a, b}
  d = f32[256] cosine(p), control-predecessors={c}
  ROOT t = (f32[256], f32[256], f32[256], f32[256]) tuple(d, c, b, a)
})");
  Analyses a = Analyze(*module);
  const HloComputation& entry = *module->entry_computation();
  ComputationMemoryModel model(entry, *a.alias, nullptr);
  ExpectValidOrder(entry, ListSchedule(model));
  ExpectValidOrder(entry, DfsSchedule(model));
  ExpectValidOrder(entry, PostOrderSchedule(model));
}

TEST(HloSchedulerTest, PrintsAndReparsesWithItsSchedule) {
  auto module = Parse(kLateOutput);
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  ASSERT_TRUE(VerifySchedule(*module).ok());
  const std::string text = PrintHloModule(*module);
  EXPECT_TRUE(absl::StrContains(text, "HloModule m, is_scheduled=true")) << text;
  // The entry prints in schedule order: the chain before the broadcast.
  EXPECT_LT(text.find("%eq"), text.find("%big")) << text;
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  ASSERT_TRUE((*reparsed)->has_schedule());
  EXPECT_EQ(Names((*reparsed)->schedule().sequence((*reparsed)->entry_computation())),
            Names(module->schedule().sequence(module->entry_computation())));
  EXPECT_TRUE(VerifySchedule(**reparsed).ok());
  EXPECT_EQ(PrintHloModule(**reparsed), text);
}

TEST(HloSchedulerTest, StaleScheduleIsReported) {
  auto module = Parse(kLateOutput);
  HloScheduler scheduler;
  ASSERT_TRUE(scheduler.Run(module.get()).ok());
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = entry->parameter_instruction(0);
  entry->AddInstruction(HloInstruction::CreateUnary(p->shape(), HloOpcode::kNegate, p));
  absl::Status status = VerifySchedule(*module);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "stale")) << status;
  module->clear_schedule();
  EXPECT_FALSE(VerifySchedule(*module).ok());
}

TEST(HloSchedulerTest, KeepsResultsAndNeverLosesToPostOrderOnRandomModules) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomModuleOptions options;
    options.seed = seed;
    options.element_type = seed % 2 ? S32 : F32;
    options.num_instructions = 30;
    std::unique_ptr<HloModule> module = MakeRandomModule(options);
    HloScheduler scheduler;
    absl::StatusOr<bool> changed = pass_test::RunPassKeepingResults(scheduler, *module, 1);
    ASSERT_TRUE(changed.ok()) << changed.status();
    ASSERT_TRUE(VerifySchedule(*module).ok()) << seed;
    for (const ComputationScheduleStats& stats : scheduler.stats()) {
      EXPECT_LE(stats.peak, stats.post_order_peak) << seed;
      EXPECT_LE(stats.peak, stats.list_peak) << seed;
      EXPECT_LE(stats.peak, stats.dfs_peak) << seed;
    }
    for (ScheduleAlgorithm algorithm :
         {ScheduleAlgorithm::kList, ScheduleAlgorithm::kDfs, ScheduleAlgorithm::kPostOrder}) {
      HloScheduler single(algorithm);
      ASSERT_TRUE(single.Run(module.get()).ok());
      ASSERT_TRUE(VerifySchedule(*module).ok()) << ScheduleAlgorithmName(algorithm) << " " << seed;
    }
  }
}

}  // namespace
}  // namespace tessera
