// HloScheduler: gives every non-fusion computation of a module a sequential
// order that keeps peak live memory low, and stores it on the module
// (`module->schedule()`), which then prints with `is_scheduled=true` and its
// instructions in schedule order, as XLA prints scheduled modules.
//
// Computations are scheduled callees first, so a while, conditional or call
// counts its callees' peak on top of what is live around it.  With
// Algorithm::kBest (the default) the list, DFS and post-order schedules are
// all simulated (ComputationMemoryModel) and the one with the lowest peak is
// kept (ties: list, then DFS, then post order).  Control dependencies are
// respected like operands.
//
// Passes that add or remove instructions afterwards leave the schedule
// stale; VerifySchedule says so, and buffer assignment refuses it.
#ifndef TESSERA_PASSES_SCHEDULE_HLO_SCHEDULER_H_
#define TESSERA_PASSES_SCHEDULE_HLO_SCHEDULER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/ir/hlo_module.h"
#include "passes/hlo_pass.h"

namespace tessera {

enum class ScheduleAlgorithm { kBest, kList, kDfs, kPostOrder };
absl::string_view ScheduleAlgorithmName(ScheduleAlgorithm algorithm);  // "list", ...

// What the scheduler found for one computation: the simulated peak of each
// algorithm it tried and the one it kept.
struct ComputationScheduleStats {
  std::string computation;
  int64_t list_peak = -1;        // -1: not tried
  int64_t dfs_peak = -1;
  int64_t post_order_peak = -1;
  ScheduleAlgorithm chosen = ScheduleAlgorithm::kPostOrder;
  int64_t peak = 0;
};

class HloScheduler : public HloPass {
 public:
  explicit HloScheduler(ScheduleAlgorithm algorithm = ScheduleAlgorithm::kBest)
      : algorithm_(algorithm) {}

  absl::string_view name() const override { return "scheduler"; }
  // True when the module had no schedule or one that differs.
  absl::StatusOr<bool> Run(HloModule* module) override;

  // Per computation, callees first, from the last Run.
  const std::vector<ComputationScheduleStats>& stats() const { return stats_; }
  // The entry computation's peak from the last Run.
  int64_t entry_peak() const { return entry_peak_; }

 private:
  ScheduleAlgorithm algorithm_;
  std::vector<ComputationScheduleStats> stats_;
  int64_t entry_peak_ = 0;
};

// OK when the module has a schedule that lists, for every non-fusion
// computation, each of its instructions exactly once with operands and
// control predecessors before their users; otherwise an error naming the
// computation and instruction.
absl::Status VerifySchedule(const HloModule& module);

// The simulated peak memory of the module's schedule, per computation as
// the scheduler measures it (callees' peaks included in their callers');
// the entry computation's figure is the program's.
absl::StatusOr<int64_t> ScheduledPeakMemory(const HloModule& module);

}  // namespace tessera

#endif  // TESSERA_PASSES_SCHEDULE_HLO_SCHEDULER_H_
