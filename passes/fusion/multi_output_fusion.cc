#include "passes/fusion/multi_output_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "passes/fusion/fusion_utils.h"

namespace tessera {
namespace {

// Users that could hold fused producers, each once; reductions first (they
// read the producer anyway and are the usual kernel to extend).
std::vector<HloInstruction*> ConsumerCandidates(const HloInstruction& producer,
                                                FusionCostModel& model) {
  std::vector<HloInstruction*> result;
  for (HloInstruction* user : producer.users()) {
    if (model.CanBeConsumer(*user)) result.push_back(user);
  }
  std::stable_sort(result.begin(), result.end(), [](HloInstruction* a, HloInstruction* b) {
    auto rank = [](HloInstruction* h) {
      if (!FindHeroes(*h).empty()) return 0;
      return h->opcode() == HloOpcode::kFusion ? 1 : 2;
    };
    return rank(a) < rank(b);
  });
  return result;
}

// One fusion, or none: the first accepted candidate in post-order.
absl::StatusOr<bool> FuseOne(HloComputation* computation, FusionCostModel& model,
                             FusionExplanationLog& log) {
  const ReachabilityMap reach(*computation);
  const std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  // Producer-consumer: the producer becomes an extra output.
  for (HloInstruction* producer : order) {
    const int64_t uses = producer->user_count() + (producer->IsRoot() ? 1 : 0);
    if (uses < 2 || producer->operand_count() == 0) continue;
    if (!model.IsFusible(*producer).fuse) continue;
    for (HloInstruction* consumer : ConsumerCandidates(*producer, model)) {
      FusionDecision decision = model.ShouldFuseAsExtraOutput(*producer, *consumer);
      if (decision.fuse) {
        for (HloInstruction* other : producer->users()) {
          if (other != consumer && reach.IsReachable(other, consumer)) {
            decision = FusionDecision::No(absl::StrCat(
                "would create a cycle: %", other->name(), " uses the producer and feeds the consumer"));
            break;
          }
        }
      }
      log.Record(*consumer, *producer, decision);
      if (!decision.fuse) continue;
      TS_RETURN_IF_ERROR(FuseProducerIntoConsumer(producer, consumer, false).status());
      return true;
    }
  }
  // Siblings: two users of one shared operand.
  for (HloInstruction* shared : order) {
    std::vector<HloInstruction*> users;
    for (HloInstruction* user : shared->users()) {
      if (model.CanBeConsumer(*user)) users.push_back(user);
    }
    for (size_t i = 0; i < users.size(); ++i) {
      for (size_t j = i + 1; j < users.size(); ++j) {
        FusionDecision decision = model.ShouldFuseSiblings(*users[i], *users[j], *shared);
        if (decision.fuse && reach.IsConnected(users[i], users[j])) {
          decision = FusionDecision::No(absl::StrCat(
              "would create a cycle: a path joins %", users[i]->name(), " and %", users[j]->name()));
        }
        log.Record(*users[i], *users[j], decision);
        if (!decision.fuse) continue;
        TS_RETURN_IF_ERROR(MergeSiblings(users[i], users[j]).status());
        return true;
      }
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> MultiOutputFusion::Run(HloModule* module) {
  FusionCostModel model(params_);
  FusionExplanationLog log(explanations_, name());
  bool changed = false;
  for (HloComputation* computation : FusionTargetComputations(*module)) {
    // Each fusion merges two nodes into one, so this ends.
    while (true) {
      TS_ASSIGN_OR_RETURN(bool fused, FuseOne(computation, model, log));
      if (!fused) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
