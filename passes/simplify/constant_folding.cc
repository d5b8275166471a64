#include "passes/simplify/constant_folding.h"

#include <vector>

#include "hlo/analysis/side_effects.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsExpanding(HloOpcode opcode) {
  return opcode == HloOpcode::kIota || opcode == HloOpcode::kPad;
}

int64_t ArrayBytes(const Shape& shape) {
  return shape.ElementCount() * ByteWidth(shape.element_type());
}

// A constant, or a broadcast of one (kept unfolded, but its value is known).
bool IsConstantValue(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kConstant ||
         (instruction.opcode() == HloOpcode::kBroadcast &&
          instruction.operand(0)->opcode() == HloOpcode::kConstant);
}

bool Foldable(const HloInstruction& instruction, const ConstantFoldingOptions& options,
              SideEffectAnalysis& effects) {
  switch (instruction.opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kParameter:
    case HloOpcode::kWhile:
    case HloOpcode::kAfterAll:
    // As in XLA: a broadcast of a constant is cheaper to recompute (and
    // free once fused) than to store; folding would only grow the module.
    case HloOpcode::kBroadcast:
      return false;
    default:
      break;
  }
  // Tuple results (variadic reduce, sort, ...) stay: their elements get
  // folded once the tuple is taken apart.
  if (!instruction.shape().IsArray() || !instruction.control_predecessors().empty() ||
      !instruction.control_successors().empty() || effects.HasSideEffect(instruction)) {
    return false;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!IsConstantValue(*operand)) return false;
  }
  const int64_t bytes = ArrayBytes(instruction.shape());
  if (bytes > options.max_result_bytes) return false;
  if (IsExpanding(instruction.opcode()) &&
      instruction.shape().ElementCount() > options.max_expanding_elements) {
    return false;
  }
  return true;
}

// Evaluates `instruction` on its constant operands, in a scratch
// computation that holds a copy of it fed by parameters.
absl::StatusOr<Literal> Evaluate(const HloInstruction& instruction) {
  HloComputation scratch("constant_folding");
  std::vector<HloInstruction*> parameters;
  std::vector<Literal> arguments;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    const HloInstruction* operand = instruction.operand(i);
    parameters.push_back(
        scratch.AddInstruction(HloInstruction::CreateParameter(i, operand->shape(), "p")));
    if (operand->opcode() == HloOpcode::kConstant) {
      arguments.push_back(operand->literal());
    } else {  // a broadcast of a constant
      TS_ASSIGN_OR_RETURN(Literal value, Evaluate(*operand));
      arguments.push_back(std::move(value));
    }
  }
  scratch.set_root_instruction(
      scratch.AddInstruction(instruction.CloneWithNewOperands(instruction.shape(), parameters)));
  return EvaluateComputation(scratch, arguments);
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!Foldable(*instruction, options_, effects)) continue;
      absl::StatusOr<Literal> value = Evaluate(*instruction);
      // An op the evaluator cannot run is simply left alone.
      if (!value.ok()) continue;
      if (instruction->shape().has_layout()) value->set_layout(instruction->shape().layout());
      HloInstruction* constant =
          computation->AddInstruction(HloInstruction::CreateConstant(*std::move(value)));
      TS_RETURN_IF_ERROR(computation->ReplaceInstruction(instruction, constant));
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
