// BufferLiveness: when each HLO value is live, from the module's schedule.
//
// The schedules of the entry and of every computation it calls sequentially
// (flat while bodies and conditions, conditional branches, call callees) are
// flattened into one timeline: a call-like instruction gets a start time (it
// reads its operands), then its callees' instructions in order (a while's
// condition, then its body; each branch in turn), then an end time (its
// result exists).  A plain instruction reads and writes at one time.
//
// A value is live on closed intervals of that timeline: from its definition
// (entry parameters and constants: time 0; a while's loop state: the while's
// start; anything else: its instruction's end) to its last read, or to the
// end of a computation whose root holds it.  The loop state is the one value
// with two intervals: from the loop's start to its last read inside the loop
// (the body then makes the next state), and from the loop's end on.  Two
// values that are ever live at the same time interfere: they may not share
// storage, except that an instruction may write its result over an operand
// it reads for the last time when it can work in place
// (CanShareOperandBufferWithUser).
#ifndef TESSERA_PASSES_MEMORY_BUFFER_LIVENESS_H_
#define TESSERA_PASSES_MEMORY_BUFFER_LIVENESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/analysis/hlo_dataflow_analysis.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

struct LiveInterval {
  int64_t start = 0;
  int64_t end = 0;  // inclusive
  bool Overlaps(const LiveInterval& other) const {
    return start <= other.end && other.start <= end;
  }
};

class BufferLiveness {
 public:
  // The module must have a valid schedule for every computation in the
  // dataflow's sequential scope; `dataflow` must outlive the result.
  static absl::StatusOr<std::unique_ptr<BufferLiveness>> Run(const HloModule& module,
                                                             const HloDataflowAnalysis& dataflow);

  // Empty for values outside the sequential scope.
  const std::vector<LiveInterval>& intervals(const HloValue& value) const {
    return intervals_[value.id()];
  }
  // From the first interval's start to the last one's end.
  LiveInterval Hull(const HloValue& value) const;
  bool IsLive(const HloValue& value) const { return !intervals_[value.id()].empty(); }

  // Times of an instruction in the sequential scope (-1 for others).
  int64_t start(const HloInstruction* instruction) const;
  int64_t end(const HloInstruction* instruction) const;
  // After every instruction.
  int64_t end_time() const { return end_time_; }
  // The instructions of the sequential scope by start time.
  const std::vector<const HloInstruction*>& flattened_order() const { return order_; }

  // True when `a` and `b` (different values) cannot share storage.
  bool Interfere(const HloValue& a, const HloValue& b) const;

  std::string ToString() const;

 private:
  BufferLiveness(const HloModule& module, const HloDataflowAnalysis& dataflow)
      : module_(module), dataflow_(dataflow) {}
  absl::Status Flatten(const HloComputation* computation);
  void ComputeIntervals();
  // True when `b` is defined, at the time `a` is last read, by an
  // instruction that may write `b` over `a`.
  bool DefinedInPlaceOf(const HloValue& b, const HloValue& a) const;
  int64_t DefinitionTime(const HloValue& value) const;

  const HloModule& module_;
  const HloDataflowAnalysis& dataflow_;
  absl::flat_hash_map<const HloInstruction*, std::pair<int64_t, int64_t>> times_;
  absl::flat_hash_map<const HloComputation*, int64_t> computation_end_;
  std::vector<const HloInstruction*> order_;
  std::vector<std::vector<LiveInterval>> intervals_;
  int64_t next_time_ = 1;
  int64_t end_time_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_MEMORY_BUFFER_LIVENESS_H_
