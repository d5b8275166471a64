// Test helpers for the fusion passes: a compact text form of a fused
// computation and a print/parse round trip check.  Test-only.
#ifndef TESSERA_PASSES_FUSION_FUSION_TEST_UTIL_H_
#define TESSERA_PASSES_FUSION_FUSION_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace fusion_test {

// The entry's opcodes in post-order (a depth-first walk from the root,
// operands in order, as the printer writes them), each fusion written as
// "fusion:kLoop{broadcast,add}" (its fused non-parameter opcodes, same
// order): "parameter,parameter,fusion:kLoop{constant,broadcast,add}".
std::string Describe(const HloModule& module);
std::string Describe(const HloComputation& computation);

// The fusion instructions of a computation, in post-order.
std::vector<const HloInstruction*> Fusions(const HloComputation& computation);

// Prints the module, parses the text back, checks that the parsed module
// verifies and prints to the same text; failures are test failures.
void ExpectPrintsAndParses(const HloModule& module);

}  // namespace fusion_test
}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_FUSION_TEST_UTIL_H_
