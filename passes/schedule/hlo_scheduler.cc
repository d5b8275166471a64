#include "passes/schedule/hlo_scheduler.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/analysis/hlo_dataflow_analysis.h"
#include "hlo/ir/status_macros.h"
#include "passes/schedule/memory_model.h"
#include "passes/schedule/schedulers.h"

namespace tessera {

absl::string_view ScheduleAlgorithmName(ScheduleAlgorithm algorithm) {
  switch (algorithm) {
    case ScheduleAlgorithm::kBest: return "best";
    case ScheduleAlgorithm::kList: return "list";
    case ScheduleAlgorithm::kDfs: return "dfs";
    case ScheduleAlgorithm::kPostOrder: return "post-order";
  }
  return "?";
}

absl::StatusOr<bool> HloScheduler::Run(HloModule* module) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> dataflow,
                      HloDataflowAnalysis::Run(*module));
  HloAliasAnalysis alias(*dataflow);
  stats_.clear();
  entry_peak_ = 0;
  const bool had_schedule = module->has_schedule();
  bool changed = !had_schedule;
  absl::flat_hash_map<const HloComputation*, int64_t> peaks;
  HloSchedule& schedule = module->mutable_schedule();
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->IsFusionComputation()) continue;
    ComputationMemoryModel model(*computation, alias, &peaks);
    ComputationScheduleStats stats;
    stats.computation = computation->name();
    std::vector<HloInstruction*> best;
    auto consider = [&](ScheduleAlgorithm algorithm, std::vector<HloInstruction*> sequence,
                        int64_t* slot) {
      const int64_t peak = model.PeakMemory(sequence);
      *slot = peak;
      if (best.empty() || peak < stats.peak) {
        best = std::move(sequence);
        stats.peak = peak;
        stats.chosen = algorithm;
      }
    };
    if (algorithm_ == ScheduleAlgorithm::kBest || algorithm_ == ScheduleAlgorithm::kList) {
      consider(ScheduleAlgorithm::kList, ListSchedule(model), &stats.list_peak);
    }
    if (algorithm_ == ScheduleAlgorithm::kBest || algorithm_ == ScheduleAlgorithm::kDfs) {
      consider(ScheduleAlgorithm::kDfs, DfsSchedule(model), &stats.dfs_peak);
    }
    if (algorithm_ == ScheduleAlgorithm::kBest || algorithm_ == ScheduleAlgorithm::kPostOrder) {
      consider(ScheduleAlgorithm::kPostOrder, PostOrderSchedule(model), &stats.post_order_peak);
    }
    if (static_cast<int64_t>(best.size()) != computation->instruction_count()) {
      return absl::InternalError(absl::StrCat("scheduling computation ", computation->name(),
                                              " lost instructions (a cycle?)"));
    }
    peaks[computation] = stats.peak;
    if (computation == module->entry_computation()) entry_peak_ = stats.peak;
    if (!changed && (!schedule.HasSequence(computation) || schedule.sequence(computation) != best)) {
      changed = true;
    }
    schedule.SetSequence(computation, std::move(best));
    stats_.push_back(std::move(stats));
  }
  return changed;
}

absl::Status VerifySchedule(const HloModule& module) {
  if (!module.has_schedule()) {
    return absl::FailedPreconditionError(absl::StrCat("module ", module.name(),
                                                      " is not scheduled"));
  }
  for (const HloComputation* computation : module.computations()) {
    if (computation->IsFusionComputation()) continue;
    if (!module.schedule().HasSequence(computation)) {
      return absl::FailedPreconditionError(
          absl::StrCat("computation ", computation->name(), " has no schedule"));
    }
    const std::vector<HloInstruction*>& sequence = module.schedule().sequence(computation);
    absl::flat_hash_set<const HloInstruction*> done;
    for (const HloInstruction* instruction : sequence) {
      if (instruction == nullptr || !computation->Contains(instruction)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the schedule of computation ", computation->name(),
            " lists an instruction that is not in it (the schedule is stale)"));
      }
      for (const HloInstruction* operand : instruction->operands()) {
        if (!done.contains(operand)) {
          return absl::FailedPreconditionError(
              absl::StrCat("schedule of ", computation->name(), ": %", instruction->name(),
                           " comes before its operand %", operand->name()));
        }
      }
      for (const HloInstruction* predecessor : instruction->control_predecessors()) {
        if (!done.contains(predecessor)) {
          return absl::FailedPreconditionError(
              absl::StrCat("schedule of ", computation->name(), ": %", instruction->name(),
                           " comes before its control predecessor %", predecessor->name()));
        }
      }
      if (!done.insert(instruction).second) {
        return absl::FailedPreconditionError(absl::StrCat(
            "schedule of ", computation->name(), " lists %", instruction->name(), " twice"));
      }
    }
    if (static_cast<int64_t>(done.size()) != computation->instruction_count()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the schedule of computation ", computation->name(), " lists ",
                       done.size(), " of its ", computation->instruction_count(),
                       " instructions (the schedule is stale)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ScheduledPeakMemory(const HloModule& module) {
  TS_RETURN_IF_ERROR(VerifySchedule(module));
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> dataflow,
                      HloDataflowAnalysis::Run(module));
  HloAliasAnalysis alias(*dataflow);
  absl::flat_hash_map<const HloComputation*, int64_t> peaks;
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    if (computation->IsFusionComputation()) continue;
    ComputationMemoryModel model(*computation, alias, &peaks);
    peaks[computation] = model.PeakMemory(module.schedule().sequence(computation));
  }
  return peaks[module.entry_computation()];
}

}  // namespace tessera
