#include "passes/memory/buffer_liveness.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

bool IsCallLike(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kWhile ||
         instruction.opcode() == HloOpcode::kConditional ||
         instruction.opcode() == HloOpcode::kCall;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BufferLiveness>> BufferLiveness::Run(
    const HloModule& module, const HloDataflowAnalysis& dataflow) {
  if (!module.has_schedule()) {
    return absl::FailedPreconditionError(
        absl::StrCat("module ", module.name(), " is not scheduled; run the scheduler first"));
  }
  std::unique_ptr<BufferLiveness> liveness(new BufferLiveness(module, dataflow));
  TS_RETURN_IF_ERROR(liveness->Flatten(module.entry_computation()));
  liveness->end_time_ = liveness->computation_end_[module.entry_computation()];
  liveness->ComputeIntervals();
  return liveness;
}

absl::Status BufferLiveness::Flatten(const HloComputation* computation) {
  if (!module_.schedule().HasSequence(computation)) {
    return absl::FailedPreconditionError(
        absl::StrCat("computation ", computation->name(), " has no schedule"));
  }
  for (const HloInstruction* instruction : module_.schedule().sequence(computation)) {
    if (instruction == nullptr || instruction->parent() != computation ||
        times_.contains(instruction)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the schedule of computation ", computation->name(), " is not valid (stale?)"));
    }
    order_.push_back(instruction);
    const int64_t start = next_time_++;
    bool called = false;
    if (IsCallLike(*instruction)) {
      for (const HloComputation* callee : instruction->called_computations()) {
        if (dataflow_.context(callee) == HloDataflowAnalysis::Context::kFlat &&
            dataflow_.caller(callee) == instruction) {
          TS_RETURN_IF_ERROR(Flatten(callee));
          called = true;
        }
      }
    }
    const int64_t end = called ? next_time_++ : start;
    times_[instruction] = {start, end};
  }
  computation_end_[computation] = next_time_++;
  return absl::OkStatus();
}

int64_t BufferLiveness::start(const HloInstruction* instruction) const {
  auto it = times_.find(instruction);
  return it == times_.end() ? -1 : it->second.first;
}

int64_t BufferLiveness::end(const HloInstruction* instruction) const {
  auto it = times_.find(instruction);
  return it == times_.end() ? -1 : it->second.second;
}

int64_t BufferLiveness::DefinitionTime(const HloValue& value) const {
  const HloInstruction* definer = value.defining_instruction();
  if (definer->opcode() == HloOpcode::kConstant ||
      (definer->opcode() == HloOpcode::kParameter &&
       definer->parent() == module_.entry_computation())) {
    return 0;
  }
  if (value.is_phi() && definer->opcode() == HloOpcode::kWhile) return start(definer);
  return end(definer);
}

void BufferLiveness::ComputeIntervals() {
  intervals_.assign(dataflow_.values().size(), {});
  for (const auto& owned : dataflow_.values()) {
    const HloValue& value = *owned;
    const HloInstruction* definer = value.defining_instruction();
    if (!times_.contains(definer)) continue;  // outside the sequential scope
    const int64_t def = DefinitionTime(value);
    std::vector<int64_t> times;
    for (const HloUse& use : value.uses()) {
      const int64_t t = start(use.instruction);
      if (t >= 0) times.push_back(t);
    }
    for (const HloPosition& position : value.positions()) {
      const HloComputation* computation = position.instruction->parent();
      if (position.instruction == computation->root_instruction()) {
        auto it = computation_end_.find(computation);
        if (it != computation_end_.end()) times.push_back(it->second);
      }
    }
    std::vector<LiveInterval>& intervals = intervals_[value.id()];
    if (value.is_phi() && definer->opcode() == HloOpcode::kWhile && end(definer) > def) {
      // The loop state: read inside the loop until the body makes the next
      // state, and from the loop's end on.  It lives through the whole
      // condition (flattened first): the last run of the condition is
      // followed by the loop's end, not by the body, so nothing the
      // condition computes may take the state's buffers (a predicate
      // written in place of a pred state element it reads lost that
      // element's value on exit).
      const int64_t loop_end = end(definer);
      LiveInterval inside{def, def}, after{loop_end, loop_end};
      if (auto it = computation_end_.find(definer->while_condition());
          it != computation_end_.end()) {
        inside.end = it->second;
      }
      for (int64_t t : times) {
        if (t < loop_end) {
          inside.end = std::max(inside.end, t);
        } else {
          after.end = std::max(after.end, t);
        }
      }
      intervals = {inside, after};
      continue;
    }
    LiveInterval interval{def, def};
    for (int64_t t : times) interval.end = std::max(interval.end, t);
    intervals = {interval};
  }
}

LiveInterval BufferLiveness::Hull(const HloValue& value) const {
  const std::vector<LiveInterval>& intervals = intervals_[value.id()];
  if (intervals.empty()) return {0, -1};
  return {intervals.front().start, intervals.back().end};
}

bool BufferLiveness::DefinedInPlaceOf(const HloValue& b, const HloValue& a) const {
  const HloInstruction* definer = b.defining_instruction();
  bool reads = false;
  for (const HloUse& use : a.uses()) {
    if (use.instruction != definer) continue;
    if (!dataflow_.CanShareOperandBuffer(*definer, use.operand_number, use.operand_index,
                                         b.defining_index())) {
      return false;
    }
    reads = true;
  }
  return reads;
}

bool BufferLiveness::Interfere(const HloValue& a, const HloValue& b) const {
  if (&a == &b) return false;
  const std::vector<LiveInterval>& as = intervals_[a.id()];
  const std::vector<LiveInterval>& bs = intervals_[b.id()];
  for (size_t i = 0; i < as.size(); ++i) {
    for (size_t j = 0; j < bs.size(); ++j) {
      if (!as[i].Overlaps(bs[j])) continue;
      // Touching at one time, where one is defined in place of the other.
      if (j == 0 && as[i].end == bs[j].start && bs[j].start == DefinitionTime(b) &&
          DefinedInPlaceOf(b, a)) {
        continue;
      }
      if (i == 0 && bs[j].end == as[i].start && as[i].start == DefinitionTime(a) &&
          DefinedInPlaceOf(a, b)) {
        continue;
      }
      return true;
    }
  }
  return false;
}

std::string BufferLiveness::ToString() const {
  std::string out = absl::StrCat("BufferLiveness (end time ", end_time_, ")\n");
  for (const auto& value : dataflow_.values()) {
    if (!IsLive(*value)) continue;
    absl::StrAppend(&out, "  ", value->ToShortString(), ":");
    for (const LiveInterval& interval : intervals_[value->id()]) {
      absl::StrAppend(&out, " [", interval.start, ", ", interval.end, "]");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace tessera
