// The whole memory plan after fusion: the fusion pipeline (Simplify,
// fusion, scheduling), then copy insertion, scheduling and buffer
// assignment, checked by the arena checker against the evaluator on the JAX
// corpus (TESSERA_JAX_CORPUS, with XLA's inputs) and on random modules.
// Prints, per corpus program, the bytes of all buffers if each had its own
// (naive) and what the assignment allocates (peak).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/fusion/fusion_pipeline.h"
#include "passes/memory/arena_checker.h"
#include "passes/memory/buffer_assignment.h"
#include "passes/memory/copy_insertion.h"
#include "passes/schedule/hlo_scheduler.h"
#include "hlo/testing/random_control_flow_module.h"
#include "hlo/testing/random_module.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<BufferAssignment> FuseAndPlan(HloModule& module) {
  std::unique_ptr<PassPipeline> fusion = MakeFusionPipeline({}, {});
  TS_RETURN_IF_ERROR(fusion->Run(&module).status());
  CopyInsertion copy_insertion;
  TS_RETURN_IF_ERROR(copy_insertion.Run(&module).status());
  TS_RETURN_IF_ERROR(VerifyHloModule(module));
  HloScheduler scheduler;
  TS_RETURN_IF_ERROR(scheduler.Run(&module).status());
  return AssignBuffers(module);
}

int64_t CountFusions(const HloModule& module) {
  int64_t count = 0;
  for (const HloInstruction* instruction : module.entry_computation()->instructions()) {
    count += instruction->opcode() == HloOpcode::kFusion;
  }
  return count;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(MemoryPlanTest, FusedJaxCorpus) {
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
  std::cout << absl::StrFormat("%-18s %7s %9s %9s %8s %6s\n", "program (fused)", "fusions",
                               "naive", "peak", "temp", "ratio");
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
    absl::StatusOr<BufferAssignment> assignment = FuseAndPlan(**module);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    absl::Status status = CheckAssignmentOnArena(**module, *assignment, arguments);
    EXPECT_TRUE(status.ok()) << status << "\n"
                             << PrintHloModule(**module) << "\n"
                             << assignment->ToString();
    std::cout << absl::StrFormat(
        "%-18s %7d %9d %9d %8d %6.3f\n", name, CountFusions(**module), assignment->naive_bytes(),
        assignment->total_bytes(), assignment->temp_bytes(),
        static_cast<double>(assignment->total_bytes()) /
            std::max<int64_t>(1, assignment->naive_bytes()));
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(MemoryPlanTest, FusedRandomModules) {
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " seed ", seed));
      std::unique_ptr<HloModule> module;
      if (seed % 2 == 0) {
        RandomModuleOptions options;
        options.seed = seed;
        options.element_type = type;
        options.num_instructions = 16 + seed % 24;
        module = MakeRandomModule(options);
      } else {
        RandomControlFlowModuleOptions options;
        options.seed = seed;
        options.element_type = type;
        options.num_steps = 6 + seed % 10;
        options.random_layouts = seed % 4 == 3;
        module = MakeRandomControlFlowModule(options);
      }
      absl::StatusOr<BufferAssignment> assignment = FuseAndPlan(*module);
      ASSERT_TRUE(assignment.ok()) << assignment.status();
      absl::Status status = CheckAssignmentOnArena(*module, *assignment, 2, seed);
      EXPECT_TRUE(status.ok()) << status << "\n"
                               << PrintHloModule(*module) << "\n"
                               << assignment->ToString();
    }
  }
}

}  // namespace
}  // namespace tessera
