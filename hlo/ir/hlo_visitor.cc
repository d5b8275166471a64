#include "hlo/ir/hlo_visitor.h"

namespace tessera {

absl::Status VisitPostOrder(const HloComputation& computation,
                            absl::FunctionRef<absl::Status(HloInstruction*)> fn) {
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    absl::Status status = fn(instruction);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status HloVisitor::Run(const HloComputation& computation) {
  return VisitPostOrder(computation, [this](HloInstruction* h) { return Visit(h); });
}

absl::Status HloVisitor::Visit(HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kParameter: return HandleParameter(h);
    case HloOpcode::kConstant: return HandleConstant(h);
    case HloOpcode::kTuple: return HandleTuple(h);
    case HloOpcode::kGetTupleElement: return HandleGetTupleElement(h);
    case HloOpcode::kFusion: return HandleFusion(h);
    case HloOpcode::kCall: return HandleCall(h);
    case HloOpcode::kWhile: return HandleWhile(h);
    case HloOpcode::kConditional: return HandleConditional(h);
    default: break;
  }
  switch (HloOpcodeCategory(h->opcode())) {
    case OpCategory::kElementwise: return HandleElementwise(h);
    case OpCategory::kInjective: return HandleInjective(h);
    case OpCategory::kReduction: return HandleReduction(h);
    case OpCategory::kComplex: return HandleComplex(h);
    default: return HandleOther(h);
  }
}

}  // namespace tessera
