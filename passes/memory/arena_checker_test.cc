// The arena checker over random modules (straight-line and with control
// flow, F32 and S32) and the JAX corpus (TESSERA_JAX_CORPUS), after copy
// insertion, scheduling and buffer assignment; and proof that it catches a
// corrupted assignment.
#include "passes/memory/arena_checker.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/memory/buffer_assignment.h"
#include "passes/memory/copy_insertion.h"
#include "passes/pass_test_util.h"
#include "passes/schedule/hlo_scheduler.h"
#include "hlo/testing/random_control_flow_module.h"
#include "hlo/testing/random_module.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// Copy insertion, scheduling and buffer assignment, each checked.
absl::StatusOr<BufferAssignment> Plan(HloModule& module,
                                      const BufferAssignmentOptions& options = {}) {
  CopyInsertion copy_insertion;
  TS_RETURN_IF_ERROR(copy_insertion.Run(&module).status());
  TS_RETURN_IF_ERROR(VerifyHloModule(module));
  HloScheduler scheduler;
  TS_RETURN_IF_ERROR(scheduler.Run(&module).status());
  TS_RETURN_IF_ERROR(VerifySchedule(module));
  return AssignBuffers(module, options);
}

// Options vary with the seed: alignment 64 or 1, best fit, first fit or
// both, in-place reuse on or off.
BufferAssignmentOptions OptionsFor(uint64_t seed) {
  BufferAssignmentOptions options;
  options.alignment = seed % 2 ? 1 : 64;
  options.heap = seed % 3 == 0   ? BufferAssignmentOptions::Heap::kBest
                 : seed % 3 == 1 ? BufferAssignmentOptions::Heap::kBestFit
                                 : BufferAssignmentOptions::Heap::kFirstFit;
  options.in_place = seed % 5 != 4;
  return options;
}

struct Totals {
  int64_t modules = 0, copies = 0, in_place = 0, naive = 0, total = 0;
};

void PlanAndCheck(HloModule& module, int trials, uint64_t seed, Totals* totals,
                  bool reparse = false) {
  const std::string before = PrintHloModule(module);
  ASSERT_TRUE(VerifyHloModule(module).ok()) << before;
  const BufferAssignmentOptions options = OptionsFor(seed);
  absl::StatusOr<BufferAssignment> assignment = Plan(module, options);
  ASSERT_TRUE(assignment.ok()) << assignment.status() << "\n" << PrintHloModule(module);
  absl::Status status = CheckAssignmentOnArena(module, *assignment, trials, seed);
  EXPECT_TRUE(status.ok()) << status << "\n"
                           << before << "\n"
                           << PrintHloModule(module) << "\n"
                           << assignment->ToString();
  // Copy insertion has converged: a second run changes nothing.
  CopyInsertion again;
  EXPECT_FALSE(*again.Run(&module)) << PrintHloModule(module);
  totals->modules += 1;
  totals->in_place += assignment->in_place_count();
  totals->naive += assignment->naive_bytes();
  totals->total += assignment->total_bytes();
  if (reparse) {
    // The scheduled module prints (control edges, is_scheduled) and reads
    // back to a module that assigns and runs the same way.
    absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(PrintHloModule(module));
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    ASSERT_TRUE(VerifySchedule(**reparsed).ok());
    absl::StatusOr<BufferAssignment> again_assigned = AssignBuffers(**reparsed, options);
    ASSERT_TRUE(again_assigned.ok()) << again_assigned.status();
    EXPECT_TRUE(CheckAssignmentOnArena(**reparsed, *again_assigned, 1, seed).ok());
  }
  if (options.alignment == 1) {
    EXPECT_LE(assignment->temp_bytes(), assignment->naive_bytes());
  }
}

TEST(ArenaCheckerTest, RandomModules) {
  Totals totals;
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 60; ++seed) {
      RandomModuleOptions options;
      options.seed = seed;
      options.element_type = type;
      options.num_instructions = 12 + seed % 30;
      std::unique_ptr<HloModule> module = MakeRandomModule(options);
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " seed ", seed));
      PlanAndCheck(*module, 2, seed, &totals);
    }
  }
  EXPECT_EQ(totals.modules, 120);
  EXPECT_GT(totals.in_place, 0);
  std::cout << "random modules: " << totals.modules << ", in place " << totals.in_place
            << ", allocated " << totals.total << " of " << totals.naive << " naive bytes\n";
}

TEST(ArenaCheckerTest, RandomControlFlowModules) {
  Totals totals;
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 80; ++seed) {
      RandomControlFlowModuleOptions options;
      options.seed = seed;
      options.element_type = type;
      options.num_steps = 6 + seed % 10;
      std::unique_ptr<HloModule> module = MakeRandomControlFlowModule(options);
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " seed ", seed));
      PlanAndCheck(*module, 2, seed, &totals, /*reparse=*/true);
    }
  }
  EXPECT_EQ(totals.modules, 160);
  EXPECT_GT(totals.in_place, 0);
  std::cout << "random control-flow modules: " << totals.modules << ", in place "
            << totals.in_place << ", allocated " << totals.total << " of " << totals.naive
            << " naive bytes\n";
}

