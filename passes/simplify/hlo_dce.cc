#include "passes/simplify/hlo_dce.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"
#include "passes/simplify/while_dead_elements.h"

namespace tessera {
namespace {

bool IsDead(const HloInstruction& instruction, SideEffectAnalysis& effects) {
  return instruction.user_count() == 0 && !instruction.IsRoot() &&
         instruction.opcode() != HloOpcode::kParameter &&
         instruction.control_successors().empty() && !effects.HasSideEffect(instruction);
}

absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* computation,
                                            SideEffectAnalysis& effects) {
  bool changed = false;
  // Users come before their operands in reverse post-order, so one sweep
  // removes whole dead chains.
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  std::reverse(order.begin(), order.end());
  for (HloInstruction* instruction : order) {
    if (!IsDead(*instruction, effects)) continue;
    TS_RETURN_IF_ERROR(computation->RemoveInstruction(instruction));
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> RemoveDeadComputations(HloModule* module) {
  absl::flat_hash_set<const HloComputation*> live;
  std::vector<const HloComputation*> worklist = {module->entry_computation()};
  while (!worklist.empty()) {
    const HloComputation* computation = worklist.back();
    worklist.pop_back();
    if (!live.insert(computation).second) continue;
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        worklist.push_back(callee);
      }
    }
  }
  std::vector<HloComputation*> order = module->MakeComputationPostOrder();
  std::reverse(order.begin(), order.end());
  std::vector<HloComputation*> dead;
  for (HloComputation* computation : order) {
    if (!live.contains(computation)) dead.push_back(computation);
  }
  if (dead.empty()) return false;
  TS_RETURN_IF_ERROR(module->RemoveComputations(dead));
  return true;
}

}  // namespace

absl::StatusOr<bool> HloDce::Run(HloModule* module) {
  if (module->entry_computation() == nullptr) return false;
  TS_ASSIGN_OR_RETURN(bool loops_shrunk, RemoveDeadWhileElements(module));
  if (loops_shrunk && module->has_schedule()) module->clear_schedule();
  SideEffectAnalysis effects;
  bool changed = loops_shrunk;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    TS_ASSIGN_OR_RETURN(bool removed, RemoveDeadInstructions(computation, effects));
    changed |= removed;
  }
  if (remove_dead_computations_) {
    TS_ASSIGN_OR_RETURN(bool removed, RemoveDeadComputations(module));
    changed |= removed;
  }
  if (changed && module->has_schedule()) {
    // Keep the schedule valid: drop what was removed, keep the order.
    HloSchedule& schedule = module->mutable_schedule();
    for (HloComputation* computation : module->computations()) {
      if (!schedule.HasSequence(computation)) continue;
      std::vector<HloInstruction*> sequence = schedule.sequence(computation);
      std::erase_if(sequence, [&](HloInstruction* i) { return !computation->Contains(i); });
      schedule.SetSequence(computation, std::move(sequence));
    }
  }
  return changed;
}

}  // namespace tessera
