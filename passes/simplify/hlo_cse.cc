#include "passes/simplify/hlo_cse.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsCommutative(const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kCompare) {
    return instruction.comparison_direction() == ComparisonDirection::kEq ||
           instruction.comparison_direction() == ComparisonDirection::kNe;
  }
  return instruction.operand_count() == 2 && HloOpcodeIsCommutative(instruction.opcode());
}

bool SameValue(const HloInstruction& a, const HloInstruction& b) {
  auto same = [](const HloInstruction* x, const HloInstruction* y) { return x == y; };
  if (a.Identical(b, same)) return true;
  // The same commutative op with its two operands crossed.
  return IsCommutative(a) && a.opcode() == b.opcode() && a.shape() == b.shape() &&
         b.operand_count() == 2 && a.operand(0) == b.operand(1) &&
         a.operand(1) == b.operand(0) && a.called_computations() == b.called_computations() &&
         a.AttributesEqual(b);
}

// A hash consistent with SameValue: operands hashed as a set when the op is
// commutative.
size_t ValueHash(const HloInstruction& instruction) {
  std::vector<int64_t> operand_ids;
  for (const HloInstruction* operand : instruction.operands()) {
    operand_ids.push_back(operand->unique_id());
  }
  if (IsCommutative(instruction)) std::sort(operand_ids.begin(), operand_ids.end());
  return absl::HashOf(static_cast<int>(instruction.opcode()), instruction.shape().ToString(true),
                      operand_ids);
}

size_t ConstantHash(const HloInstruction& constant) {
  const Literal& literal = constant.literal();
  return absl::HashOf(
      constant.shape().ToString(true),
      absl::string_view(static_cast<const char*>(literal.untyped_data()),
                        static_cast<size_t>(literal.size_bytes())));
}

bool CanMerge(const HloInstruction& instruction, SideEffectAnalysis& effects) {
  return instruction.opcode() != HloOpcode::kParameter &&
         instruction.control_predecessors().empty() &&
         instruction.control_successors().empty() && !effects.HasSideEffect(instruction);
}

// Replaces `duplicate` by `original` everywhere, root included.
absl::Status Merge(HloComputation* computation, HloInstruction* duplicate,
                   HloInstruction* original) {
  const bool was_root = duplicate->IsRoot();
  TS_RETURN_IF_ERROR(duplicate->ReplaceAllUsesWith(original));
  if (was_root) computation->set_root_instruction(original);
  return computation->RemoveInstruction(duplicate);
}

absl::StatusOr<bool> DeduplicateConstants(HloComputation* computation,
                                          SideEffectAnalysis& effects) {
  bool changed = false;
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kConstant || !instruction->shape().IsArray() ||
        !CanMerge(*instruction, effects)) {
      continue;
    }
    std::vector<HloInstruction*>& bucket = seen[ConstantHash(*instruction)];
    auto match = std::find_if(bucket.begin(), bucket.end(), [&](HloInstruction* earlier) {
      return earlier->shape() == instruction->shape() &&
             earlier->literal().size_bytes() == instruction->literal().size_bytes() &&
             std::memcmp(earlier->literal().untyped_data(), instruction->literal().untyped_data(),
                         instruction->literal().size_bytes()) == 0;
    });
    if (match == bucket.end()) {
      bucket.push_back(instruction);
      continue;
    }
    TS_RETURN_IF_ERROR(Merge(computation, instruction, *match));
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> DeduplicateExpressions(HloComputation* computation,
                                            SideEffectAnalysis& effects) {
  bool changed = false;
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  // Post-order: operands are merged before their users are compared, so
  // whole equal expression trees collapse in one sweep.
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kConstant || !CanMerge(*instruction, effects)) {
      continue;
    }
    std::vector<HloInstruction*>& bucket = seen[ValueHash(*instruction)];
    auto match = std::find_if(bucket.begin(), bucket.end(), [&](HloInstruction* earlier) {
      return SameValue(*earlier, *instruction);
    });
    if (match == bucket.end()) {
      bucket.push_back(instruction);
      continue;
    }
    TS_RETURN_IF_ERROR(Merge(computation, instruction, *match));
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> HloCse::Run(HloModule* module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    TS_ASSIGN_OR_RETURN(bool constants, DeduplicateConstants(computation, effects));
    TS_ASSIGN_OR_RETURN(bool expressions, DeduplicateExpressions(computation, effects));
    changed |= constants || expressions;
  }
  // A merged value may now be used before its scheduled position: the
  // schedule is stale.  Simplification runs before scheduling anyway.
  if (changed && module->has_schedule()) module->clear_schedule();
  return changed;
}

}  // namespace tessera
