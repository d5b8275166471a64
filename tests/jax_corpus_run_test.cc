// Runs every program of a JAX corpus (written by
// ../shared/corpus/make_jax_corpus.py: module.hlo, in<i>.npy, out<i>.npy and
// an INDEX of `name #inputs #outputs tolerance`) on the reference evaluator
// and compares the results with the ones XLA computed.
//
// The corpus is found through TESSERA_JAX_CORPUS, which `./tessera test`
// sets; without it the test skips.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/evaluator_test_util.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/npy.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

struct Program {
  std::string name;
  int inputs = 0;
  int outputs = 0;
  double tolerance = 0;
};

std::vector<Program> ReadIndex(const fs::path& dir) {
  std::vector<Program> programs;
  std::ifstream in(dir / "INDEX");
  Program p;
  while (in >> p.name >> p.inputs >> p.outputs >> p.tolerance) programs.push_back(p);
  return programs;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Programs whose XLA results are not the exact semantics of their HLO, with
// the tolerance that covers the difference and why.  The evaluator computes
// what the module says; these only widen the comparison.
struct KnownDifference {
  const char* program;
  double tolerance;
  const char* reason;
};
constexpr KnownDifference kKnownDifferences[] = {
    {"dropout_mask", 0x1p-23,
     "XLA's algebraic simplifier rewrites x / 0.7 as x * 1.42857146, which is "
     "not exact: results differ by up to one f32 ulp"},
};

double ToleranceFor(const Program& program) {
  for (const KnownDifference& known : kKnownDifferences) {
    if (program.name == known.program) return known.tolerance;
  }
  return program.tolerance;
}

// The reason a program does not match, or "" when it does.
std::string RunProgram(const fs::path& dir, const Program& program) {
  const fs::path home = dir / program.name;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(ReadAll(home / "module.hlo"));
  if (!module.ok()) return absl::StrCat("parse: ", module.status().message());
  if (absl::Status s = VerifyHloModule(**module); !s.ok()) {
    return absl::StrCat("verify: ", s.message());
  }
  const HloComputation& entry = *(*module)->entry_computation();
  std::vector<Literal> arguments;
  for (int i = 0; i < program.inputs; ++i) {
    const PrimitiveType type = entry.parameter_instruction(i)->shape().element_type();
    absl::StatusOr<Literal> input =
        ReadNpyFileAs((home / absl::StrCat("in", i, ".npy")).string(), type);
    if (!input.ok()) return absl::StrCat("input ", i, ": ", input.status().message());
    arguments.push_back(*std::move(input));
  }
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments);
  if (!result.ok()) return absl::StrCat("evaluate: ", result.status().message());
  std::vector<const Literal*> leaves = result->Leaves();
  if (static_cast<int>(leaves.size()) != program.outputs) {
    return absl::StrCat(leaves.size(), " outputs, XLA has ", program.outputs);
  }
  for (int i = 0; i < program.outputs; ++i) {
    const PrimitiveType type = leaves[i]->shape().element_type();
    absl::StatusOr<Literal> want =
        ReadNpyFileAs((home / absl::StrCat("out", i, ".npy")).string(), type);
    if (!want.ok()) return absl::StrCat("output ", i, ": ", want.status().message());
    // Integers and PRED exactly (floats too at tolerance 0), else within
    // tolerance * (1 + |XLA's|), NaN only against NaN.
    const double tolerance = ToleranceFor(program);
    if (::testing::AssertionResult near =
            evaluator_test::LiteralsNear(*want, *leaves[i], tolerance, tolerance);
        !near) {
      return absl::StrCat("output ", i, ": ", near.message());
    }
  }
  return "";
}

TEST(JaxCorpusRunTest, EvaluatorMatchesXla) {
  const char* root = std::getenv("TESSERA_JAX_CORPUS");
  if (root == nullptr || !fs::is_regular_file(fs::path(root) / "INDEX")) {
    GTEST_SKIP() << "TESSERA_JAX_CORPUS is not set to a corpus";
  }
  const std::vector<Program> programs = ReadIndex(root);
  ASSERT_FALSE(programs.empty());
  int matched = 0;
  for (const Program& program : programs) {
    const std::string failure = RunProgram(root, program);
    EXPECT_EQ(failure, "") << program.name;
    if (failure.empty()) ++matched;
  }
  std::cout << matched << " of " << programs.size()
            << " JAX programs match XLA's results on the evaluator\n";
}

}  // namespace
}  // namespace tessera
