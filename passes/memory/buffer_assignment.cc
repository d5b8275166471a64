#include "passes/memory/buffer_assignment.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/hlo_alias_analysis.h"
#include "hlo/ir/status_macros.h"
#include "passes/schedule/hlo_scheduler.h"

namespace tessera {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return (value + alignment - 1) / alignment * alignment;
}

std::string IndexText(const ShapeIndex& index) { return ShapeIndexToString(index); }

constexpr absl::string_view kRunCopyInsertion =
    "; run copy-insertion before scheduling to make the module safe to assign";

}  // namespace

std::string BufferAllocation::ToString() const {
  std::string out = absl::StrCat("allocation ", index, ": ");
  switch (kind) {
    case Kind::kParameter:
      absl::StrAppend(&out, "parameter ", parameter_number, " ", IndexText(parameter_index));
      break;
    case Kind::kOutput:
      absl::StrAppend(&out, "output");
      break;
    case Kind::kConstants:
      absl::StrAppend(&out, "constants");
      break;
    case Kind::kTemp:
      absl::StrAppend(&out, "temp");
      break;
  }
  if (kind == Kind::kOutput) {
    std::vector<std::string> indices;
    for (const ShapeIndex& index : output_indices) indices.push_back(IndexText(index));
    absl::StrAppend(&out, " ", absl::StrJoin(indices, " "));
  }
  absl::StrAppend(&out, ", ", size, " bytes");
  if (read_only()) absl::StrAppend(&out, ", read-only");
  if (kind == Kind::kParameter && donated) {
    std::vector<std::string> indices;
    for (const ShapeIndex& index : output_indices) indices.push_back(IndexText(index));
    absl::StrAppend(&out, ", donated to output ", absl::StrJoin(indices, " "));
  }
  return out;
}

std::string BufferSlice::ToString() const {
  return absl::StrCat("a", allocation, "[", offset, ", ", offset + size, ")");
}

absl::StatusOr<BufferSlice> BufferAssignment::GetSlice(const HloInstruction* instruction,
                                                       const ShapeIndex& index) const {
  const HloValue* value = dataflow_->GetValueAt(instruction, index);
  if (value == nullptr || !HasSlice(*value)) {
    return absl::NotFoundError(absl::StrCat("no buffer at %", instruction->name(),
                                            IndexText(index)));
  }
  return slices_[value->id()];
}

std::string BufferAssignment::SummaryString() const {
  const double ratio =
      naive_bytes_ == 0 ? 1.0 : static_cast<double>(total_bytes_) / static_cast<double>(naive_bytes_);
  return absl::StrFormat(
      "summary: peak %d bytes (parameters %d, outputs %d, constants %d, temp %d), sum of buffers "
      "%d bytes, ratio %.3f (temp heap %s, %d values in place)",
      total_bytes_, parameter_bytes_, output_bytes_, constant_bytes_, temp_bytes_, naive_bytes_,
      ratio, std::string(HeapAlgorithmName(heap_algorithm_)), in_place_count_);
}

std::string BufferAssignment::ToString() const {
  std::string out = absl::StrCat("BufferAssignment of module ", module_->name(), ": ",
                                 allocations_.size(), " allocations, alignment ", alignment_,
                                 "\n");
  for (const BufferAllocation& allocation : allocations_) {
    absl::StrAppend(&out, allocation.ToString(), "\n");
  }
  std::vector<const HloValue*> values;
  for (const auto& value : dataflow_->values()) {
    if (HasSlice(*value)) values.push_back(value.get());
  }
  std::stable_sort(values.begin(), values.end(), [&](const HloValue* a, const HloValue* b) {
    const BufferSlice &x = slices_[a->id()], &y = slices_[b->id()];
    if (x.allocation != y.allocation) return x.allocation < y.allocation;
    return x.offset < y.offset;
  });
  for (const HloValue* value : values) {
    absl::StrAppend(&out, "  ", slices_[value->id()].ToString(), " ", value->ToShortString(), " ",
                    value->shape().ToString(), "\n");
  }
  for (const std::string& note : notes_) absl::StrAppend(&out, "note: ", note, "\n");
  absl::StrAppend(&out, SummaryString(), "\n");
  return out;
}

class BufferAssigner {
 public:
  BufferAssigner(const HloModule& module, const BufferAssignmentOptions& options)
      : module_(module), options_(options) {}

