#include "passes/pass_test_util.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal_comparison.h"
#include "hlo/ir/random_literal.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace pass_test {
namespace {


}  // namespace

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

std::vector<std::string> InstructionNames(const HloComputation& computation) {
  std::vector<std::string> names;
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    names.push_back(instruction->name());
  }
  return names;
}

const HloInstruction* FindInstruction(const HloModule& module, absl::string_view name) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->name() == name) return instruction;
    }
  }
  ADD_FAILURE() << "no instruction named " << name;
  return nullptr;
}

std::string EntryOpcodes(const HloModule& module) {
  std::vector<std::string> opcodes;
  for (const HloInstruction* instruction :
       module.entry_computation()->MakeInstructionPostOrder()) {
    opcodes.push_back(std::string(HloOpcodeString(instruction->opcode())));
  }
  return absl::StrJoin(opcodes, ",");
}

absl::StatusOr<bool> RunPassKeepingResults(HloPass& pass, HloModule& module, int trials) {
  std::mt19937_64 rng(42);
  std::vector<std::vector<Literal>> argument_sets;
  std::vector<Literal> before;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<Literal> arguments;
    for (const HloInstruction* parameter :
         module.entry_computation()->parameter_instructions()) {
      TS_ASSIGN_OR_RETURN(Literal argument, MakeRandomLiteral(parameter->shape(), rng));
      arguments.push_back(std::move(argument));
    }
    TS_ASSIGN_OR_RETURN(Literal result, EvaluateModule(module, arguments));
    before.push_back(std::move(result));
    argument_sets.push_back(std::move(arguments));
  }
  TS_ASSIGN_OR_RETURN(bool changed, pass.Run(&module));
  if (absl::Status status = VerifyHloModule(module); !status.ok()) {
    ADD_FAILURE() << "pass " << pass.name() << " left an invalid module: " << status;
    return changed;
  }
  for (int trial = 0; trial < trials; ++trial) {
    absl::StatusOr<Literal> after = EvaluateModule(module, argument_sets[trial]);
    if (!after.ok()) {
      ADD_FAILURE() << "after " << pass.name() << ": " << after.status();
      continue;
    }
    std::string why;
    EXPECT_TRUE(LiteralsEqualNanAware(before[trial], *after, &why))
        << "pass " << pass.name() << " changed the results, trial " << trial << ": " << why;
  }
  return changed;
}

}  // namespace pass_test
}  // namespace tessera