// Without copy insertion, buffer assignment must either refuse the module
// (FailedPrecondition) or give an assignment that runs correctly: its own
// checks of the storage-sharing rules are what stands between a module and
// a wrong plan.
TEST(ArenaCheckerTest, WithoutCopyInsertionAssignmentRefusesOrIsRight) {
  int refused = 0, accepted = 0;
  for (uint64_t seed = 0; seed < 120; ++seed) {
    RandomControlFlowModuleOptions options;
    options.seed = seed;
    options.element_type = seed % 2 ? S32 : F32;
    options.num_steps = 6 + seed % 10;
    std::unique_ptr<HloModule> module = MakeRandomControlFlowModule(options);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    HloScheduler scheduler;
    ASSERT_TRUE(scheduler.Run(module.get()).ok());
    absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module, OptionsFor(seed));
    if (!assignment.ok()) {
      EXPECT_EQ(assignment.status().code(), absl::StatusCode::kFailedPrecondition)
          << assignment.status();
      ++refused;
      continue;
    }
    ++accepted;
    absl::Status status = CheckAssignmentOnArena(*module, *assignment, 2, seed);
    EXPECT_TRUE(status.ok()) << status << "\n"
                             << PrintHloModule(*module) << "\n"
                             << assignment->ToString();
  }
  std::cout << "without copy insertion: " << accepted << " accepted, " << refused
            << " refused\n";
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
  // With the copies but without the control edges that order readers of a
  // loop state before its update: whatever order the scheduler picks is
  // either refused or right.
  int edges_refused = 0, edges_accepted = 0;
  for (uint64_t seed = 0; seed < 120; ++seed) {
    RandomControlFlowModuleOptions options;
    options.seed = seed;
    options.element_type = seed % 2 ? S32 : F32;
    options.num_steps = 6 + seed % 10;
    std::unique_ptr<HloModule> module = MakeRandomControlFlowModule(options);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    CopyInsertion copy_insertion;
    ASSERT_TRUE(copy_insertion.Run(module.get()).ok());
    if (copy_insertion.control_edges_added() == 0) continue;
    for (HloComputation* computation : module->computations()) {
      for (HloInstruction* instruction : computation->instructions()) {
        instruction->DropAllControlDeps();
      }
    }
    HloScheduler scheduler(seed % 2 ? ScheduleAlgorithm::kList : ScheduleAlgorithm::kDfs);
    ASSERT_TRUE(scheduler.Run(module.get()).ok());
    absl::StatusOr<BufferAssignment> assignment = AssignBuffers(*module, OptionsFor(seed));
    if (!assignment.ok()) {
      EXPECT_EQ(assignment.status().code(), absl::StatusCode::kFailedPrecondition)
          << assignment.status();
      ++edges_refused;
      continue;
    }
    ++edges_accepted;
    absl::Status status = CheckAssignmentOnArena(*module, *assignment, 2, seed);
    EXPECT_TRUE(status.ok()) << status << "\n"
                             << PrintHloModule(*module) << "\n"
                             << assignment->ToString();
  }
  std::cout << "without control edges: " << edges_accepted << " accepted, " << edges_refused
            << " refused\n";
  EXPECT_GT(edges_accepted, 0);
}

TEST(ArenaCheckerTest, CatchesTwoLiveValuesForcedToOverlap) {
  auto module = pass_test::Parse(R"(HloModule m
ENTRY main {
  p = f32[64] parameter(0)
  a = f32[64] exponential(p)
  b = f32[64] negate(p)
  c = f32[64] add(a, b)
  ROOT d = f32[64] multiply(c, a)
})");
  absl::StatusOr<BufferAssignment> assignment = Plan(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ASSERT_TRUE(CheckAssignmentOnArena(*module, *assignment, 1, 7).ok());
  // a is live until d; put b on top of it.
  const HloDataflowAnalysis& dataflow = assignment->dataflow();
  const HloValue* a = nullptr;
  const HloValue* b = nullptr;
  for (const auto& value : dataflow.values()) {
    if (value->defining_instruction()->name() == "a") a = value.get();
    if (value->defining_instruction()->name() == "b") b = value.get();
  }
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_FALSE(assignment->GetValueSlice(*a).Overlaps(assignment->GetValueSlice(*b)));
  assignment->OverrideValueSliceForTesting(*b, assignment->GetValueSlice(*a));
  absl::Status status = CheckAssignmentOnArena(*module, *assignment, 1, 7);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "overwrote")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "%a")) << status;
}

