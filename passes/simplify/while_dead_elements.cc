#include "passes/simplify/while_dead_elements.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

// How many instructions of the module call each computation.
absl::flat_hash_map<const HloComputation*, int> CallerCounts(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int> counts;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) ++counts[callee];
    }
  }
  return counts;
}

bool HasControlEdges(const HloComputation& computation) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (!instruction->control_predecessors().empty() ||
        !instruction->control_successors().empty()) {
      return true;
    }
  }
  return false;
}

// The tuple indices a computation's parameter 0 is read at, or nullopt when
// it is read other than through get-tuple-element.
std::optional<absl::flat_hash_set<int64_t>> ElementsRead(const HloComputation& computation) {
  absl::flat_hash_set<int64_t> read;
  for (const HloInstruction* user : computation.parameter_instruction(0)->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return std::nullopt;
    read.insert(user->tuple_index());
  }
  if (computation.root_instruction() == computation.parameter_instruction(0)) return std::nullopt;
  return read;
}

// Whether the body's element `index` flows anywhere but into the body
// root's own operand `index` (another element, or an effect).
bool FeedsOthers(const HloComputation& body, int64_t index, SideEffectAnalysis& effects) {
  const HloInstruction* root = body.root_instruction();
  std::vector<const HloInstruction*> worklist;
  absl::flat_hash_set<const HloInstruction*> seen;
  for (const HloInstruction* user : body.parameter_instruction(0)->users()) {
    if (user->tuple_index() == index) worklist.push_back(user);
  }
  while (!worklist.empty()) {
    const HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (!seen.insert(current).second) continue;
    if (effects.HasSideEffect(*current)) return true;
    for (const HloInstruction* user : current->users()) {
      if (user == root) {
        for (int64_t j : root->OperandIndices(current)) {
          if (j != index) return true;
        }
        continue;
      }
      worklist.push_back(user);
    }
  }
  return false;
}

// Copies what `roots` need of `source` into `target`, reading the old state
// element i as element new_index[i] of `target`'s parameter.
absl::StatusOr<std::vector<HloInstruction*>> CloneNeeded(
    const HloComputation& source, absl::Span<HloInstruction* const> roots,
    HloComputation* target, HloInstruction* new_parameter,
    const std::vector<int64_t>& new_index) {
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  absl::flat_hash_set<const HloInstruction*> needed;
  std::vector<const HloInstruction*> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    const HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (!needed.insert(current).second) continue;
    const bool reads_state = current->opcode() == HloOpcode::kGetTupleElement &&
                             current->operand(0)->opcode() == HloOpcode::kParameter;
    if (reads_state) continue;  // becomes a read of the new state
    for (const HloInstruction* operand : current->operands()) worklist.push_back(operand);
  }
  for (const HloInstruction* instruction : source.MakeInstructionPostOrder()) {
    if (!needed.contains(instruction)) continue;
    if (instruction->opcode() == HloOpcode::kParameter) {
      return absl::InternalError("while state read directly where only elements were expected");
    }
    if (instruction->opcode() == HloOpcode::kGetTupleElement &&
        instruction->operand(0)->opcode() == HloOpcode::kParameter) {
      const int64_t index = new_index[instruction->tuple_index()];
      if (index < 0) return absl::InternalError("a dead while element is still read");
      clones[instruction] = target->AddInstruction(
          HloInstruction::CreateGetTupleElement(instruction->shape(), new_parameter, index));
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      operands.push_back(clones.at(operand));
    }
    clones[instruction] = target->AddInstruction(
        instruction->CloneWithNewOperands(instruction->shape(), operands));
  }
  std::vector<HloInstruction*> result;
  for (HloInstruction* root : roots) result.push_back(clones.at(root));
  return result;
}

