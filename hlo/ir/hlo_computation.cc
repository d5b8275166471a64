#include "hlo/ir/hlo_computation.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

std::string ProgramShape::ParameterLabel(int64_t i, absl::string_view noun) const {
  if (i >= 0 && i < static_cast<int64_t>(parameter_names.size()) && !parameter_names[i].empty()) {
    return absl::StrCat(noun, " ", i, " (", parameter_names[i], ")");
  }
  return absl::StrCat(noun, " ", i);
}

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (const Shape& p : parameters) params.push_back(p.ToString(/*print_layout=*/true));
  return absl::StrCat("(", absl::StrJoin(params, ", "), ")->", result.ToString(true));
}

HloComputation::~HloComputation() {
  // Break user links first so destruction order does not matter.
  for (auto& instruction : instructions_) instruction->DetachFromOperands();
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  // Counted before the module registers it, which may rename it.
  CountName(raw->name(), 1);
  if (raw->opcode() == HloOpcode::kParameter) {
    const int64_t number = raw->parameter_number();
    if (number >= 0 && number < (1 << 20)) {
      if (number >= num_parameters()) parameters_.resize(number + 1, nullptr);
      if (parameters_[number] == nullptr) parameters_[number] = raw;
    }
  }
  if (parent_ != nullptr) parent_->RegisterInstruction(raw);
  positions_[raw] = instructions_.insert(instructions_.end(), std::move(instruction));
  return raw;
}

absl::Status HloComputation::ReorderInstructions(absl::Span<HloInstruction* const> order) {
  if (static_cast<int64_t>(order.size()) != instruction_count()) {
    return absl::InvalidArgumentError(absl::StrCat("reordering ", name_, ": ", order.size(),
                                                   " instructions for ", instruction_count()));
  }
  absl::flat_hash_set<const HloInstruction*> seen;
  for (const HloInstruction* instruction : order) {
    if (!Contains(instruction) || !seen.insert(instruction).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reordering ", name_, ": the order is not a permutation of its instructions"));
    }
  }
  // Moving each node to the end in turn leaves them in `order`; list nodes
  // (and so positions_) stay valid.
  for (const HloInstruction* instruction : order) {
    instructions_.splice(instructions_.end(), instructions_, positions_.at(instruction));
  }
  return absl::OkStatus();
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> result;
  result.reserve(instructions_.size());
  for (const auto& instruction : instructions_) result.push_back(instruction.get());
  return result;
}

bool HloComputation::HasOtherInstructionNamed(absl::string_view name,
                                              const HloInstruction* except) const {
  auto it = name_counts_.find(name);
  if (it == name_counts_.end()) return false;
  const bool except_counted =
      except != nullptr && except->parent() == this && except->name() == name;
  return it->second > (except_counted ? 1 : 0);
}

void HloComputation::CountName(const std::string& name, int64_t delta) {
  auto it = name_counts_.try_emplace(name, 0).first;
  it->second += delta;
  if (it->second == 0) name_counts_.erase(it);
}

void HloComputation::NoteRename(const std::string& old_name, const std::string& new_name) {
  CountName(old_name, -1);
  CountName(new_name, 1);
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  auto it = positions_.find(instruction);
  if (it == positions_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("%", instruction->name(),
                                                   " is not in computation ", name_));
  }
  if (instruction->user_count() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove %", instruction->name(), ": it still has ",
                     instruction->user_count(), " user(s)"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove %", instruction->name(), ": it is the root of ", name_));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    for (HloInstruction*& p : parameters_) {
      if (p == instruction) p = nullptr;
    }
  }
  instruction->DetachFromOperands();
  instruction->DropAllControlDeps();
  CountName(instruction->name(), -1);
  if (parent_ != nullptr) {
    for (HloComputation* callee : instruction->called_computations()) {
      if (callee != nullptr) --callee->caller_count_;
    }
  }
  instructions_.erase(it->second);
  positions_.erase(it);
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  absl::flat_hash_set<HloInstruction*> removed;
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (removed.contains(current) || current->user_count() != 0 || current == root_ ||
        (current != instruction &&
         (current->opcode() == HloOpcode::kParameter || current->HasSideEffect() ||
          !current->control_successors().empty()))) {
      continue;
    }
    std::vector<HloInstruction*> operands = current->operands();
    absl::Status status = RemoveInstruction(current);
    if (!status.ok()) return status;
    removed.insert(current);
    for (HloInstruction* operand : operands) worklist.push_back(operand);
  }
  return absl::OkStatus();
}

absl::Status HloComputation::ReplaceInstruction(HloInstruction* old_instruction,
                                                HloInstruction* new_instruction) {
  absl::Status status = old_instruction->ReplaceAllUsesWith(new_instruction);
  if (!status.ok()) return status;
  // Control edges move to the replacement so ordering constraints survive.
  for (HloInstruction* pred : std::vector<HloInstruction*>(
           old_instruction->control_predecessors())) {
    if (pred != new_instruction) (void)pred->AddControlDependencyTo(new_instruction);
  }
  for (HloInstruction* succ : std::vector<HloInstruction*>(
           old_instruction->control_successors())) {
    if (succ != new_instruction) (void)new_instruction->AddControlDependencyTo(succ);
  }
  old_instruction->DropAllControlDeps();
  return RemoveInstructionAndUnusedOperands(old_instruction);
}

absl::Status HloComputation::ReplaceWithNewInstruction(
    HloInstruction* old_instruction, std::unique_ptr<HloInstruction> new_instruction) {
  return ReplaceInstruction(old_instruction, AddInstruction(std::move(new_instruction)));
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const HloInstruction*> visited;
  // Iterative DFS: (instruction, next predecessor position to visit).
  std::vector<std::pair<HloInstruction*, size_t>> stack;
  auto predecessor = [](const HloInstruction* h, size_t i) -> HloInstruction* {
    const size_t n = h->operands().size();
    return i < n ? h->operand(i) : h->control_predecessors()[i - n];
  };
  for (const auto& start : instructions_) {
    if (visited.contains(start.get())) continue;
    visited.insert(start.get());
    stack.push_back({start.get(), 0});
    while (!stack.empty()) {
      auto& [current, next] = stack.back();
      const size_t total = current->operands().size() + current->control_predecessors().size();
      if (next < total) {
        HloInstruction* pred = predecessor(current, next++);
        // Operands from another computation are a verifier error; skip them.
        if (pred->parent() == this && !visited.contains(pred)) {
          visited.insert(pred);
          stack.push_back({pred, 0});
        }
      } else {
        order.push_back(current);
        stack.pop_back();
      }
    }
  }
  return order;
}

ProgramShape HloComputation::ComputeProgramShape() const {
  ProgramShape program_shape;
  for (const HloInstruction* param : parameters_) {
    if (param == nullptr) continue;
    program_shape.parameters.push_back(param->shape());
    program_shape.parameter_names.push_back(param->name());
  }
  if (root_ != nullptr) program_shape.result = root_->shape();
  return program_shape;
}

}  // namespace tessera
