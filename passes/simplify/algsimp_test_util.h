// Shared helpers of the AlgebraicSimplifier tests: run the pass with the
// evaluator checking that results stay bit-identical, and look at the
// result.  Test-only.
#ifndef TESSERA_PASSES_SIMPLIFY_ALGSIMP_TEST_UTIL_H_
#define TESSERA_PASSES_SIMPLIFY_ALGSIMP_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_module.h"
#include "passes/pass_test_util.h"
#include "passes/simplify/algebraic_simplifier.h"

namespace tessera {
namespace algsimp_test {

using pass_test::EntryOpcodes;
using pass_test::Parse;

// A module whose entry computation has `body`, after `computations` (e.g.
// reducers).
inline std::string Module(absl::string_view body, absl::string_view computations = "") {
  return absl::StrCat("HloModule m\n", computations, "\nENTRY e {\n", body, "\n}\n");
}

// Runs algsimp on `module`, checking on the evaluator that the entry
// computes the same results before and after; returns whether it changed.
inline bool RunAlgsimp(HloModule& module, AlgebraicSimplifierOptions options = {}) {
  AlgebraicSimplifier pass(options);
  absl::StatusOr<bool> changed = pass_test::RunPassKeepingResults(pass, module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return changed.ok() && *changed;
}

// The entry opcodes in post-order after algsimp, or "unchanged".
inline std::string After(const std::string& text, AlgebraicSimplifierOptions options = {}) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return "parse error";
  if (!RunAlgsimp(*module, options)) return "unchanged";
  return EntryOpcodes(*module);
}

inline const HloInstruction* Root(const HloModule& module) {
  return module.entry_computation()->root_instruction();
}

inline AlgebraicSimplifierOptions FastMath() {
  AlgebraicSimplifierOptions options;
  options.enable_fast_math = true;
  return options;
}

// Reducers: a binary op over two scalars of one type.
inline std::string Reducer(absl::string_view name, absl::string_view op, absl::string_view type) {
  return absl::StrCat(name, " {\n  lhs = ", type, "[] parameter(0)\n  rhs = ", type,
                      "[] parameter(1)\n  ROOT out = ", type, "[] ", op, "(lhs, rhs)\n}\n");
}

}  // namespace algsimp_test
}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_ALGSIMP_TEST_UTIL_H_
