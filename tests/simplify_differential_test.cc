// Differential check of the graph simplifier over real programs: every pass
// on its own, and the whole `Simplify` pipeline, must leave what each
// program computes unchanged on the reference evaluator (bit-for-bit; NaN
// matches NaN).
//
// Programs come from the JAX corpus (TESSERA_JAX_CORPUS: module.hlo with its
// recorded inputs) and XLA's own texts (TESSERA_SHARED_CORPUS, on seeded
// random inputs, where the evaluator can run them).  Absent corpora skip.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal_comparison.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "passes/pass_registry.h"
#include "hlo/testing/random_module.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

struct Program {
  std::string name;
  std::string text;
  std::vector<Literal> arguments;
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<Program> JaxPrograms() {
  std::vector<Program> programs;
  const char* root = std::getenv("TESSERA_JAX_CORPUS");
  if (root == nullptr) return programs;
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
    if (ok) programs.push_back(std::move(program));
  }
  return programs;
}

std::vector<Program> XlaPrograms() {
  std::vector<Program> programs;
  const char* root = std::getenv("TESSERA_SHARED_CORPUS");
  if (root == nullptr || !fs::is_directory(root)) return programs;
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
  return programs;
}


// Runs `make()`'s pass over every program; returns how many it checked.
template <typename MakePass>
int CheckPrograms(const std::vector<Program>& programs, const std::string& label,
                  MakePass make) {
  int checked = 0;
  for (const Program& program : programs) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(program.text);
    if (!module.ok()) continue;
    absl::StatusOr<Literal> before = EvaluateModule(**module, program.arguments);
    if (!before.ok()) continue;  // the evaluator cannot run it: nothing to compare
    auto pass = make();
    absl::StatusOr<bool> changed = pass->Run(module->get());
    if (!changed.ok()) {
      ADD_FAILURE() << label << " on " << program.name << ": " << changed.status();
      continue;
    }
    if (absl::Status verified = VerifyHloModule(**module); !verified.ok()) {
      ADD_FAILURE() << label << " on " << program.name << ": " << verified;
      continue;
    }
    absl::StatusOr<Literal> after = EvaluateModule(**module, program.arguments);
    if (!after.ok()) {
      ADD_FAILURE() << label << " on " << program.name << ": " << after.status();
      continue;
    }
    EXPECT_TRUE(LiteralsEqualNanAware(*before, *after)) << label << " changed the results of " << program.name;
    ++checked;
  }
  return checked;
}

class SimplifyDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    programs_ = JaxPrograms();
    std::vector<Program> xla = XlaPrograms();
    for (Program& program : xla) programs_.push_back(std::move(program));
    if (programs_.empty()) GTEST_SKIP() << "no corpus (TESSERA_JAX_CORPUS/TESSERA_SHARED_CORPUS)";
  }
  std::vector<Program> programs_;
};

TEST_F(SimplifyDifferentialTest, EachPassKeepsResults) {
  for (const std::string& name : RegisteredPassNames()) {
    const int checked = CheckPrograms(programs_, name, [&] { return *MakePassByName(name); });
    std::cout << name << ": " << checked << " programs checked\n";
  }
}

TEST_F(SimplifyDifferentialTest, SimplifyPipelineKeepsResults) {
  PassPipelineOptions options;
  options.verify = true;
  const int checked = CheckPrograms(programs_, "simplify", [&] {
    return *MakePipelineByName("simplify", options);
  });
  std::cout << "simplify: " << checked << " programs checked\n";
  EXPECT_GT(checked, 0);
}

// Random modules: each pass alone and the whole pipeline, on several seeds
// and both element types.
TEST(SimplifyRandomModulesTest, PassesKeepResults) {
  std::vector<Program> programs;
  std::mt19937_64 rng(11);
  for (PrimitiveType type : {F32, S32}) {
    for (uint64_t seed = 0; seed < 60; ++seed) {
      RandomModuleOptions options;
      options.seed = seed;
      options.element_type = type;
      options.random_layouts = seed % 2 == 1;
      std::unique_ptr<HloModule> module = MakeRandomModule(options);
      absl::Status verified = VerifyHloModule(*module);
      ASSERT_TRUE(verified.ok()) << "generator made an invalid module (seed " << seed
                                 << "): " << verified << "\n" << PrintHloModule(*module);
      Program program{module->name(), PrintHloModule(*module), {}};
      for (const HloInstruction* parameter : module->entry_computation()->parameter_instructions()) {
        program.arguments.push_back(*MakeRandomLiteral(parameter->shape(), rng));
      }
      programs.push_back(std::move(program));
    }
  }
  for (const std::string& name : RegisteredPassNames()) {
    EXPECT_EQ(CheckPrograms(programs, name, [&] { return *MakePassByName(name); }),
              static_cast<int>(programs.size()));
  }
  PassPipelineOptions options;
  options.verify = true;
  EXPECT_EQ(CheckPrograms(programs, "simplify",
                          [&] { return *MakePipelineByName("simplify", options); }),
            static_cast<int>(programs.size()));
}

}  // namespace
}  // namespace tessera
