#include "passes/simplify/tuple_simplifier.h"

#include <vector>

#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

// The element `gte` takes out of a tuple instruction, or null.
HloInstruction* ForwardedElement(const HloInstruction& gte) {
  const HloInstruction* tuple = gte.operand(0);
  if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
  HloInstruction* element = tuple->operand(gte.tuple_index());
  // Layouts are part of the value: only forward an identical shape.
  return element->shape() == gte.shape() ? element : nullptr;
}

// The tuple `tuple` rebuilds element by element, or null.
HloInstruction* RebuiltTuple(const HloInstruction& tuple) {
  if (tuple.operand_count() == 0) return nullptr;
  HloInstruction* source = nullptr;
  for (int64_t i = 0; i < tuple.operand_count(); ++i) {
    const HloInstruction* element = tuple.operand(i);
    if (element->opcode() != HloOpcode::kGetTupleElement || element->tuple_index() != i) {
      return nullptr;
    }
    if (source == nullptr) source = element->operand(0);
    if (element->operand(0) != source) return nullptr;
  }
  return source->shape() == tuple.shape() ? source : nullptr;
}

// Replaces every use of `old` (root included) by `replacement`.
absl::Status Forward(HloComputation* computation, HloInstruction* old,
                     HloInstruction* replacement) {
  const bool was_root = old->IsRoot();
  TS_RETURN_IF_ERROR(old->ReplaceAllUsesWith(replacement));
  if (was_root) computation->set_root_instruction(replacement);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (instruction->opcode() == HloOpcode::kGetTupleElement) {
        replacement = ForwardedElement(*instruction);
      } else if (instruction->opcode() == HloOpcode::kTuple) {
        replacement = RebuiltTuple(*instruction);
      }
      if (replacement == nullptr) continue;
      TS_RETURN_IF_ERROR(Forward(computation, instruction, replacement));
      changed = true;
    }
  }
  // The bypassed tuples and elements are left for DCE.
  return changed;
}

}  // namespace tessera
