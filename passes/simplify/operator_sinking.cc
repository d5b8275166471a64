#include "passes/simplify/operator_sinking.h"

#include <optional>
#include <vector>

#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsScalarBroadcast(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kBroadcast &&
         instruction.operand(0)->shape().rank() == 0;
}

// Whether two data movements do the same thing to inputs of the same shape.
bool SameMovement(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode()) return false;
  const Shape& in_a = a.operand(0)->shape();
  const Shape& in_b = b.operand(0)->shape();
  if (in_a.dimensions() != in_b.dimensions()) return false;
  if (a.shape().dimensions() != b.shape().dimensions()) return false;
  switch (a.opcode()) {
    case HloOpcode::kTranspose:
    case HloOpcode::kBroadcast:
      return a.dimensions() == b.dimensions();
    case HloOpcode::kReshape:
      return true;
    default:
      return false;
  }
}

bool IsMovement(HloOpcode opcode) {
  return opcode == HloOpcode::kTranspose || opcode == HloOpcode::kReshape ||
         opcode == HloOpcode::kBroadcast;
}

// The movement every operand of `op` goes through (scalar broadcasts aside,
// which can be rebuilt in any shape), or null when there is none or sinking
// would not pay.  A scalar broadcast is the movement only when every operand
// is one: the op then runs once on scalars.
const HloInstruction* SharedMovement(const HloInstruction& op) {
  const HloInstruction* movement = nullptr;
  for (const HloInstruction* operand : op.operands()) {
    if (IsMovement(operand->opcode()) && !IsScalarBroadcast(*operand)) {
      movement = operand;
      break;
    }
  }
  if (movement == nullptr && IsScalarBroadcast(*op.operand(0))) movement = op.operand(0);
  if (movement == nullptr) return nullptr;
  for (const HloInstruction* operand : op.operands()) {
    // Mixed ranks (scalar clamp bounds, width-changing bitcast-converts).
    if (operand->shape().rank() != op.shape().rank()) return nullptr;
    if (SameMovement(*movement, *operand)) {
      // A transpose or reshape with other users would stay for them: sinking
      // would then add a movement instead of moving one.
      if (operand->opcode() != HloOpcode::kBroadcast && operand->user_count() != 1) {
        return nullptr;
      }
      continue;
    }
    if (!IsScalarBroadcast(*operand)) return nullptr;
  }
  return movement;
}

absl::StatusOr<bool> Sink(HloComputation* computation, HloInstruction* op,
                          const HloInstruction& movement) {
  const Shape& inner_shape = movement.operand(0)->shape();
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : op->operands()) {
    if (operand == &movement || SameMovement(movement, *operand)) {
      operands.push_back(operand->operand(0));
      continue;
    }
    // A scalar broadcast, rebuilt in the inner shape.
    Shape shape = inner_shape;
    shape.set_element_type(operand->shape().element_type());
    operands.push_back(computation->AddInstruction(
        HloInstruction::CreateBroadcast(shape, operand->operand(0), {})));
  }
  Shape inner_op_shape = inner_shape;
  inner_op_shape.set_element_type(op->shape().element_type());
  HloInstruction* inner = computation->AddInstruction(
      op->CloneWithNewOperands(inner_op_shape, operands));
  HloInstruction* outer = computation->AddInstruction(
      movement.CloneWithNewOperands(op->shape(), {inner}));
  TS_RETURN_IF_ERROR(computation->ReplaceInstruction(op, outer));
  return true;
}

}  // namespace

absl::StatusOr<bool> OperatorSinking::Run(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    // Post-order: a movement sunk past one op arrives at the next op's
    // operands in the same sweep, so chains sink all the way.
    for (HloInstruction* op : computation->MakeInstructionPostOrder()) {
      if (!op->IsElementwise() || op->operand_count() == 0 || !op->shape().IsArray() ||
          !op->control_predecessors().empty() || !op->control_successors().empty() ||
          effects.HasSideEffect(*op)) {
        continue;
      }
      const HloInstruction* movement = SharedMovement(*op);
      if (movement == nullptr) continue;
      TS_ASSIGN_OR_RETURN(bool sunk, Sink(computation, op, *movement));
      changed |= sunk;
    }
  }
  return changed;
}

}  // namespace tessera
