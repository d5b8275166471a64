// Differential check of the fusion passes: vertical, multi-output and
// horizontal fusion in sequence must leave what a module computes unchanged
// on the reference evaluator (bit-for-bit; NaN matches NaN), leave it valid,
// and leave text that prints and parses back.
//
// Over seeded random modules (F32 and S32), always; over the JAX corpus
// (TESSERA_JAX_CORPUS: module.hlo with its recorded inputs) and XLA's texts
// (TESSERA_SHARED_CORPUS, random inputs) when present, printing kernel
// counts before and after.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal_comparison.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/fusion/fusion_utils.h"
#include "passes/fusion/horizontal_fusion.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/pass_test_util.h"
#include "hlo/testing/random_module.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

void RunFusionPasses(HloModule& module, const FusionCostParams& params, int trials,
                     const std::string& label) {
  InstructionFusion vertical(params);
  MultiOutputFusion multi(params);
  HorizontalFusion horizontal(params);
  for (HloPass* pass : std::vector<HloPass*>{&vertical, &multi, &horizontal}) {
    absl::StatusOr<bool> changed = pass_test::RunPassKeepingResults(*pass, module, trials);
    ASSERT_TRUE(changed.ok()) << label << ": " << pass->name() << ": " << changed.status();
  }
}

TEST(FusionRandomModulesTest, ThreePassesKeepResults) {
  int fused_modules = 0, kernels_before = 0, kernels_after = 0;
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 120; ++seed) {
      RandomModuleOptions options;
      options.seed = seed;
      options.element_type = type;
      options.num_instructions = 16 + static_cast<int>(seed % 4) * 8;
      options.random_layouts = seed % 2 == 1;
      std::unique_ptr<HloModule> module = MakeRandomModule(options);
      ASSERT_TRUE(VerifyHloModule(*module).ok());
      const std::string label = absl::StrCat(PrimitiveTypeName(type), " seed ", seed);
      const std::string before_text = PrintHloModule(*module);
      const int64_t before = CountKernels(*module);
      RunFusionPasses(*module, {}, 2, label);
      const int64_t after = CountKernels(*module);
      EXPECT_LE(after, before) << label;
      kernels_before += before;
      kernels_after += after;
      fused_modules += !fusion_test::Fusions(*module->entry_computation()).empty();
      fusion_test::ExpectPrintsAndParses(*module);
      if (HasFailure()) {
        ADD_FAILURE() << label << " before:\n" << before_text << "after:\n" << PrintHloModule(*module);
        return;
      }
    }
  }
  std::cout << "random modules: " << fused_modules << "/240 fused; kernels " << kernels_before
            << " -> " << kernels_after << "\n";
  EXPECT_GT(fused_modules, 200);
}

