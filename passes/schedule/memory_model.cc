#include "passes/schedule/memory_model.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace tessera {
namespace {

const std::vector<int64_t>& Lookup(
    const absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>>& map,
    const HloInstruction* instruction) {
  static const std::vector<int64_t>* const kEmpty = new std::vector<int64_t>();
  auto it = map.find(instruction);
  return it == map.end() ? *kEmpty : it->second;
}

void AddUnique(std::vector<int64_t>* list, int64_t b) {
  if (std::find(list->begin(), list->end(), b) == list->end()) list->push_back(b);
}

}  // namespace

ComputationMemoryModel::ComputationMemoryModel(
    const HloComputation& computation, const HloAliasAnalysis& alias,
    const absl::flat_hash_map<const HloComputation*, int64_t>* callee_peaks)
    : computation_(computation) {
  const HloDataflowAnalysis& dataflow = alias.dataflow();
  // Local index of each buffer the computation allocates; -1: not its own.
  absl::flat_hash_map<int64_t, int64_t> local;
  auto owned = [&](const HloBuffer& buffer) {
    bool defined_here = false;
    for (const HloValue* value : buffer.values()) {
      const HloInstruction* definer = value->defining_instruction();
      if (definer->opcode() == HloOpcode::kConstant) return false;
      for (const HloPosition& position : value->positions()) {
        if (position.instruction->opcode() == HloOpcode::kParameter &&
            position.instruction->parent() == &computation) {
          return false;
        }
      }
      defined_here |= definer->parent() == &computation;
    }
    return defined_here;
  };
  auto local_index = [&](const HloBuffer& buffer) -> int64_t {
    auto it = local.find(buffer.id());
    if (it != local.end()) return it->second;
    int64_t index = -1;
    if (owned(buffer)) {
      index = static_cast<int64_t>(sizes_.size());
      sizes_.push_back(buffer.ByteSize());
      bool out = false;
      for (const HloValue* value : buffer.values()) out |= value->IsRootOf(&computation);
      live_out_.push_back(out);
      reader_counts_.push_back(0);
    }
    local[buffer.id()] = index;
    return index;
  };
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    for (const HloValue* value : dataflow.GetValuesDefinedBy(instruction)) {
      const int64_t b = local_index(alias.GetBufferContainingValue(*value));
      if (b >= 0) AddUnique(&defines_[instruction], b);
    }
  }
  for (const HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    if (IsForwardingInstruction(*instruction)) continue;
    for (const HloInstruction* operand : instruction->operands()) {
      for (const HloLeafValue& leaf : dataflow.GetLeafValues(operand)) {
        const int64_t b = local_index(alias.GetBufferContainingValue(*leaf.value));
        if (b < 0) continue;
        std::vector<int64_t>& reads = reads_[instruction];
        if (std::find(reads.begin(), reads.end(), b) == reads.end()) {
          reads.push_back(b);
          ++reader_counts_[b];
        }
      }
    }
    int64_t extra = 0;
    if (callee_peaks != nullptr && (instruction->opcode() == HloOpcode::kWhile ||
                                    instruction->opcode() == HloOpcode::kConditional ||
                                    instruction->opcode() == HloOpcode::kCall)) {
      for (const HloComputation* callee : instruction->called_computations()) {
        auto it = callee_peaks->find(callee);
        if (it != callee_peaks->end()) extra = std::max(extra, it->second);
      }
    }
    if (extra > 0) callee_peaks_[instruction] = extra;
  }
}

const std::vector<int64_t>& ComputationMemoryModel::defines(
    const HloInstruction* instruction) const {
  return Lookup(defines_, instruction);
}

const std::vector<int64_t>& ComputationMemoryModel::reads(
    const HloInstruction* instruction) const {
  return Lookup(reads_, instruction);
}

int64_t ComputationMemoryModel::callee_peak(const HloInstruction* instruction) const {
  auto it = callee_peaks_.find(instruction);
  return it == callee_peaks_.end() ? 0 : it->second;
}

int64_t ComputationMemoryModel::PeakMemory(absl::Span<HloInstruction* const> sequence) const {
  MemoryTracker tracker(*this);
  int64_t peak = 0;
  for (const HloInstruction* instruction : sequence) {
    peak = std::max(peak, tracker.Schedule(instruction));
  }
  return peak;
}

MemoryTracker::MemoryTracker(const ComputationMemoryModel& model)
    : model_(model),
      remaining_readers_(model.buffer_count()),
      allocated_(model.buffer_count(), false),
      freed_(model.buffer_count(), false) {
  for (int64_t b = 0; b < model.buffer_count(); ++b) remaining_readers_[b] = model.reader_count(b);
}

int64_t MemoryTracker::BytesDefined(const HloInstruction* instruction) const {
  int64_t bytes = 0;
  for (int64_t b : model_.defines(instruction)) {
    if (!allocated_[b]) bytes += model_.buffer_size(b);
  }
  return bytes;
}

int64_t MemoryTracker::BytesFreed(const HloInstruction* instruction) const {
  int64_t bytes = 0;
  for (int64_t b : model_.reads(instruction)) {
    if (remaining_readers_[b] == 1 && !model_.live_out(b) && !freed_[b]) {
      bytes += model_.buffer_size(b);
    }
  }
  // A value nobody reads is freed as soon as it is made.
  for (int64_t b : model_.defines(instruction)) {
    if (!allocated_[b] && remaining_readers_[b] == 0 && !model_.live_out(b)) {
      bytes += model_.buffer_size(b);
    }
  }
  return bytes;
}

int64_t MemoryTracker::Schedule(const HloInstruction* instruction) {
  for (int64_t b : model_.defines(instruction)) {
    if (!allocated_[b]) {
      allocated_[b] = true;
      live_ += model_.buffer_size(b);
    }
  }
  const int64_t during = live_ + model_.callee_peak(instruction);
  for (int64_t b : model_.reads(instruction)) {
    if (--remaining_readers_[b] == 0 && !model_.live_out(b) && allocated_[b] && !freed_[b]) {
      freed_[b] = true;
      live_ -= model_.buffer_size(b);
    }
  }
  for (int64_t b : model_.defines(instruction)) {
    if (remaining_readers_[b] == 0 && !model_.live_out(b) && !freed_[b]) {
      freed_[b] = true;
      live_ -= model_.buffer_size(b);
    }
  }
  return during;
}

}  // namespace tessera
