// Test helpers for passes: parse a module, run a pass, and check on the
// reference evaluator that the results did not change.  Test-only.
//
//   auto module = ParseOrDie(R"(HloModule m ...)");
//   EXPECT_THAT(RunPassKeepingResults(HloCse(), *module), IsOkAndChanged());
#ifndef TESSERA_PASSES_PASS_TEST_UTIL_H_
#define TESSERA_PASSES_PASS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_module.h"
#include "passes/hlo_pass.h"

namespace tessera {
namespace pass_test {

// Parses `text`; fails the test (and returns null) when it does not parse.
std::unique_ptr<HloModule> Parse(absl::string_view text);

// Names of a computation's instructions, in post-order.
std::vector<std::string> InstructionNames(const HloComputation& computation);

// The instruction named `name` in any computation of `module`; fails the
// test (and returns null) when there is none.
const HloInstruction* FindInstruction(const HloModule& module, absl::string_view name);

// The opcodes of the entry computation in post-order, as text
// ("parameter,negate,add"): a compact expected form for rewrite tests.
std::string EntryOpcodes(const HloModule& module);

// Runs `pass` on `module` and checks, on `trials` sets of seeded random
// arguments, that the entry computation computes bit-identical results
// before and after (NaNs match NaNs), and that the module still verifies.
// Returns whether the pass changed the module; a failed check is a failed
// expectation in the calling test.
absl::StatusOr<bool> RunPassKeepingResults(HloPass& pass, HloModule& module, int trials = 3);

}  // namespace pass_test
}  // namespace tessera

#endif  // TESSERA_PASSES_PASS_TEST_UTIL_H_
