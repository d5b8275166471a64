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
  // Ranked once each (finding heroes walks a fusion's body).
  std::vector<std::pair<int, HloInstruction*>> ranked;
  for (HloInstruction* user : result) {
    const int rank = !FindHeroes(*user).empty() ? 0 : user->opcode() == HloOpcode::kFusion ? 1 : 2;
    ranked.push_back({rank, user});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < ranked.size(); ++i) result[i] = ranked[i].second;
  return result;
}

// Reachability for a sweep of fusions over one computation.  Built once
// per sweep: each fusion merges instructions, which only adds paths between
// the ones left, so a path the map knows is still there, while a path the
// map does not know may have appeared through a fusion made since; that
// case FuseInstructions' own walk refuses (a cycle), and the sweep moves
// on.  Instructions made since (a new fusion, its get-tuple-elements, or
// one at the address of a removed one) are not in the map: their
// candidates wait for the next sweep.
class SweepReachability {
 public:
  explicit SweepReachability(const HloComputation& computation) : reach_(computation) {
    for (const HloInstruction* instruction : computation.instructions()) {
      max_known_id_ = std::max(max_known_id_, instruction->unique_id());
    }
  }
  bool Knows(const HloInstruction* instruction) const {
    return instruction->unique_id() <= max_known_id_ && reach_.Contains(instruction);
  }
  const ReachabilityMap& map() const { return reach_; }

 private:
  ReachabilityMap reach_;
  int64_t max_known_id_ = -1;
};

// Fuses `members` unless FuseInstructions finds a cycle the sweep's map
// could not see (after an earlier fusion of the sweep).  Whether it fused.
absl::StatusOr<bool> FuseUnlessCyclic(absl::StatusOr<HloInstruction*> fused, bool map_is_stale,
                                      HloInstruction* consumer, HloInstruction* producer,
                                      FusionExplanationLog& log) {
  if (fused.ok()) return true;
  if (!map_is_stale || !absl::IsFailedPrecondition(fused.status())) return fused.status();
  log.Record(*consumer, *producer, FusionDecision::No(std::string(fused.status().message())));
  return false;
}

// Producer-consumer fusions (the producer becomes an extra output) in one
// post-order sweep; whether any was made.
absl::StatusOr<bool> SweepProducers(HloComputation* computation, FusionCostModel& model,
                                    FusionExplanationLog& log) {
  const SweepReachability reach(*computation);
  const std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  bool changed = false;
  for (HloInstruction* producer : order) {
    // Fused members are gone; a new instruction at a reused address waits.
    if (!computation->Contains(producer) || !reach.Knows(producer)) continue;
    const int64_t uses = producer->user_count() + (producer->IsRoot() ? 1 : 0);
    if (uses < 2 || producer->operand_count() == 0) continue;
    if (!model.IsFusible(*producer).fuse) continue;
    bool users_known = true;
    for (HloInstruction* user : producer->users()) users_known &= reach.Knows(user);
    if (!users_known) continue;
    for (HloInstruction* consumer : ConsumerCandidates(*producer, model)) {
      FusionDecision decision = model.ShouldFuseAsExtraOutput(*producer, *consumer);
      if (decision.fuse) {
        for (HloInstruction* other : producer->users()) {
          if (other != consumer && reach.map().IsReachable(other, consumer)) {
            decision = FusionDecision::No(absl::StrCat(
                "would create a cycle: %", other->name(), " uses the producer and feeds the consumer"));
            break;
          }
        }
      }
      log.Record(*consumer, *producer, decision);
      if (!decision.fuse) continue;
      TS_ASSIGN_OR_RETURN(const bool fused,
                          FuseUnlessCyclic(FuseProducerIntoConsumer(producer, consumer, false),
                                           changed, consumer, producer, log));
      if (!fused) continue;
      changed = true;
      break;  // the producer is gone
    }
  }
  return changed;
}

// Sibling fusions (two users of one shared operand) in one post-order
// sweep; whether any was made.
absl::StatusOr<bool> SweepSiblings(HloComputation* computation, FusionCostModel& model,
                                   FusionExplanationLog& log) {
  const SweepReachability reach(*computation);
  const std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  bool changed = false;
  for (HloInstruction* shared : order) {
    if (!computation->Contains(shared) || !reach.Knows(shared)) continue;
    std::vector<HloInstruction*> users;
    for (HloInstruction* user : shared->users()) {
      if (model.CanBeConsumer(*user) && reach.Knows(user)) users.push_back(user);
    }
    bool merged = false;
    for (size_t i = 0; i < users.size() && !merged; ++i) {
      for (size_t j = i + 1; j < users.size() && !merged; ++j) {
        FusionDecision decision = model.ShouldFuseSiblings(*users[i], *users[j], *shared);
        if (decision.fuse && reach.map().IsConnected(users[i], users[j])) {
          decision = FusionDecision::No(absl::StrCat(
              "would create a cycle: a path joins %", users[i]->name(), " and %", users[j]->name()));
        }
        log.Record(*users[i], *users[j], decision);
        if (!decision.fuse) continue;
        TS_ASSIGN_OR_RETURN(merged, FuseUnlessCyclic(MergeSiblings(users[i], users[j]), changed,
                                                     users[i], users[j], log));
      }
    }
    // The merged users are gone; the shared operand's next pair waits for
    // the next sweep.
    changed |= merged;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> MultiOutputFusion::Run(HloModule* module) {
  FusionCostModel model(params_);
  FusionExplanationLog log(explanations_, name());
  bool changed = false;
  for (HloComputation* computation : FusionTargetComputations(*module)) {
    // Producer-consumer fusions first, sweep after sweep, then siblings;
    // each fusion merges two nodes into one, so this ends.
    while (true) {
      TS_ASSIGN_OR_RETURN(bool fused, SweepProducers(computation, model, log));
      if (!fused) {
        TS_ASSIGN_OR_RETURN(fused, SweepSiblings(computation, model, log));
      }
      if (!fused) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace tessera
