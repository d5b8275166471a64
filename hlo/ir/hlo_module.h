// HloModule: the computations of a program, its entry computation, and the
// module-level configuration HLO text writes in its header line
// (entry_computation_layout, input_output_alias, is_scheduled, ...).
#ifndef TESSERA_HLO_IR_HLO_MODULE_H_
#define TESSERA_HLO_IR_HLO_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"

namespace tessera {

// A parameter (or part of one) that the caller donates to the output at
// `output_index` (XLA's input_output_alias).
struct InputOutputAlias {
  enum class Kind : int32_t { kMayAlias = 1, kMustAlias = 2 };  // numbered as xla::Kind
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  Kind kind = Kind::kMayAlias;
  bool operator==(const InputOutputAlias&) const = default;
};

// A parameter (or part of one) whose buffer the caller donates to any output.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool operator==(const BufferDonor&) const = default;
};

struct HloModuleConfig {
  // Parameter and result layouts the caller sees; absent means "as the
  // entry computation's shapes say".
  std::optional<ProgramShape> entry_computation_layout;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donors;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  FrontendAttributes frontend_attributes;
  // SPMD settings carried for round trips; they do not affect one device.
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters;
  std::vector<bool> allow_spmd_sharding_propagation_to_output;
  std::optional<HloSharding> spmd_output_sharding;
  std::vector<HloSharding> spmd_parameters_shardings;
  bool operator==(const HloModuleConfig&) const = default;
};

// A sequential order of the instructions of each non-fusion computation.
class HloSchedule {
 public:
  void SetSequence(const HloComputation* computation, std::vector<HloInstruction*> sequence) {
    sequences_[computation] = std::move(sequence);
  }
  bool HasSequence(const HloComputation* computation) const {
    return sequences_.contains(computation);
  }
  const std::vector<HloInstruction*>& sequence(const HloComputation* computation) const {
    return sequences_.at(computation);
  }
  void RemoveSequence(const HloComputation* computation) { sequences_.erase(computation); }

 private:
  absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>> sequences_;
};

class HloModule {
 public:
  explicit HloModule(std::string name) : name_(std::move(name)) {}
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void SetName(std::string name) { name_ = std::move(name); }

  HloModuleConfig& config() { return config_; }
  const HloModuleConfig& config() const { return config_; }

  // Adds a computation; ids and names of it and its instructions are made
  // unique within the module.
  HloComputation* AddEntryComputation(std::unique_ptr<HloComputation> computation);
  HloComputation* AddEmbeddedComputation(std::unique_ptr<HloComputation> computation);
  // Removes a computation no instruction calls.
  absl::Status RemoveComputation(HloComputation* computation);
  // Removes several at once (one scan of the module for callers, however
  // many go); none may be called by a computation that stays.
  absl::Status RemoveComputations(absl::Span<HloComputation* const> computations);

  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* entry) { entry_ = entry; }

  // Computations in the order they were added.
  std::vector<HloComputation*> computations() const;
  int64_t computation_count() const { return static_cast<int64_t>(computations_.size()); }
  // Callees before callers, the entry last; computations not reachable from
  // the entry come first, in added order.
  std::vector<HloComputation*> MakeComputationPostOrder() const;
  HloComputation* GetComputationWithName(absl::string_view name) const;
  int64_t instruction_count() const;

  // "base" if free, else "base.1", "base.2", ...; the name is then taken.
  std::string UniqueInstructionName(absl::string_view base);
  std::string UniqueComputationName(absl::string_view base);
  // Marks a name as taken (the parser keeps names as written).
  void ReserveInstructionName(absl::string_view name) { instruction_names_.insert(std::string(name)); }
  int64_t NewUniqueInstructionId() { return next_instruction_id_++; }
  // Called by HloComputation::AddInstruction.
  void RegisterInstruction(HloInstruction* instruction);

  bool has_schedule() const { return schedule_.has_value(); }
  const HloSchedule& schedule() const { return *schedule_; }
  HloSchedule& mutable_schedule() { return schedule_ ? *schedule_ : schedule_.emplace(); }
  void clear_schedule() { schedule_.reset(); }

 private:
  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation);

  std::string name_;
  HloModuleConfig config_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  std::optional<HloSchedule> schedule_;
  absl::flat_hash_set<std::string> instruction_names_;
  absl::flat_hash_set<std::string> computation_names_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;  // per instruction name base
  absl::flat_hash_map<std::string, int64_t> next_computation_suffix_;
  int64_t next_instruction_id_ = 0;
  int64_t next_computation_id_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_MODULE_H_