  absl::StatusOr<BufferAssignment> Run() {
    if (!module_.has_schedule()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "module ", module_.name(), " is not scheduled; run the scheduler before assigning buffers"));
    }
    TS_RETURN_IF_ERROR(VerifySchedule(module_));
    BufferAssignment assignment;
    assignment.module_ = &module_;
    assignment.alignment_ = std::max<int64_t>(1, options_.alignment);
    TS_ASSIGN_OR_RETURN(assignment.dataflow_, HloDataflowAnalysis::Run(module_));
    dataflow_ = assignment.dataflow_.get();
    if (!dataflow_->unflattened_callees().empty()) {
      const HloComputation* callee = dataflow_->unflattened_callees().front();
      return absl::FailedPreconditionError(absl::StrCat(
          "computation ", callee->name(),
          " is called sequentially from more than one place (or also as a reducer)",
          kRunCopyInsertion, " (it gives each call site its own copy)"));
    }
    TS_ASSIGN_OR_RETURN(assignment.liveness_, BufferLiveness::Run(module_, *dataflow_));
    liveness_ = assignment.liveness_.get();
    HloAliasAnalysis alias(*dataflow_);
    Initialize(alias);
    TS_RETURN_IF_ERROR(CheckConstraints(alias));
    if (options_.use_donation) TS_RETURN_IF_ERROR(ApplyDonation(&assignment));
    if (options_.in_place) ApplyInPlace(&assignment);
    Layout(&assignment);
    return assignment;
  }

 private:
  struct Flags {
    const HloValue* parameter = nullptr;  // an entry parameter value
    bool constant = false;
    std::vector<ShapeIndex> outputs;
    bool donated = false;
    int64_t size = 0;
  };

  int64_t Find(int64_t id) {
    while (parent_[id] != id) {
      parent_[id] = parent_[parent_[id]];
      id = parent_[id];
    }
    return id;
  }

  void Union(int64_t a, int64_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    Flags& fa = flags_[a];
    const Flags& fb = flags_[b];
    if (fa.parameter == nullptr) fa.parameter = fb.parameter;
    fa.constant |= fb.constant;
    fa.outputs.insert(fa.outputs.end(), fb.outputs.begin(), fb.outputs.end());
    fa.donated |= fb.donated;
    fa.size = std::max(fa.size, fb.size);
    members_[a].insert(members_[a].end(), members_[b].begin(), members_[b].end());
    members_[b].clear();
  }

  void Initialize(const HloAliasAnalysis& alias) {
    const int64_t n = dataflow_->values().size();
    parent_.resize(n);
    flags_.assign(n, Flags());
    members_.assign(n, {});
    in_scope_.assign(n, false);
    for (const auto& value : dataflow_->values()) {
      in_scope_[value->id()] = liveness_->IsLive(*value);
      parent_[value->id()] = alias.GetBufferContainingValue(*value).values().front()->id();
    }
    const HloComputation* entry = module_.entry_computation();
    for (const auto& value : dataflow_->values()) {
      const int64_t root = parent_[value->id()];
      Flags& flags = flags_[root];
      const HloInstruction* definer = value->defining_instruction();
      if (definer->opcode() == HloOpcode::kParameter && definer->parent() == entry) {
        flags.parameter = value.get();
      }
      if (definer->opcode() == HloOpcode::kConstant) flags.constant = true;
      flags.size = std::max(flags.size, value->shape().ByteSize());
      members_[root].push_back(value.get());
    }
    for (const HloLeafValue& leaf : dataflow_->GetLeafValues(entry->root_instruction())) {
      flags_[Find(leaf.value->id())].outputs.push_back(leaf.index);
      outputs_.push_back(leaf);
    }
  }

  bool Interfere(int64_t a, int64_t b) {
    for (const HloValue* x : members_[Find(a)]) {
      for (const HloValue* y : members_[Find(b)]) {
        if (liveness_->Interfere(*x, *y)) return true;
      }
    }
    return false;
  }

  // Whether buffers a and b may become one; `donation` allows one of them
  // to be an entry parameter.
  bool CanMerge(int64_t a, int64_t b, bool donation) {
    a = Find(a);
    b = Find(b);
    if (a == b) return false;
    const Flags &fa = flags_[a], &fb = flags_[b];
    if (fa.constant || fb.constant) return false;
    if (fa.parameter != nullptr && fb.parameter != nullptr) return false;
    if ((fa.parameter != nullptr && !fa.donated && !donation) ||
        (fb.parameter != nullptr && !fb.donated && !donation)) {
      return false;
    }
    if (!fa.outputs.empty() && !fb.outputs.empty()) return false;
    if (fa.size != fb.size) return false;
    return !Interfere(a, b);
  }

  bool IsAliasedParameterOutput(const HloValue& value, const ShapeIndex& output_index) {
    const HloInstruction* definer = value.defining_instruction();
    for (const InputOutputAlias& alias : module_.config().input_output_alias) {
      if (alias.output_index == output_index &&
          alias.parameter_number == definer->parameter_number() &&
          alias.parameter_index == value.defining_index()) {
        return true;
      }
    }
    return false;
  }

  absl::Status CheckConstraints(const HloAliasAnalysis& alias) {
    for (const HloBuffer& buffer : alias.buffers()) {
      if (buffer.values().size() < 2) continue;
      const HloValue* first = buffer.values().front();
      if (!in_scope_[first->id()]) continue;
      for (const HloValue* value : buffer.values()) {
        const HloInstruction* definer = value->defining_instruction();
        if (definer->opcode() == HloOpcode::kConstant ||
            (definer->opcode() == HloOpcode::kParameter &&
             definer->parent() == module_.entry_computation())) {
          return absl::FailedPreconditionError(absl::StrCat(
              value->ToShortString(), " is a ",
              definer->opcode() == HloOpcode::kConstant ? "constant" : "parameter",
              " but must share storage with ", buffer.ToString(),
              " (a loop state or a conditional's result), which writes over it",
              kRunCopyInsertion));
        }
      }
      for (size_t i = 0; i < buffer.values().size(); ++i) {
        for (size_t j = i + 1; j < buffer.values().size(); ++j) {
          const HloValue& a = *buffer.values()[i];
          const HloValue& b = *buffer.values()[j];
          if (liveness_->Interfere(a, b)) {
            return absl::FailedPreconditionError(absl::StrCat(
                a.ToShortString(), " and ", b.ToShortString(),
                " must share storage (", buffer.ToString(),
                ": a loop state or a conditional's result) but are live at the same time",
                kRunCopyInsertion));
          }
        }
      }
    }
    absl::flat_hash_map<int64_t, ShapeIndex> output_of_buffer;
    for (const HloLeafValue& leaf : outputs_) {
      const HloValue& value = *leaf.value;
      const HloInstruction* definer = value.defining_instruction();
      if (definer->opcode() == HloOpcode::kConstant) {
        return absl::FailedPreconditionError(absl::StrCat(
            "output ", IndexText(leaf.index), " is the constant ", value.ToShortString(),
            kRunCopyInsertion));
      }
      if (definer->opcode() == HloOpcode::kParameter &&
          definer->parent() == module_.entry_computation() &&
          !IsAliasedParameterOutput(value, leaf.index)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "output ", IndexText(leaf.index), " is the parameter ", value.ToShortString(),
            ", which the caller does not donate to it", kRunCopyInsertion));
      }
      const int64_t buffer = Find(value.id());
      auto [it, inserted] = output_of_buffer.insert({buffer, leaf.index});
      if (!inserted) {
        return absl::FailedPreconditionError(absl::StrCat(
            "outputs ", IndexText(it->second), " and ", IndexText(leaf.index),
            " would share storage (", value.ToShortString(), ")", kRunCopyInsertion));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ApplyDonation(BufferAssignment* assignment) {
    const HloComputation* entry = module_.entry_computation();
    const HloInstruction* root = entry->root_instruction();
    for (const InputOutputAlias& alias : module_.config().input_output_alias) {
      const HloValue* output = dataflow_->GetValueAt(root, alias.output_index);
      if (output == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_output_alias names output ", IndexText(alias.output_index),
            ", which is not an array leaf of the entry's result"));
      }
      if (alias.parameter_number < 0 || alias.parameter_number >= entry->num_parameters() ||
          entry->parameter_instruction(alias.parameter_number) == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_output_alias names parameter ", alias.parameter_number, ", which the entry lacks"));
      }
      const HloValue* parameter = dataflow_->GetValueAt(
          entry->parameter_instruction(alias.parameter_number), alias.parameter_index);
      if (parameter == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_output_alias names parameter ", alias.parameter_number, " ",
            IndexText(alias.parameter_index), ", which is not an array leaf"));
      }
      const std::string what = absl::StrCat("parameter ", alias.parameter_number, " ",
                                            IndexText(alias.parameter_index), " -> output ",
                                            IndexText(alias.output_index));
      if (Find(output->id()) == Find(parameter->id())) {
        flags_[Find(parameter->id())].donated = true;
        continue;
      }
      if (flags_[Find(parameter->id())].donated) {
        return absl::InvalidArgumentError(
            absl::StrCat("input_output_alias donates ", what, " but the parameter is donated twice"));
      }
      if (CanMerge(output->id(), parameter->id(), /*donation=*/true)) {
        Union(output->id(), parameter->id());
        flags_[Find(parameter->id())].donated = true;
      } else if (alias.kind == InputOutputAlias::Kind::kMustAlias) {
        return absl::FailedPreconditionError(absl::StrCat(
            "must-alias ", what, ": the output ", output->ToShortString(),
            " is made while the parameter is still read (or sizes differ)"));
      } else {
        assignment->notes_.push_back(absl::StrCat(
            "donation ", what, " not used: the output ", output->ToShortString(),
            " is made while the parameter is still read"));
      }
    }
    for (const BufferDonor& donor : module_.config().buffer_donors) {
      if (donor.parameter_number < 0 || donor.parameter_number >= entry->num_parameters() ||
          entry->parameter_instruction(donor.parameter_number) == nullptr) {
        continue;
      }
      const HloValue* parameter = dataflow_->GetValueAt(
          entry->parameter_instruction(donor.parameter_number), donor.parameter_index);
      if (parameter == nullptr || flags_[Find(parameter->id())].donated) continue;
      for (const HloLeafValue& leaf : outputs_) {
        const int64_t buffer = Find(leaf.value->id());
        if (flags_[buffer].parameter != nullptr) continue;
        if (CanMerge(buffer, parameter->id(), /*donation=*/true)) {
          Union(buffer, parameter->id());
          flags_[Find(parameter->id())].donated = true;
          break;
        }
      }
    }
    return absl::OkStatus();
  }

  void ApplyInPlace(BufferAssignment* assignment) {
    for (const HloInstruction* instruction : liveness_->flattened_order()) {
      if (IsForwardingInstruction(*instruction) ||
          instruction->opcode() == HloOpcode::kWhile ||
          instruction->opcode() == HloOpcode::kConditional ||
          instruction->opcode() == HloOpcode::kCall) {
        continue;
      }
      for (const HloValue* value : dataflow_->GetValuesDefinedBy(instruction)) {
        if (!in_scope_[value->id()]) continue;
        bool merged = false;
        for (int64_t k = 0; k < instruction->operand_count() && !merged; ++k) {
          for (const HloLeafValue& leaf : dataflow_->GetLeafValues(instruction->operand(k))) {
            const int64_t operand_buffer = Find(leaf.value->id());
            if (operand_buffer == Find(value->id())) continue;
            if (!dataflow_->CanShareOperandBuffer(*instruction, k, leaf.index,
                                                  value->defining_index())) {
              continue;
            }
            if (!EveryReadInPlace(instruction, operand_buffer, value->defining_index())) continue;
            if (!CanMerge(operand_buffer, value->id(), /*donation=*/false)) continue;
            Union(operand_buffer, value->id());
            ++assignment->in_place_count_;
            merged = true;
            break;
          }
        }
      }
    }
  }

  // Every operand leaf of `instruction` held in `buffer` is read in a way
  // that lets the result leaf `output_index` be written over it.
  bool EveryReadInPlace(const HloInstruction* instruction, int64_t buffer,
                        const ShapeIndex& output_index) {
    for (int64_t k = 0; k < instruction->operand_count(); ++k) {
      for (const HloLeafValue& leaf : dataflow_->GetLeafValues(instruction->operand(k))) {
        if (Find(leaf.value->id()) != buffer) continue;
        if (!dataflow_->CanShareOperandBuffer(*instruction, k, leaf.index, output_index)) {
          return false;
        }
      }
    }
    return true;
  }

  void Layout(BufferAssignment* assignment) {
    const int64_t alignment = assignment->alignment_;
    const int64_t n = dataflow_->values().size();
    std::vector<int64_t> allocation_of(n, -1), offset_of(n, 0);
    std::vector<BufferAllocation>& allocations = assignment->allocations_;
    auto add = [&](BufferAllocation allocation) {
      allocation.index = allocations.size();
      allocations.push_back(std::move(allocation));
      return allocations.back().index;
    };
    const HloComputation* entry = module_.entry_computation();
    for (const HloInstruction* parameter : entry->parameter_instructions()) {
      if (parameter == nullptr) continue;
      for (const HloLeafValue& leaf : dataflow_->GetLeafValues(parameter)) {
        const int64_t buffer = Find(leaf.value->id());
        if (allocation_of[buffer] >= 0) continue;
        BufferAllocation allocation;
        allocation.kind = BufferAllocation::Kind::kParameter;
        allocation.size = flags_[buffer].size;
        allocation.parameter_number = parameter->parameter_number();
        allocation.parameter_index = leaf.index;
        allocation.donated = flags_[buffer].donated;
        allocation.output_indices = flags_[buffer].outputs;
        allocation_of[buffer] = add(std::move(allocation));
      }
    }
    for (const HloLeafValue& leaf : outputs_) {
      const int64_t buffer = Find(leaf.value->id());
      if (allocation_of[buffer] >= 0) continue;
      BufferAllocation allocation;
      allocation.kind = BufferAllocation::Kind::kOutput;
      allocation.size = flags_[buffer].size;
      allocation.output_indices = flags_[buffer].outputs;
      allocation_of[buffer] = add(std::move(allocation));
    }
    // Constants and temporaries, in value order.
    std::vector<int64_t> constants, temps;
    for (int64_t id = 0; id < n; ++id) {
      if (!in_scope_[id] || Find(id) != id || allocation_of[id] >= 0) continue;
      (flags_[id].constant ? constants : temps).push_back(id);
    }
    if (!constants.empty()) {
      BufferAllocation allocation;
      allocation.kind = BufferAllocation::Kind::kConstants;
      int64_t cursor = 0;
      const int64_t index = allocations.size();
      for (int64_t buffer : constants) {
        allocation_of[buffer] = index;
        offset_of[buffer] = cursor;
        cursor += AlignUp(flags_[buffer].size, alignment);
      }
      allocation.size = cursor;
      add(std::move(allocation));
    }
    if (!temps.empty()) {
      std::vector<HeapBlock> blocks;
      for (int64_t buffer : temps) {
        HeapBlock block;
        block.size = flags_[buffer].size;
        bool first = true;
        for (const HloValue* value : members_[buffer]) {
          const LiveInterval hull = liveness_->Hull(*value);
          if (hull.end < hull.start) continue;
          block.start = first ? hull.start : std::min(block.start, hull.start);
          block.end = first ? hull.end : std::max(block.end, hull.end);
          first = false;
        }
        blocks.push_back(block);
      }
      HeapResult heap;
      switch (options_.heap) {
        case BufferAssignmentOptions::Heap::kBest:
          heap = RunBestHeapSimulator(blocks, alignment);
          break;
        case BufferAssignmentOptions::Heap::kBestFit:
          heap = RunHeapSimulator(blocks, HeapAlgorithm::kBestFit, alignment);
          break;
        case BufferAssignmentOptions::Heap::kFirstFit:
          heap = RunHeapSimulator(blocks, HeapAlgorithm::kFirstFit, alignment);
          break;
      }
      assignment->heap_algorithm_ = heap.algorithm;
      BufferAllocation allocation;
      allocation.kind = BufferAllocation::Kind::kTemp;
      allocation.size = heap.heap_size;
      const int64_t index = add(std::move(allocation));
      for (size_t i = 0; i < temps.size(); ++i) {
        allocation_of[temps[i]] = index;
        offset_of[temps[i]] = heap.offsets[i];
      }
    }
    assignment->slices_.assign(n, BufferSlice());
    for (int64_t id = 0; id < n; ++id) {
      if (!in_scope_[id]) continue;
      const int64_t buffer = Find(id);
      const HloValue& value = dataflow_->value(id);
      assignment->slices_[id] = {allocation_of[buffer], offset_of[buffer], value.shape().ByteSize()};
      assignment->naive_bytes_ += value.shape().ByteSize();
    }
    for (const BufferAllocation& allocation : allocations) {
      assignment->total_bytes_ += allocation.size;
      switch (allocation.kind) {
        case BufferAllocation::Kind::kParameter:
          assignment->parameter_bytes_ += allocation.size;
          break;
        case BufferAllocation::Kind::kOutput:
          assignment->output_bytes_ += allocation.size;
          break;
        case BufferAllocation::Kind::kConstants:
          assignment->constant_bytes_ += allocation.size;
          break;
        case BufferAllocation::Kind::kTemp:
          assignment->temp_bytes_ += allocation.size;
          break;
      }
    }
  }

  const HloModule& module_;
  const BufferAssignmentOptions& options_;
  const HloDataflowAnalysis* dataflow_ = nullptr;
  const BufferLiveness* liveness_ = nullptr;
  std::vector<int64_t> parent_;
  std::vector<Flags> flags_;
  std::vector<std::vector<const HloValue*>> members_;
  std::vector<bool> in_scope_;
  std::vector<HloLeafValue> outputs_;
};

absl::StatusOr<BufferAssignment> AssignBuffers(const HloModule& module,
                                               const BufferAssignmentOptions& options) {
  BufferAssigner assigner(module, options);
  return assigner.Run();
}

}  // namespace tessera
