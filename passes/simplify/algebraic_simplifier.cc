// The AlgebraicSimplifier driver: walks each computation in post-order,
// tries the rules registered for each instruction's opcode in table order,
// and sweeps again until a sweep changes nothing.  The rules themselves
// live in algsimp_*.cc; the Rewriter they change the graph through is here.
#include "passes/simplify/algebraic_simplifier.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {

HloInstruction* Rewriter::Add(std::unique_ptr<HloInstruction> instruction,
                              const HloInstruction* origin) {
  if (origin != nullptr) instruction->mutable_attrs().metadata = origin->metadata();
  return computation_->AddInstruction(std::move(instruction));
}

absl::StatusOr<bool> Rewriter::Replace(HloInstruction* old, HloInstruction* replacement) {
  if (old == replacement || old->shape() != replacement->shape()) return false;
  TS_RETURN_IF_ERROR(old->ReplaceAllUsesWith(replacement));
  TS_RETURN_IF_ERROR(RemoveDead(old));
  return true;
}

absl::StatusOr<bool> Rewriter::ReplaceWithNew(HloInstruction* old,
                                              std::unique_ptr<HloInstruction> replacement) {
  if (old->shape() != replacement->shape()) {
    return absl::InternalError(absl::StrCat("algsimp: the replacement of %", old->name(),
                                            " has shape ", replacement->shape().ToString(true),
                                            ", not ", old->shape().ToString(true)));
  }
  if (old->has_sharding() && !replacement->has_sharding()) {
    replacement->mutable_attrs().sharding = old->attrs().sharding;
  }
  return Replace(old, Add(std::move(replacement), old));
}

// Removes `instruction` (which has no users) and then every operand left
// without users, except parameters, instructions with side effects (also
// in what they call) and instructions with control edges.
absl::Status Rewriter::RemoveDead(HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (!computation_->Contains(current) || current->user_count() != 0 || current->IsRoot()) {
      continue;
    }
    if (current != instruction &&
        (current->opcode() == HloOpcode::kParameter || !current->control_predecessors().empty() ||
         !current->control_successors().empty() || effects_->HasSideEffect(*current))) {
      continue;
    }
    std::vector<HloInstruction*> operands = current->operands();
    TS_RETURN_IF_ERROR(computation_->RemoveInstruction(current));
    for (HloInstruction* operand : operands) {
      if (std::find(worklist.begin(), worklist.end(), operand) == worklist.end()) {
        worklist.push_back(operand);
      }
    }
  }
  return absl::OkStatus();
}

namespace {

using RuleTable = std::array<std::vector<const Rule*>, kHloOpcodeCount>;

const RuleTable& RulesByOpcode() {
  static const RuleTable* table = [] {
    auto* rules = new RuleTable();
    for (absl::Span<const Rule> family :
         {ArithmeticRules(), ShapeOpRules(), SlicingRules(), DotReduceRules(), FftRules()}) {
      for (const Rule& rule : family) (*rules)[static_cast<int>(rule.opcode)].push_back(&rule);
    }
    return rules;
  }();
  return *table;
}

// Instructions the rules may look at: static arrays computed without side
// effects or ordering constraints.
bool Eligible(const HloInstruction& instruction, SideEffectAnalysis& effects) {
  if (instruction.opcode() == HloOpcode::kParameter ||
      instruction.opcode() == HloOpcode::kConstant || !instruction.shape().IsArray() ||
      !instruction.shape().is_static() || !instruction.control_predecessors().empty() ||
      !instruction.control_successors().empty()) {
    return false;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!operand->shape().is_static()) return false;
  }
  return !effects.HasSideEffect(instruction);
}

// An operation whose result has no elements becomes an empty constant.
absl::StatusOr<bool> ReplaceZeroElementResult(HloInstruction* instruction, Rewriter& rewriter) {
  if (instruction->shape().ElementCount() != 0) return false;
  TS_ASSIGN_OR_RETURN(Literal empty, Literal::CreateFromShape(instruction->shape()));
  auto constant = HloInstruction::CreateConstant(std::move(empty));
  *constant->mutable_shape() = instruction->shape();
  return rewriter.ReplaceWithNew(instruction, std::move(constant));
}

absl::StatusOr<bool> SweepComputation(HloComputation* computation,
                                      const AlgebraicSimplifierOptions& options,
                                      SideEffectAnalysis& effects,
                                      std::map<std::string, int64_t>& counts) {
  const RuleTable& rules = RulesByOpcode();
  Rewriter rewriter(computation, options, &effects);
  bool changed = false;
  // Replacements only remove the replaced instruction and operands that
  // died with it, all of which come earlier in post-order: the rest of the
  // list stays valid.
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (!computation->Contains(instruction) || !Eligible(*instruction, effects)) continue;
    // A rule that fires may delete `instruction`: nothing reads it after.
    const std::vector<const Rule*>& candidates = rules[static_cast<int>(instruction->opcode())];
    TS_ASSIGN_OR_RETURN(bool fired, ReplaceZeroElementResult(instruction, rewriter));
    if (fired) ++counts["zero-element-result"];
    for (const Rule* rule : candidates) {
      if (fired) break;
      TS_ASSIGN_OR_RETURN(fired, rule->fn(instruction, rewriter));
      if (fired) ++counts[std::string(rule->name)];
    }
    changed |= fired;
  }
  return changed;
}

}  // namespace
}  // namespace algsimp

absl::StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    // Fused computations belong to the backend that made them.
    if (computation->IsFusionComputation()) continue;
    for (int64_t sweep = 0; sweep < options_.max_iterations; ++sweep) {
      TS_ASSIGN_OR_RETURN(bool swept, algsimp::SweepComputation(computation, options_, effects, rule_counts_));
      if (!swept) break;
      changed = true;
    }
  }
  // New instructions have no place in a schedule: it is stale.
  // Simplification runs before scheduling anyway.
  if (changed && module->has_schedule()) module->clear_schedule();
  return changed;
}

}  // namespace tessera
