#include "passes/fusion/instruction_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_utils.h"

namespace tessera {
namespace {

// Distinct operands, in operand order.
std::vector<HloInstruction*> DistinctOperands(const HloInstruction& instruction) {
  std::vector<HloInstruction*> result;
  absl::flat_hash_set<const HloInstruction*> seen;
  for (HloInstruction* operand : instruction.operands()) {
    if (seen.insert(operand).second) result.push_back(operand);
  }
  return result;
}

}  // namespace

absl::StatusOr<bool> InstructionFusion::Run(HloModule* module) {
  FusionCostModel model(params_);
  FusionExplanationLog log(explanations_, name());
  bool changed = false;
  for (HloComputation* computation : FusionTargetComputations(*module)) {
    // One sweep almost always suffices; a second catches producers whose
    // users merged into one fusion late in the first.
    for (int round = 0; round < 4; ++round) {
      bool round_changed = false;
      std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
      std::reverse(order.begin(), order.end());
      for (HloInstruction* consumer : order) {
        // Fused producers are gone; a new instruction at a reused address is
        // a real one and may be visited.
        if (!computation->Contains(consumer)) continue;
        if (log.enabled() && !model.CanBeConsumer(*consumer) && consumer->operand_count() > 0) {
          const FusionDecision no = FusionDecision::No(
              absl::StrCat("consumer ", model.IsConsumer(*consumer).reason));
          for (HloInstruction* producer : DistinctOperands(*consumer)) {
            if (producer->opcode() != HloOpcode::kParameter) log.Record(*consumer, *producer, no);
          }
        }
        while (model.CanBeConsumer(*consumer)) {
          bool fused = false;
          for (HloInstruction* producer : DistinctOperands(*consumer)) {
            if (producer->opcode() == HloOpcode::kParameter) continue;
            FusionDecision decision = model.ShouldFuse(*producer, *consumer);
            log.Record(*consumer, *producer, decision);
            if (!decision.fuse) continue;
            const bool duplicate = producer->user_count() > 1 || producer->IsRoot();
            TS_ASSIGN_OR_RETURN(consumer, FuseProducerIntoConsumer(producer, consumer, duplicate));
            fused = true;
            break;
          }
          if (!fused) break;
          round_changed = true;
        }
      }
      if (!round_changed) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
