// Test helpers for the evaluator: parse HLO text and evaluate it, build
// literals from text, and compare literals (bit-exactly or within a
// tolerance).  Test-only.
//
//   EXPECT_THAT_EVAL(EvaluateRoot("s32[3] divide(p0, p1)",
//                                 {L("s32[3]", "{7, -7, 1}"), L("s32[3]", "{0, 2, 0}")}),
//                    L("s32[3]", "{-1, -3, -1}"));
#ifndef TESSERA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_
#define TESSERA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace evaluator_test {

// Parses a whole module and evaluates its entry computation on `args`.
absl::StatusOr<Literal> ParseAndEvaluate(absl::string_view hlo_text,
                                         absl::Span<const Literal> args = {});

// Evaluates a one-instruction module: the entry takes `args` as parameters
// p0, p1, ... (shapes, layouts included, from the literals) and its root is
// `root`, written in terms of them, e.g. "f32[2] add(p0, p1)".
// `computations` (reducers, comparators, ...) go before the entry.
absl::StatusOr<Literal> EvaluateRoot(absl::string_view root, std::vector<Literal> args = {},
                                     absl::string_view computations = "");

// A literal of `shape` (HLO text, e.g. "f32[2,2]" or "f32[2,3]{0,1}") with
// the value `value` (HLO constant text).  Fails the test (and returns an
// empty tuple) when either does not parse.
Literal L(absl::string_view shape, absl::string_view value);

// Shapes (layouts ignored) and element bits equal, so -0 differs from +0,
// except that any NaN equals any NaN (NaNs made by arithmetic carry the
// host's default payload and sign).
::testing::AssertionResult LiteralsEqual(const Literal& expected, const Literal& actual);

// Shapes equal, and every element within `abs_tol + rel_tol * |expected|`
// (NaN matches NaN, infinities must match exactly).  Integers and PRED
// compare exactly.
::testing::AssertionResult LiteralsNear(const Literal& expected, const Literal& actual,
                                        double rel_tol, double abs_tol);

// The evaluation succeeded and its value equals `expected` bit-exactly.
::testing::AssertionResult EvaluatesTo(const absl::StatusOr<Literal>& result,
                                       const Literal& expected);
// The evaluation succeeded and its value is near `expected`.
::testing::AssertionResult EvaluatesNear(const absl::StatusOr<Literal>& result,
                                         const Literal& expected, double rel_tol = 1e-6,
                                         double abs_tol = 1e-6);

}  // namespace evaluator_test
}  // namespace tessera

#define EXPECT_EVAL(result, expected) \
  EXPECT_TRUE(::tessera::evaluator_test::EvaluatesTo((result), (expected)))
#define EXPECT_EVAL_NEAR(result, expected, ...) \
  EXPECT_TRUE(::tessera::evaluator_test::EvaluatesNear((result), (expected), ##__VA_ARGS__))

#endif  // TESSERA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_
