#include "passes/simplify/zero_sized_elimination.h"

#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

absl::StatusOr<bool> ZeroSizedElimination::Run(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      const Shape& shape = instruction->shape();
      if (!shape.IsArray() || shape.ElementCount() != 0 ||
          instruction->opcode() == HloOpcode::kConstant ||
          instruction->opcode() == HloOpcode::kParameter ||
          !instruction->control_successors().empty() || effects.HasSideEffect(*instruction)) {
        continue;
      }
      TS_ASSIGN_OR_RETURN(Literal empty, Literal::CreateFromShape(shape));
      HloInstruction* constant =
          computation->AddInstruction(HloInstruction::CreateConstant(std::move(empty)));
      TS_RETURN_IF_ERROR(computation->ReplaceInstruction(instruction, constant));
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
