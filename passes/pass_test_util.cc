#include "passes/pass_test_util.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/random_literal.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace pass_test {
namespace {

// Bitwise equality of every leaf, except that a NaN equals any NaN (the
// payload of a NaN made by arithmetic is the host's, not the program's).
bool SameResults(const Literal& a, const Literal& b, std::string* why) {
  std::vector<const Literal*> left = a.Leaves(), right = b.Leaves();
  if (left.size() != right.size()) {
    *why = absl::StrCat(left.size(), " vs ", right.size(), " results");
    return false;
  }
  for (size_t leaf = 0; leaf < left.size(); ++leaf) {
    const Literal& x = *left[leaf];
    const Literal& y = *right[leaf];
    if (x == y) continue;
    if (!ShapesCompatible(x.shape(), y.shape())) {
      *why = absl::StrCat("leaf ", leaf, ": shape ", x.shape().ToString(), " vs ",
                          y.shape().ToString());
      return false;
    }
    const PrimitiveType type = x.shape().element_type();
    for (int64_t i = 0; i < x.element_count(); ++i) {
      if (IsFloatingPointType(type) || IsComplexType(type)) {
        const std::complex<double> u = x.GetAsComplex(i), v = y.GetAsComplex(i);
        const bool both_nan = (std::isnan(u.real()) || std::isnan(u.imag())) &&
                              (std::isnan(v.real()) || std::isnan(v.imag()));
        if (both_nan) continue;
        if (u == v && std::signbit(u.real()) == std::signbit(v.real())) continue;
      } else if (x.GetAsInt64(i) == y.GetAsInt64(i)) {
        continue;
      }
      *why = absl::StrCat("leaf ", leaf, " element ", i, ": before ", x.GetAsDouble(i),
                          ", after ", y.GetAsDouble(i));
      return false;
    }
  }
  return true;
}

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
    EXPECT_TRUE(SameResults(before[trial], *after, &why))
        << "pass " << pass.name() << " changed the results, trial " << trial << ": " << why;
  }
  return changed;
}

}  // namespace pass_test
}  // namespace tessera
