#include "passes/fusion/fusion_test_util.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace fusion_test {

namespace {

// Post order by a depth-first walk from the root (operands in order), then
// whatever the root does not reach: the printer's order, stable across a
// print and parse.
std::vector<const HloInstruction*> RootPostOrder(const HloComputation& computation) {
  std::vector<const HloInstruction*> order;
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<std::pair<const HloInstruction*, size_t>> stack;
  auto visit = [&](const HloInstruction* start) {
    if (start == nullptr || !visited.insert(start).second) return;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [current, next] = stack.back();
      if (next < current->operands().size()) {
        const HloInstruction* operand = current->operand(next++);
        if (visited.insert(operand).second) stack.push_back({operand, 0});
      } else {
        order.push_back(current);
        stack.pop_back();
      }
    }
  };
  visit(computation.root_instruction());
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) visit(instruction);
  return order;
}

}  // namespace

std::string Describe(const HloComputation& computation) {
  std::vector<std::string> parts;
  // What the root does not reach has no canonical order: sorted, after "|".
  std::vector<std::string> dead;
  absl::flat_hash_set<const HloInstruction*> reachable;
  std::vector<const HloInstruction*> stack = {computation.root_instruction()};
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    if (current == nullptr || !reachable.insert(current).second) continue;
    for (const HloInstruction* operand : current->operands()) stack.push_back(operand);
  }
  for (const HloInstruction* instruction : RootPostOrder(computation)) {
    std::vector<std::string>& out = reachable.contains(instruction) ? parts : dead;
    if (instruction->opcode() != HloOpcode::kFusion) {
      out.push_back(std::string(HloOpcodeString(instruction->opcode())));
      continue;
    }
    std::vector<std::string> fused;
    for (const HloInstruction* inner : RootPostOrder(*instruction->fused_computation())) {
      if (inner->opcode() != HloOpcode::kParameter) {
        fused.push_back(std::string(HloOpcodeString(inner->opcode())));
      }
    }
    out.push_back(absl::StrCat("fusion:", FusionKindString(instruction->fusion_kind()), "{",
                               absl::StrJoin(fused, ","), "}"));
  }
  std::sort(dead.begin(), dead.end());
  std::string result = absl::StrJoin(parts, ",");
  if (!dead.empty()) absl::StrAppend(&result, "|", absl::StrJoin(dead, ","));
  return result;
}

std::string Describe(const HloModule& module) { return Describe(*module.entry_computation()); }

std::vector<const HloInstruction*> Fusions(const HloComputation& computation) {
  std::vector<const HloInstruction*> result;
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kFusion) result.push_back(instruction);
  }
  return result;
}

void ExpectPrintsAndParses(const HloModule& module) {
  const std::string text = PrintHloModule(module);
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  absl::Status verified = VerifyHloModule(**parsed);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << text;
  EXPECT_EQ(Describe(**parsed), Describe(module)) << text;
  EXPECT_EQ((*parsed)->computation_count(), module.computation_count()) << text;
  // The printer orders callees by their callers' instruction list, which
  // parsing rewrites in post order; from the first reparse on, the text is
  // a fixed point.
  const std::string again = PrintHloModule(**parsed);
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(again);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << again;
  EXPECT_EQ(PrintHloModule(**reparsed), again);
}

}  // namespace fusion_test
}  // namespace tessera