TEST(ArenaCheckerTest, CatchesALoopStateOutOfPlace) {
  auto module = pass_test::Parse(R"(HloModule m
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  inc = s32[] add(i, one)
  x = f32[8] get-tuple-element(s), index=1
  y = f32[8] sine(x)
  ROOT next = (s32[], f32[8]) tuple(inc, y)
}
cond {
  c = (s32[], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  lim = s32[] constant(3)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  a = f32[8] parameter(0)
  b = f32[8] negate(a)
  init = (s32[], f32[8]) tuple(zero, b)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  g = f32[8] get-tuple-element(w), index=1
  ROOT out = f32[8] negate(g)
})");
  BufferAssignmentOptions options;
  options.in_place = false;  // keeps the output apart from the loop state
  absl::StatusOr<BufferAssignment> assignment = Plan(*module, options);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ASSERT_TRUE(CheckAssignmentOnArena(*module, *assignment, 2, 1).ok());
  // The body's new state is made in place, in the state's slice; moving it
  // elsewhere breaks the loop.
  const HloValue* y = nullptr;
  for (const auto& value : assignment->dataflow().values()) {
    if (value->defining_instruction()->name() == "y") y = value.get();
  }
  ASSERT_NE(y, nullptr);
  // Into the output's allocation, which is free until the end.
  BufferSlice moved = *assignment->GetSlice(module->entry_computation()->root_instruction());
  ASSERT_NE(moved, assignment->GetValueSlice(*y));
  assignment->OverrideValueSliceForTesting(*y, moved);
  absl::Status status = CheckAssignmentOnArena(*module, *assignment, 1, 1);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "the body leaves %y")) << status;
}

TEST(ArenaCheckerTest, CatchesAnIllegalInPlaceWrite) {
  auto module = pass_test::Parse(R"(HloModule m
ENTRY main {
  p = f32[4,4] parameter(0)
  e = f32[4,4] exponential(p)
  t = f32[4,4] transpose(e), dimensions={1,0}
  ROOT n = f32[4,4] negate(t)
})");
  absl::StatusOr<BufferAssignment> assignment = Plan(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const HloValue* e = nullptr;
  const HloValue* t = nullptr;
  for (const auto& value : assignment->dataflow().values()) {
    if (value->defining_instruction()->name() == "e") e = value.get();
    if (value->defining_instruction()->name() == "t") t = value.get();
  }
  ASSERT_NE(e, nullptr);
  ASSERT_NE(t, nullptr);
  // e dies at the transpose, but a transpose cannot work in place.
  assignment->OverrideValueSliceForTesting(*t, assignment->GetValueSlice(*e));
  absl::Status status = CheckAssignmentOnArena(*module, *assignment, 1, 1);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "in place")) << status;
}

// The JAX corpus: programs with XLA's inputs.  Prints the memory figures.
std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(ArenaCheckerTest, JaxCorpus) {
  const char* root = std::getenv("TESSERA_JAX_CORPUS");
  if (root == nullptr || !fs::exists(fs::path(root) / "INDEX")) {
    GTEST_SKIP() << "TESSERA_JAX_CORPUS is not set";
  }
  const fs::path dir(root);
  std::ifstream index(dir / "INDEX");
  std::string name;
  int inputs = 0, outputs = 0;
  double tolerance = 0;
  int checked = 0;
  std::cout << absl::StrFormat("%-18s %6s %9s %9s %8s %6s %6s %-10s %8s %8s %8s %7s\n",
                               "program", "instrs", "naive", "peak", "temp", "ratio", "copies",
                               "schedule", "list", "dfs", "post", "ms");
  while (index >> name >> inputs >> outputs >> tolerance) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(ReadAll(dir / name / "module.hlo"));
    ASSERT_TRUE(module.ok()) << module.status();
    const HloComputation& entry = *(*module)->entry_computation();
    std::vector<Literal> arguments;
    for (int i = 0; i < inputs; ++i) {
      absl::StatusOr<Literal> input =
          ReadNpyFileAs((dir / name / absl::StrCat("in", i, ".npy")).string(),
                        entry.parameter_instruction(i)->shape().element_type());
      ASSERT_TRUE(input.ok()) << input.status();
      arguments.push_back(*std::move(input));
    }
    const int64_t instructions = (*module)->instruction_count();
    const auto start = std::chrono::steady_clock::now();
    CopyInsertion copy_insertion;
    ASSERT_TRUE(copy_insertion.Run(module->get()).ok());
    HloScheduler scheduler;
    ASSERT_TRUE(scheduler.Run(module->get()).ok());
    absl::StatusOr<BufferAssignment> assignment = AssignBuffers(**module);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start).count();
    const ComputationScheduleStats& entry_stats = scheduler.stats().back();
    absl::Status status = CheckAssignmentOnArena(**module, *assignment, arguments);
    EXPECT_TRUE(status.ok()) << status << "\n" << assignment->ToString();
    std::cout << absl::StrFormat(
        "%-18s %6d %9d %9d %8d %6.3f %6d %-10s %8d %8d %8d %7.1f\n", name, instructions,
        assignment->naive_bytes(), assignment->total_bytes(), assignment->temp_bytes(),
        static_cast<double>(assignment->total_bytes()) /
            std::max<int64_t>(1, assignment->naive_bytes()),
        copy_insertion.copies_added(), std::string(ScheduleAlgorithmName(entry_stats.chosen)),
        entry_stats.list_peak, entry_stats.dfs_peak, entry_stats.post_order_peak, ms);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace tessera