// Tight caps and no duplication make other decisions on the same modules.
TEST(FusionRandomModulesTest, TightCapsKeepResults) {
  FusionCostParams params;
  params.max_fused_instructions = 4;
  params.max_fusion_operands = 3;
  params.allow_duplication = false;
  params.min_shared_operand_bytes = 0;
  params.horizontal_max_count = 3;
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 1000; seed < 1040; ++seed) {
      RandomModuleOptions options;
      options.seed = seed;
      options.element_type = type;
      options.num_instructions = 32;
      std::unique_ptr<HloModule> module = MakeRandomModule(options);
      RunFusionPasses(*module, params, 1, absl::StrCat("seed ", seed));
      for (const HloInstruction* fusion : fusion_test::Fusions(*module->entry_computation())) {
        if (fusion->fused_computation()->name().find("horizontal") != std::string::npos) continue;
        EXPECT_LE(fusion->operand_count(), 3) << seed;
      }
      fusion_test::ExpectPrintsAndParses(*module);
      if (HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------
// Corpora.

struct Program {
  std::string name;
  std::string text;
  std::vector<Literal> arguments;
  int64_t xla_kernels = -1;  // in XLA's optimized.hlo, when present and parsable
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<Program> Programs() {
  std::vector<Program> programs;
  if (const char* root = std::getenv("TESSERA_JAX_CORPUS"); root != nullptr) {
    std::ifstream index(fs::path(root) / "INDEX");
    std::string name;
    int inputs, outputs;
    double tolerance;
    while (index >> name >> inputs >> outputs >> tolerance) {
      Program program{name, ReadAll(fs::path(root) / name / "module.hlo"), {}};
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(program.text);
      if (!module.ok()) continue;
      const HloComputation& entry = *(*module)->entry_computation();
      bool ok = true;
      for (int i = 0; i < inputs && ok; ++i) {
        absl::StatusOr<Literal> input =
            ReadNpyFileAs((fs::path(root) / name / absl::StrCat("in", i, ".npy")).string(),
                          entry.parameter_instruction(i)->shape().element_type());
        ok = input.ok();
        if (ok) program.arguments.push_back(*std::move(input));
      }
      // XLA's own optimized module, already fused: the passes must take
      // existing fusions apart and together correctly too.
      const fs::path optimized = fs::path(root) / name / "optimized.hlo";
      Program xla_program{absl::StrCat(name, " (XLA-optimized)"), ReadAll(optimized), {}};
      if (fs::exists(optimized)) {
        absl::StatusOr<std::unique_ptr<HloModule>> xla = ParseHloModule(xla_program.text);
        if (xla.ok()) program.xla_kernels = CountKernels(**xla);
        if (ok && xla.ok()) {
          for (const Literal& argument : program.arguments) xla_program.arguments.push_back(argument);
        } else {
          xla_program.text.clear();
        }
      }
      if (ok) programs.push_back(std::move(program));
      if (!xla_program.text.empty()) programs.push_back(std::move(xla_program));
    }
  }
  if (const char* root = std::getenv("TESSERA_SHARED_CORPUS");
      root != nullptr && fs::is_directory(root)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(root)) {
      if (entry.path().extension() == ".hlo") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    std::mt19937_64 rng(7);
    for (const fs::path& file : files) {
      Program program{file.filename().string(), ReadAll(file), {}};
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(program.text);
      if (!module.ok()) continue;
      bool ok = true;
      for (const HloInstruction* parameter :
           (*module)->entry_computation()->parameter_instructions()) {
        absl::StatusOr<Literal> argument = MakeRandomLiteral(parameter->shape(), rng);
        ok = ok && argument.ok();
        if (ok) program.arguments.push_back(*std::move(argument));
      }
      if (ok) programs.push_back(std::move(program));
    }
  }
  return programs;
}

TEST(FusionCorpusTest, ThreePassesKeepResults) {
  const std::vector<Program> programs = Programs();
  if (programs.empty()) GTEST_SKIP() << "no corpus (TESSERA_JAX_CORPUS/TESSERA_SHARED_CORPUS)";
  int checked = 0;
  for (const Program& program : programs) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(program.text);
    ASSERT_TRUE(module.ok());
    absl::StatusOr<Literal> before = EvaluateModule(**module, program.arguments);
    if (!before.ok()) continue;  // the evaluator cannot run it
    const int64_t kernels_before = CountKernels(**module);
    InstructionFusion vertical;
    MultiOutputFusion multi;
    HorizontalFusion horizontal;
    std::vector<int64_t> kernels;
    const auto start = std::chrono::steady_clock::now();
    for (HloPass* pass : std::vector<HloPass*>{&vertical, &multi, &horizontal}) {
      absl::StatusOr<bool> changed = pass->Run(module->get());
      ASSERT_TRUE(changed.ok()) << program.name << ": " << pass->name() << ": "
                                << changed.status();
      absl::Status verified = VerifyHloModule(**module);
      ASSERT_TRUE(verified.ok()) << program.name << " after " << pass->name() << ": " << verified;
      kernels.push_back(CountKernels(**module));
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    absl::StatusOr<Literal> after = EvaluateModule(**module, program.arguments);
    ASSERT_TRUE(after.ok()) << program.name << ": " << after.status();
    EXPECT_TRUE(LiteralsEqualNanAware(*before, *after)) << "fusion changed the results of " << program.name;
    fusion_test::ExpectPrintsAndParses(**module);
    std::cout << program.name << ": kernels " << kernels_before << " -> " << kernels[0]
              << " (fusion) -> " << kernels[1] << " (multi-output) -> " << kernels[2]
              << " (horizontal)";
    if (program.xla_kernels >= 0) std::cout << "; XLA's optimized module: " << program.xla_kernels;
    std::cout << "; " << ms << " ms (with verification)\n";
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace tessera
