// ComputationMemoryModel: what running one computation's instructions in a
// given order costs in live memory, as the schedulers see it.
//
// The model works on buffers (HloAliasAnalysis): a buffer is allocated when
// the first of its values is defined by an instruction of the computation,
// and freed after its last reader in the computation, unless it is live out
// (held by the root).  Buffers that are not the computation's to allocate
// cost nothing: those holding a parameter (entry arguments, the loop state a
// body updates, a branch's operand) and constants (they live in read-only
// memory).  An instruction that calls computations sequentially (while,
// conditional, call) needs, while it runs, the peak of its callees on top.
//
//   ComputationMemoryModel model(*computation, alias, &callee_peaks);
//   int64_t peak = model.PeakMemory(sequence);
#ifndef TESSERA_PASSES_SCHEDULE_MEMORY_MODEL_H_
#define TESSERA_PASSES_SCHEDULE_MEMORY_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/ir/hlo_computation.h"

namespace tessera {

class ComputationMemoryModel {
 public:
  // `callee_peaks` (may be null) gives the peak memory of computations
  // already scheduled; callees not in it count as 0.
  ComputationMemoryModel(const HloComputation& computation, const HloAliasAnalysis& alias,
                         const absl::flat_hash_map<const HloComputation*, int64_t>* callee_peaks);

  const HloComputation& computation() const { return computation_; }

  // Simulates `sequence` (every instruction of the computation once, in a
  // valid order) and returns the largest number of bytes live at once.
  int64_t PeakMemory(absl::Span<HloInstruction* const> sequence) const;

  // Buffers, by local index.
  int64_t buffer_count() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t buffer_size(int64_t b) const { return sizes_[b]; }
  bool live_out(int64_t b) const { return live_out_[b]; }
  // Distinct instructions of the computation that read buffer b.
  int64_t reader_count(int64_t b) const { return reader_counts_[b]; }
  // Local buffers `instruction` defines a value of, and reads.
  const std::vector<int64_t>& defines(const HloInstruction* instruction) const;
  const std::vector<int64_t>& reads(const HloInstruction* instruction) const;
  // Peak of the computations `instruction` calls sequentially.
  int64_t callee_peak(const HloInstruction* instruction) const;

 private:
  const HloComputation& computation_;
  std::vector<int64_t> sizes_;
  std::vector<bool> live_out_;
  std::vector<int64_t> reader_counts_;
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> defines_;
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> reads_;
  absl::flat_hash_map<const HloInstruction*, int64_t> callee_peaks_;
};

// Tracks live bytes while a sequence is built one instruction at a time;
// shared by PeakMemory and the list scheduler.
class MemoryTracker {
 public:
  explicit MemoryTracker(const ComputationMemoryModel& model);

  // Bytes `instruction` would allocate, and free, if it ran next.
  int64_t BytesDefined(const HloInstruction* instruction) const;
  int64_t BytesFreed(const HloInstruction* instruction) const;
  // Runs `instruction`; returns the live bytes while it runs (callee peak
  // included).
  int64_t Schedule(const HloInstruction* instruction);
  int64_t live_bytes() const { return live_; }

 private:
  const ComputationMemoryModel& model_;
  std::vector<int64_t> remaining_readers_;
  std::vector<bool> allocated_;
  std::vector<bool> freed_;
  int64_t live_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SCHEDULE_MEMORY_MODEL_H_