absl::StatusOr<bool> Shrink(HloModule* module, HloInstruction* loop,
                            const absl::flat_hash_map<const HloComputation*, int>& callers,
                            SideEffectAnalysis& effects) {
  const Shape& shape = loop->shape();
  HloComputation* body = loop->while_body();
  HloComputation* condition = loop->while_condition();
  if (!shape.IsTuple() || shape.tuple_shapes().empty() || loop->IsRoot() ||
      callers.at(body) != 1 || callers.at(condition) != 1 ||
      !loop->control_predecessors().empty() || !loop->control_successors().empty() ||
      HasControlEdges(*body) || HasControlEdges(*condition) ||
      body->root_instruction()->opcode() != HloOpcode::kTuple ||
      effects.HasSideEffect(*condition) || effects.HasSideEffect(*body)) {
    return false;
  }
  absl::flat_hash_set<int64_t> live;
  for (const HloInstruction* user : loop->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
    live.insert(user->tuple_index());
  }
  std::optional<absl::flat_hash_set<int64_t>> read_by_condition = ElementsRead(*condition);
  std::optional<absl::flat_hash_set<int64_t>> read_by_body = ElementsRead(*body);
  if (!read_by_condition || !read_by_body) return false;
  live.insert(read_by_condition->begin(), read_by_condition->end());
  const int64_t size = static_cast<int64_t>(shape.tuple_shapes().size());
  for (int64_t i = 0; i < size; ++i) {
    if (!live.contains(i) && read_by_body->contains(i) && FeedsOthers(*body, i, effects)) {
      live.insert(i);
    }
  }
  if (static_cast<int64_t>(live.size()) == size) return false;
  // Keep at least one element: a loop with an empty state is still a loop
  // (its trip count may matter for nothing, but its condition may trap).
  if (live.empty()) return false;

  std::vector<int64_t> new_index(size, -1);
  std::vector<Shape> live_shapes;
  for (int64_t i = 0; i < size; ++i) {
    if (!live.contains(i)) continue;
    new_index[i] = static_cast<int64_t>(live_shapes.size());
    live_shapes.push_back(shape.tuple_shapes()[i]);
  }
  const Shape new_shape = Shape::MakeTuple(live_shapes);

  auto new_body = std::make_unique<HloComputation>(module->UniqueComputationName(body->name()));
  HloInstruction* body_parameter = new_body->AddInstruction(HloInstruction::CreateParameter(
      0, new_shape, body->parameter_instruction(0)->name()));
  std::vector<HloInstruction*> live_roots;
  for (int64_t i = 0; i < size; ++i) {
    if (live.contains(i)) live_roots.push_back(body->root_instruction()->operand(i));
  }
  TS_ASSIGN_OR_RETURN(std::vector<HloInstruction*> body_outputs,
                      CloneNeeded(*body, live_roots, new_body.get(), body_parameter, new_index));
  new_body->set_root_instruction(
      new_body->AddInstruction(HloInstruction::CreateTuple(body_outputs)));

  auto new_condition =
      std::make_unique<HloComputation>(module->UniqueComputationName(condition->name()));
  HloInstruction* condition_parameter = new_condition->AddInstruction(
      HloInstruction::CreateParameter(0, new_shape, condition->parameter_instruction(0)->name()));
  HloInstruction* old_condition_root = condition->root_instruction();
  TS_ASSIGN_OR_RETURN(
      std::vector<HloInstruction*> condition_outputs,
      CloneNeeded(*condition, {old_condition_root}, new_condition.get(), condition_parameter,
                  new_index));
  new_condition->set_root_instruction(condition_outputs[0]);

  HloComputation* parent = loop->parent();
  HloInstruction* init = loop->operand(0);
  std::vector<HloInstruction*> live_init;
  for (int64_t i = 0; i < size; ++i) {
    if (!live.contains(i)) continue;
    live_init.push_back(init->opcode() == HloOpcode::kTuple
                            ? init->operand(i)
                            : parent->AddInstruction(HloInstruction::CreateGetTupleElement(
                                  shape.tuple_shapes()[i], init, i)));
  }
  HloInstruction* new_init = parent->AddInstruction(HloInstruction::CreateTuple(live_init));
  HloComputation* body_ptr = module->AddEmbeddedComputation(std::move(new_body));
  HloComputation* condition_ptr = module->AddEmbeddedComputation(std::move(new_condition));
  HloInstruction* new_loop = parent->AddInstruction(
      HloInstruction::CreateWhile(new_shape, condition_ptr, body_ptr, new_init));
  new_loop->mutable_attrs().metadata = loop->metadata();
  for (HloInstruction* user : std::vector<HloInstruction*>(loop->users())) {
    HloInstruction* element = parent->AddInstruction(HloInstruction::CreateGetTupleElement(
        user->shape(), new_loop, new_index[user->tuple_index()]));
    TS_RETURN_IF_ERROR(parent->ReplaceInstruction(user, element));
  }
  // The old loop went with its last user (ReplaceInstruction removes
  // operands left unused); its computations are now uncalled, for DCE.
  return true;
}

}  // namespace

absl::StatusOr<bool> RemoveDeadWhileElements(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      // A rewrite removes the old loop's users, and with them the loop and
      // its init when nothing else reads them: those are gone from the
      // list taken before (reading them read freed memory, which now and
      // then looked like a while without computations).
      if (!computation->Contains(instruction)) continue;
      if (instruction->opcode() != HloOpcode::kWhile) continue;
      // Recount each time: a rewrite adds computations.
      TS_ASSIGN_OR_RETURN(bool shrunk,
                          Shrink(module, instruction, CallerCounts(*module), effects));
      changed |= shrunk;
    }
  }
  return changed;
}

}  // namespace tessera
