#include "hlo/ir/hlo_clone.h"

#include <utility>

namespace tessera {

std::unique_ptr<HloComputation> CloneComputation(
    const HloComputation& source,
    const absl::flat_hash_map<const HloComputation*, HloComputation*>& callees) {
  auto clone = std::make_unique<HloComputation>(source.name());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (HloInstruction* instruction : source.MakeInstructionPostOrder()) {
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (HloInstruction* operand : instruction->operands()) operands.push_back(map.at(operand));
    std::unique_ptr<HloInstruction> copy =
        instruction->CloneWithNewOperands(instruction->shape(), operands);
    copy->SetName(instruction->name());
    for (int64_t i = 0; i < static_cast<int64_t>(copy->called_computations().size()); ++i) {
      auto it = callees.find(copy->called_computations()[i]);
      if (it != callees.end()) copy->ReplaceCalledComputation(i, it->second);
    }
    map[instruction] = clone->AddInstruction(std::move(copy));
  }
  for (HloInstruction* instruction : source.instructions()) {
    for (HloInstruction* successor : instruction->control_successors()) {
      map.at(instruction)->AddControlDependencyTo(map.at(successor)).IgnoreError();
    }
  }
  if (source.root_instruction() != nullptr) {
    clone->set_root_instruction(map.at(source.root_instruction()));
  }
  clone->SetExecutionThread(source.execution_thread());
  clone->SetIsFusionComputation(source.IsFusionComputation());
  return clone;
}

std::vector<std::unique_ptr<HloComputation>> CloneModuleComputations(const HloModule& source,
                                                                     HloComputation** entry) {
  std::vector<std::unique_ptr<HloComputation>> copies;
  absl::flat_hash_map<const HloComputation*, HloComputation*> map;
  for (const HloComputation* computation : source.MakeComputationPostOrder()) {
    copies.push_back(CloneComputation(*computation, map));
    map[computation] = copies.back().get();
  }
  if (entry != nullptr) {
    *entry = source.entry_computation() == nullptr ? nullptr : map.at(source.entry_computation());
  }
  return copies;
}

}  // namespace tessera
