#include "passes/simplify/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

namespace {

// A call whose callee returns one of its parameters inlines to one of the
// call's own operands; moving the call's control edges onto that operand
// could close a cycle, so such calls with control edges stay.
bool Inlinable(const HloInstruction& call) {
  const bool has_control_edges =
      !call.control_predecessors().empty() || !call.control_successors().empty();
  return !has_control_edges ||
         call.to_apply()->root_instruction()->opcode() != HloOpcode::kParameter;
}

}  // namespace

absl::StatusOr<HloInstruction*> InlineCall(HloInstruction* call) {
  if (call->opcode() != HloOpcode::kCall || call->called_computations().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("%", call->name(), " is not a call"));
  }
  HloComputation* caller = call->parent();
  const HloComputation& callee = *call->to_apply();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  std::vector<HloInstruction*> sources;  // inlined instructions without operands
  for (HloInstruction* instruction : callee.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      clones[instruction] = call->operand(instruction->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      operands.push_back(clones.at(operand));
    }
    HloInstruction* clone = caller->AddInstruction(
        instruction->CloneWithNewOperands(instruction->shape(), operands));
    for (const HloInstruction* predecessor : instruction->control_predecessors()) {
      TS_RETURN_IF_ERROR(clones.at(predecessor)->AddControlDependencyTo(clone));
    }
    if (instruction->operand_count() == 0) sources.push_back(clone);
    clones[instruction] = clone;
  }
  HloInstruction* result = clones.at(callee.root_instruction());
  for (HloInstruction* predecessor : std::vector<HloInstruction*>(call->control_predecessors())) {
    for (HloInstruction* source : sources) {
      TS_RETURN_IF_ERROR(predecessor->AddControlDependencyTo(source));
    }
  }
  TS_RETURN_IF_ERROR(caller->ReplaceInstruction(call, result));
  return result;
}

absl::StatusOr<bool> CallInliner::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->IsFusionComputation()) continue;
    // Each round inlines one level of nesting: calls inside an inlined body
    // become calls of this computation for the next round.
    while (true) {
      std::vector<HloInstruction*> calls;
      for (HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() == HloOpcode::kCall && Inlinable(*instruction)) {
          calls.push_back(instruction);
        }
      }
      if (calls.empty()) break;
      for (HloInstruction* call : calls) TS_RETURN_IF_ERROR(InlineCall(call).status());
      changed = true;
    }
  }
  if (changed && module->has_schedule()) module->clear_schedule();
  return changed;
}

}  // namespace tessera
