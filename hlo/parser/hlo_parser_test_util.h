// Helpers shared by the parser's tests: parse-or-fail and look-ups by name.
#ifndef TESSERA_HLO_PARSER_HLO_PARSER_TEST_UTIL_H_
#define TESSERA_HLO_PARSER_HLO_PARSER_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace parser_test {

// Parses `text`; on failure records the error (with the text) and returns null.
inline std::unique_ptr<HloModule> ParseOk(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    ADD_FAILURE() << "parse failed: " << module.status().message() << "\n--- text ---\n"
                  << std::string(text);
    return nullptr;
  }
  return std::move(*module);
}

// The instruction named `name` in any computation, or null; a name used in
// several computations is a test error.
inline HloInstruction* FindInstruction(const HloModule& module, absl::string_view name) {
  HloInstruction* found = nullptr;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() != name) continue;
      if (found != nullptr) {
        ADD_FAILURE() << "instruction name " << std::string(name) << " is ambiguous";
      }
      found = instruction;
    }
  }
  return found;
}

// A status's message as a std::string (gMock prints absl::string_view
// character by character).
inline std::string Message(const absl::Status& status) { return std::string(status.message()); }

// The error of parsing `text`, which must fail.
inline absl::Status ParseError(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (module.ok()) {
    ADD_FAILURE() << "expected a parse error for:\n" << std::string(text);
    return absl::OkStatus();
  }
  return module.status();
}

}  // namespace parser_test
}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_PARSER_TEST_UTIL_H_
