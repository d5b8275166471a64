#include "passes/pass_pipeline.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr absl::string_view kModule = R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = f32[4] negate(p0)
  b = f32[4] negate(a)
  ROOT c = f32[4] negate(b)
})";

std::unique_ptr<HloModule> Parse() {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  EXPECT_TRUE(module.ok()) << module.status();
  return *std::move(module);
}

// Turns one `negate(negate(x))` into `x` per run.
class CancelOneDoubleNegate : public HloPass {
 public:
  absl::string_view name() const override { return "cancel-negate"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    HloComputation* entry = module->entry_computation();
    for (HloInstruction* instruction : entry->MakeInstructionPostOrder()) {
      if (instruction->opcode() == HloOpcode::kNegate &&
          instruction->operand(0)->opcode() == HloOpcode::kNegate) {
        HloInstruction* inner = instruction->operand(0);
        // Also removes `inner`, left without users.
        absl::Status status = entry->ReplaceInstruction(instruction, inner->operand(0));
        if (!status.ok()) return status;
        return true;
      }
    }
    return false;
  }
};

// Always claims a change without making one.
class Restless : public HloPass {
 public:
  absl::string_view name() const override { return "restless"; }
  absl::StatusOr<bool> Run(HloModule*) override { return true; }
};

// Breaks the module: gives the root a wrong shape.
class Breaker : public HloPass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    *module->entry_computation()->root_instruction()->mutable_shape() =
        Shape::MakeArrayWithDescendingLayout(F32, {5});
    return true;
  }
};

class Failing : public HloPass {
 public:
  absl::string_view name() const override { return "failing"; }
  absl::StatusOr<bool> Run(HloModule*) override {
    return absl::InvalidArgumentError("no good");
  }
};

TEST(PassPipelineTest, FixedPointRepeatsUntilNothingChanges) {
  auto module = Parse();
  PassPipeline pipeline("test");
  pipeline.AddFixedPoint("loop").AddPass<CancelOneDoubleNegate>();
  ASSERT_TRUE(*pipeline.Run(module.get()));
  // negate(negate(negate(p0))) -> negate(p0), then a round with no change.
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
  const std::vector<PassRunRecord>& runs = pipeline.stats().runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].changed);
  EXPECT_EQ(runs[0].instructions_before, 4);
  EXPECT_EQ(runs[0].instructions_after, 2);
  EXPECT_FALSE(runs[1].changed);
  EXPECT_EQ(runs[1].iteration, 2);
  EXPECT_TRUE(pipeline.stats().groups_at_iteration_cap.empty());
  EXPECT_FALSE(*pipeline.Run(module.get()));
}

TEST(PassPipelineTest, IterationCapIsReported) {
  auto module = Parse();
  PassPipeline pipeline("test");
  pipeline.AddFixedPoint("spin", 3).AddPass<Restless>();
  ASSERT_TRUE(*pipeline.Run(module.get()));
  EXPECT_EQ(pipeline.stats().runs.size(), 3u);
  EXPECT_THAT(pipeline.stats().groups_at_iteration_cap, ElementsAre("spin (3 rounds)"));
  EXPECT_THAT(pipeline.stats().ToString(), HasSubstr("iteration cap"));
}

TEST(PassPipelineTest, VerifierNamesThePassThatBrokeTheModule) {
  auto module = Parse();
  PassPipelineOptions options;
  options.verify = true;
  PassPipeline pipeline("test", options);
  pipeline.AddPass<Breaker>();
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("pass breaker (in test) left an invalid module"));
}

TEST(PassPipelineTest, PassErrorsNameThePass) {
  auto module = Parse();
  PassPipeline pipeline("test");
  pipeline.AddPass<Failing>();
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "pass failing: no good");
}

TEST(PassPipelineTest, DescribeListsGroups) {
  PassPipeline pipeline("test");
  pipeline.AddPass<Failing>();
  pipeline.AddFixedPoint("loop").AddPass<Restless>();
  EXPECT_EQ(pipeline.Describe(), "failing,loop{restless}");
}

std::vector<std::string> DumpedFiles(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(PassPipelineTest, DumpsBeforeAndAfterEveryChange) {
  const std::string dir = ::testing::TempDir() + "/dumps_all";
  std::filesystem::remove_all(dir);
  auto module = Parse();
  PassPipelineOptions options;
  options.dump_dir = dir;
  PassPipeline pipeline("simplify", options);
  pipeline.AddFixedPoint("loop").AddPass<CancelOneDoubleNegate>();
  ASSERT_TRUE(*pipeline.Run(module.get()));
  EXPECT_THAT(DumpedFiles(dir),
              ElementsAre("0000.m.simplify.before.hlo", "0001.m.loop.cancel-negate.hlo"));
}

TEST(PassPipelineTest, DumpPassRegexFilters) {
  const std::string dir = ::testing::TempDir() + "/dumps_filtered";
  std::filesystem::remove_all(dir);
  auto module = Parse();
  PassPipelineOptions options;
  options.dump_dir = dir;
  options.dump_pass_re = "^nothing-matches$";
  PassPipeline pipeline("simplify", options);
  pipeline.AddPass<CancelOneDoubleNegate>();
  ASSERT_TRUE(*pipeline.Run(module.get()));
  EXPECT_THAT(DumpedFiles(dir), ElementsAre("0000.m.simplify.before.hlo"));
}

TEST(PassPipelineTest, BadDumpRegexIsAnError) {
  auto module = Parse();
  PassPipelineOptions options;
  options.dump_dir = ::testing::TempDir() + "/dumps_bad";
  options.dump_pass_re = "(";
  PassPipeline pipeline("simplify", options);
  pipeline.AddPass<CancelOneDoubleNegate>();
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("bad --dump_pass_re '('"));
}

}  // namespace
}  // namespace tessera
