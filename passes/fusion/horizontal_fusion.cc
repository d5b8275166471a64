#include "passes/fusion/horizontal_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_utils.h"

namespace tessera {
namespace {

// Kernels a candidate stands for: a multi-output fusion made by an earlier
// group counts once per output.
int64_t KernelWeight(const HloInstruction& instruction) {
  return instruction.shape().IsTuple() ? std::max<int64_t>(1, instruction.shape().tuple_size()) : 1;
}

}  // namespace

absl::StatusOr<bool> HorizontalFusion::Run(HloModule* module) {
  FusionCostModel model(params_);
  FusionExplanationLog log(explanations_, name());
  const FusionCostParams& params = model.params();
  bool changed = false;
  for (HloComputation* computation : FusionTargetComputations(*module)) {
    // Seeds that found no partner; merging only adds paths, so they never will.
    absl::flat_hash_set<const HloInstruction*> failed_seeds;
    while (true) {
      const ReachabilityMap reach(*computation);
      std::vector<HloInstruction*> candidates;
      for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
        if (instruction->opcode() == HloOpcode::kParameter ||
            instruction->opcode() == HloOpcode::kConstant ||
            instruction->opcode() == HloOpcode::kTuple ||
            instruction->opcode() == HloOpcode::kGetTupleElement) {
          continue;
        }
        FusionDecision decision = model.IsHorizontalCandidate(*instruction);
        if (decision.fuse) {
          candidates.push_back(instruction);
        } else if (instruction->opcode() == HloOpcode::kFusion || instruction->IsElementwise()) {
          log.Record(*instruction, *instruction, decision);
        }
      }
      std::vector<HloInstruction*> group;
      for (HloInstruction* seed : candidates) {
        if (failed_seeds.contains(seed)) continue;
        group = {seed};
        int64_t count = KernelWeight(*seed);
        int64_t size = FusedInstructionCount(*seed);
        absl::flat_hash_set<const HloInstruction*> operands(seed->operands().begin(),
                                                            seed->operands().end());
        for (HloInstruction* candidate : candidates) {
          if (candidate == seed) continue;
          if (count >= params.horizontal_max_count) break;
          FusionDecision decision = FusionDecision::Yes("independent small kernels: one launch");
          if (count + KernelWeight(*candidate) > params.horizontal_max_count) continue;
          for (HloInstruction* member : group) {
            if (reach.IsConnected(member, candidate)) {
              decision = FusionDecision::No(
                  absl::StrCat("depends on or feeds group member %", member->name()));
              break;
            }
          }
          const int64_t candidate_size = FusedInstructionCount(*candidate);
          if (decision.fuse && size + candidate_size > params.horizontal_max_fused_instructions) {
            decision = FusionDecision::No(
                absl::StrCat("the group would hold ", size + candidate_size, " instructions (cap ",
                             params.horizontal_max_fused_instructions, ")"));
          }
          absl::flat_hash_set<const HloInstruction*> merged = operands;
          merged.insert(candidate->operands().begin(), candidate->operands().end());
          if (decision.fuse &&
              static_cast<int64_t>(merged.size()) > params.max_fusion_operands) {
            decision = FusionDecision::No(absl::StrCat("the group would have ", merged.size(),
                                                       " operands (cap ",
                                                       params.max_fusion_operands, ")"));
          }
          // Only decisions about a group that forms are worth telling.
          if (!decision.fuse) continue;
          group.push_back(candidate);
          size += candidate_size;
          count += KernelWeight(*candidate);
          operands = std::move(merged);
        }
        if (group.size() >= 2) break;
        failed_seeds.insert(seed);
        group.clear();
      }
      if (group.size() < 2) break;
      for (size_t i = 1; i < group.size(); ++i) {
        log.Record(*group[0], *group[i],
                   FusionDecision::Yes(absl::StrCat("independent small kernels: ", group.size(),
                                                    " launches become one")));
      }
      FuseOptions options;
      options.kind = FusionKind::kLoop;
      options.computation_name = "horizontally_fused_computation";
      options.instruction_name = "horizontal_fusion";
      TS_RETURN_IF_ERROR(FuseInstructions(computation, group, options).status());
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
