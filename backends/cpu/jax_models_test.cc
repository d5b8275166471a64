// Whole JAX training steps (testdata/make_jax_models.py) on the CPU backend
// against the evaluator: a CNN (convolutions, max pooling and its gradient,
// softmax cross-entropy) and an RNN (embedding gather, a lax.scan whose loop
// state carries a transposed view, its backward pass, argmax), each with no
// evaluator fallback.  The RNN is the module that exposed the loop-state
// layout bug (passes/layout/layout_normalization.h).
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

using testing::DotTolerance;
using testing::ReadAll;
using testing::SameResults;
using testing::Tolerance;

// Weights and data at the scale a training step sees (normal, sd 0.1);
// integer arrays (tokens, targets) as indices below 10.
std::vector<Literal> ModelArguments(const HloModule& module, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> normal(0.0f, 0.1f);
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      if (parameter->shape().element_type() == F32) {
        literal.SetFromDouble(i, normal(random));
      } else {
        literal.SetFromInt64(i, static_cast<int64_t>(random() % 10));
      }
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

class JaxModelsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JaxModelsTest, MatchTheEvaluatorWithNoFallback) {
  const std::string text = ReadAll("backends/cpu/testdata/" + GetParam() + ".hlo");
  ASSERT_FALSE(text.empty()) << "missing testdata " << GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const CpuCompileOptions options;
  std::vector<std::string> fallbacks;
  absl::StatusOr<std::unique_ptr<HloExecutable>> executable =
      CompileForCpuExecutable(*std::move(module), options, &fallbacks);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_TRUE(fallbacks.empty()) << fallbacks.front();
  for (uint64_t seed : {1}) {  // one: the evaluator takes tens of seconds on the RNN
    const std::vector<Literal> arguments = ModelArguments(**reference, seed);
    absl::StatusOr<Literal> expected = EvaluateModule(**reference, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<Literal> actual = (*executable)->RunLiterals(arguments);
    ASSERT_TRUE(actual.ok()) << actual.status();
    std::string why;
    EXPECT_TRUE(SameResults(*expected, *actual, &why, Tolerance(text, options),
                            DotTolerance(text, options)))
        << GetParam() << " seed " << seed << ": " << why;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, JaxModelsTest,
                         ::testing::Values("jax_cnn_train_step", "jax_rnn_train_step"));

}  // namespace
}  // namespace cpu
}  // namespace tessera
